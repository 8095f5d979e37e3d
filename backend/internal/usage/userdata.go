package usage

import "github.com/fabrica-saas/fabrica/backend/internal/userdata"

// UserData is usage's entry in the user-data registry: every table goes with the user (ON DELETE
// CASCADE). None is in the export yet: what a recorded use cost is in the export's credit_transactions,
// and the counts themselves are what GET /api/v1/entitlements shows the user.
func UserData() []userdata.Table {
	notYet := "not in the export yet: the charges it caused are in credit_transactions, the current counts in GET /api/v1/entitlements"
	var out []userdata.Table
	for _, name := range []string{"usage_claims", "usage_counters", "usage_events", "usage_gauges", "usage_notifications"} {
		out = append(out, userdata.Table{Name: name, Owner: "usage", NotExported: notYet,
			Erase: userdata.Erase{Policy: userdata.Delete}})
	}
	return out
}
