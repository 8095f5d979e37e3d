package broadcast

import "github.com/fabrica-saas/fabrica/backend/internal/userdata"

// UserData is broadcast's entry in the user-data registry: a recipient row records that a run mailed a
// user; at erasure it stays as the run's history without the user (ON DELETE SET NULL).
func UserData() []userdata.Table {
	return []userdata.Table{{
		Name: "broadcast_recipients", Owner: "broadcast",
		NotExported: "delivery bookkeeping of an operator's run; each mail sent is in the export's audit_logs (email.sent)",
		Erase: userdata.Erase{Policy: userdata.Redact,
			Reason: "the row stays as the run's history (its counts) without the user (user_id set to NULL)"},
	}}
}
