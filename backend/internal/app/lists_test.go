package app

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every list endpoint reads limit and cursor the same way: a limit that is not a number and a cursor the
// server never handed out are both 400 bad_request.
func TestEveryListRejectsABadLimitOrCursor(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	tok := e.adminToken(t)
	for _, path := range []string{"/api/v1/billing/credits", adminAPI + "/users", adminAPI + "/audit", adminAPI + "/webhook-events"} {
		for _, q := range []string{"?limit=ten", "?cursor=not-a-cursor"} {
			rec := e.call(t, http.MethodGet, path+q, tok, "")
			require.Equal(t, http.StatusBadRequest, rec.Code, path+q+": "+rec.Body.String())
			require.Contains(t, rec.Body.String(), `"code":"bad_request"`, path+q)
		}
	}
}
