package app

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
)

type accountCase struct {
	name, method, path, token, body string
	wantStatus                      int
	wantCode                        string
	wantBody                        string // a substring, when set
}

func (e *apiEnv) runAccount(t *testing.T, cases []accountCase) {
	t.Helper()
	for _, tc := range cases {
		rec := e.call(t, tc.method, tc.path, tc.token, tc.body)
		require.Equal(t, tc.wantStatus, rec.Code, "%s: %s", tc.name, rec.Body.String())
		if tc.wantCode != "" {
			require.Contains(t, rec.Body.String(), `"code":"`+tc.wantCode+`"`, tc.name)
		}
		require.Contains(t, rec.Body.String(), tc.wantBody, tc.name)
	}
}

func (e *apiEnv) accountSignedInAt(t *testing.T, clerkID string, at time.Time) string {
	return e.issuer.Token(t, sessiontest.TokenClaims{UserID: clerkID, SessionID: "sess2_" + clerkID, Email: clerkID + "@example.com", AuthTime: at})
}

func (e *apiEnv) accountAudits(t *testing.T, action string) []string {
	t.Helper()
	var details []string
	require.NoError(t, e.db.Gorm.Raw(`SELECT details::text FROM audit_logs WHERE action = ? ORDER BY created_at`, action).Scan(&details).Error)
	return details
}

const (
	mePath      = "/api/v1/account/me"
	exportPath  = "/api/v1/account/me/export"
	consentPath = "/api/v1/account/me/consent"
	unsubPath   = "/api/v1/email/unsubscribe"
)

var accountEndpoints = []struct{ method, path, body string }{
	{http.MethodGet, mePath, ""}, {http.MethodPatch, mePath, `{"locale":"en"}`}, {http.MethodDelete, mePath, ""},
	{http.MethodGet, exportPath, ""}, {http.MethodPost, consentPath, `{"marketing":true}`},
}

func TestAccountAPIRequiresASession(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	forged := sessiontest.NewIssuer(t).Token(t, sessiontest.TokenClaims{UserID: "user_a"})
	for _, ep := range accountEndpoints {
		for name, tok := range map[string]string{"none": "", "forged": forged, "garbage": "abc.def.ghi"} {
			e.runAccount(t, []accountCase{{name + " " + ep.method + " " + ep.path, ep.method, ep.path, tok, ep.body, http.StatusUnauthorized, "unauthorized", ""}})
		}
	}
	var users int
	require.NoError(t, e.db.Gorm.Raw(`SELECT count(*) FROM users`).Scan(&users).Error)
	require.Zero(t, users)
}

func TestAccountAPI(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	e.subscribe(t, "user_a", "active", "pro")
	e.grant(t, "user_a", 40, "g-a")
	a := e.token(t, "user_a")
	long := strings.Repeat("x", 101)
	e.runAccount(t, []accountCase{
		{"me", http.MethodGet, mePath, a, "", http.StatusOK, "", `"tier":"pro"`},
		{"me shows subscription and balance", http.MethodGet, mePath, a, "", http.StatusOK, "", `"credit_balance":40`},
		{"patch", http.MethodPatch, mePath, a, `{"display_name":" Ada ","locale":"pt-BR"}`, http.StatusOK, "", `"display_name":"Ada"`},
		{"patch without change", http.MethodPatch, mePath, a, `{"locale":"pt-BR"}`, http.StatusOK, "", `"locale":"pt-BR"`},
		{"patch nothing", http.MethodPatch, mePath, a, `{}`, http.StatusOK, "", `"display_name":"Ada"`},
		{"patch email", http.MethodPatch, mePath, a, `{"email":"x@evil.test"}`, http.StatusUnprocessableEntity, "validation_failed", "email"},
		{"patch tier", http.MethodPatch, mePath, a, `{"current_tier":"team","locale":"en"}`, http.StatusUnprocessableEntity, "validation_failed", "current_tier"},
		{"patch credits", http.MethodPatch, mePath, a, `{"credits":1000000}`, http.StatusUnprocessableEntity, "validation_failed", "credits"},
		{"patch unknown", http.MethodPatch, mePath, a, `{"is_admin":true}`, http.StatusUnprocessableEntity, "validation_failed", "is_admin"},
		{"patch bad locale", http.MethodPatch, mePath, a, `{"locale":"en_US; drop"}`, http.StatusUnprocessableEntity, "validation_failed", "locale"},
		{"patch long name", http.MethodPatch, mePath, a, `{"display_name":"` + long + `"}`, http.StatusUnprocessableEntity, "validation_failed", "display_name"},
		{"patch name not a string", http.MethodPatch, mePath, a, `{"display_name":5}`, http.StatusUnprocessableEntity, "validation_failed", "display_name"},
		{"patch malformed", http.MethodPatch, mePath, a, `{"locale":`, http.StatusBadRequest, "bad_request", ""},
		{"consent missing", http.MethodPost, consentPath, a, `{}`, http.StatusUnprocessableEntity, "validation_failed", "marketing"},
		{"consent on", http.MethodPost, consentPath, a, `{"marketing":true}`, http.StatusOK, "", `"source":"api"`},
		{"consent on again", http.MethodPost, consentPath, a, `{"marketing":true}`, http.StatusOK, "", `"marketing":true`},
		{"consent off", http.MethodPost, consentPath, a, `{"marketing":false}`, http.StatusOK, "", `"marketing":false`},
		{"export", http.MethodGet, exportPath, a, "", http.StatusOK, "", `"id":"sub_user_a"`},
		{"me after changes", http.MethodGet, mePath, a, "", http.StatusOK, "", `"locale":"pt-BR"`},
	})
	require.Equal(t, []string{`{"fields_changed": ["display_name", "locale"]}`}, e.accountAudits(t, account.ActionUpdated),
		"one row, names only, and none for the no-op patches")
	require.Equal(t, []string{`{"marketing": true}`, `{"marketing": false}`}, e.accountAudits(t, account.ActionConsentUpdated))
	require.Len(t, e.accountAudits(t, account.ActionExported), 1)
	var tier string
	require.NoError(t, e.db.Gorm.Raw(`SELECT current_tier FROM users WHERE clerk_user_id = 'user_a'`).Scan(&tier).Error)
	require.Equal(t, "pro", tier)
}

func TestDeleteThenRestoreBySigningInAgain(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	tok := e.token(t, "user_d")
	rec := e.call(t, http.MethodDelete, mePath, tok, "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var del struct {
		DeletedAt       time.Time `json:"deleted_at"`
		HardDeleteAfter time.Time `json:"hard_delete_after"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &del))
	require.Equal(t, 30*24*time.Hour, del.HardDeleteAfter.Sub(del.DeletedAt), "ACCOUNT_DELETION_GRACE defaults to 30 days")

	// The session that deleted the account (it carries no auth_time) and one signed in before the deletion.
	stale := e.accountSignedInAt(t, "user_d", del.DeletedAt.Add(-time.Hour))
	for _, tok := range []string{tok, stale} {
		for _, ep := range accountEndpoints {
			e.runAccount(t, []accountCase{{"deleted " + ep.method + " " + ep.path, ep.method, ep.path, tok, ep.body, http.StatusGone, "account_deleted", ""}})
		}
	}
	require.Len(t, e.accountAudits(t, account.ActionDeleted), 1)

	// auth_time has second precision: a second later is after deleted_at whatever its microseconds.
	fresh := e.accountSignedInAt(t, "user_d", time.Now().Add(time.Second))
	e.runAccount(t, []accountCase{
		{"restored", http.MethodGet, mePath, fresh, "", http.StatusOK, "", `"tier":"free"`},
		{"restored, next request", http.MethodGet, mePath, fresh, "", http.StatusOK, "", ""},
		{"old session works again", http.MethodGet, mePath, tok, "", http.StatusOK, "", ""},
	})
	require.Len(t, e.accountAudits(t, account.ActionRestored), 1)
}

func TestExportHoldsOnlyTheCallersData(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	for _, id := range []string{"user_a", "user_b"} {
		e.subscribe(t, id, "active", "pro")
		e.grant(t, id, 10, "grant-"+id)
		e.runAccount(t, []accountCase{{"consent " + id, http.MethodPost, consentPath, e.token(t, id), `{"marketing":true}`, http.StatusOK, "", ""}})
	}
	rec := e.call(t, http.MethodGet, exportPath, e.token(t, "user_a"), "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var out struct {
		User               map[string]any   `json:"user"`
		Subscriptions      []map[string]any `json:"subscriptions"`
		CreditTransactions []map[string]any `json:"credit_transactions"`
		AuditLogs          []map[string]any `json:"audit_logs"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	require.Equal(t, "user_a", out.User["clerk_user_id"])
	require.Len(t, out.Subscriptions, 1)
	require.Len(t, out.CreditTransactions, 1)
	require.Len(t, out.AuditLogs, 1, "the consent change; the export's own row is written after the read")

	require.NotContains(t, rec.Body.String(), "user_b")
	var others []string
	require.NoError(t, e.db.Gorm.Raw(`SELECT t.id::text FROM users u, LATERAL (
		SELECT id FROM subscriptions WHERE user_id = u.id UNION ALL SELECT id FROM credit_transactions WHERE user_id = u.id
		UNION ALL SELECT id FROM audit_logs WHERE user_id = u.id UNION ALL SELECT u.id) t WHERE u.clerk_user_id = 'user_b'`).Scan(&others).Error)
	require.Len(t, others, 4)
	for _, id := range others {
		require.NotContains(t, rec.Body.String(), id)
	}
}
