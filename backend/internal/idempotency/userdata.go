package idempotency

import "github.com/fabrica-saas/fabrica/backend/internal/userdata"

// UserData is idempotency's entry in the user-data registry: a stored answer may hold the user's data, so
// it goes with the user (ON DELETE CASCADE); it lives for minutes (USAGE_DEDUP_WINDOW) and is a copy of
// an answer the user already received, so the export leaves it out.
func UserData() []userdata.Table {
	return []userdata.Table{{
		Name: "idempotency_keys", Owner: "idempotency",
		NotExported: "short-lived copies of answers the user already received",
		Erase:       userdata.Erase{Policy: userdata.Delete},
	}}
}
