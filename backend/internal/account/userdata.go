package account

import "github.com/fabrica-saas/fabrica/backend/internal/userdata"

// UserData is account's entry in the user-data registry: the users row itself. erased_users holds no
// user id (a keyed hash only), so it has no entry.
func UserData() []userdata.Table {
	return []userdata.Table{{
		Name: "users", Owner: "account",
		NotExported: "the document's head: account writes the row as the export's `user` before any section",
		Erase:       userdata.Erase{Policy: userdata.Delete},
	}}
}
