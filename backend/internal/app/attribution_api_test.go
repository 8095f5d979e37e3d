package app

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

const signupMetadataPath = "/api/v1/account/me/signup-metadata"

func TestSignupMetadataFirstTouchWins(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	a, b := e.token(t, "user_a"), e.token(t, "user_b")
	first := `{"utm_source":"newsletter","utm_medium":"email","utm_campaign":"spring","utm_term":"billing",
		"utm_content":"cta","referrer":"https://news.example/p?id=1","landing_page":"https://app.example.com/pricing"}`
	e.runAccount(t, []accountCase{
		{"no session", http.MethodPost, signupMetadataPath, "", first, http.StatusUnauthorized, "unauthorized", ""},
		{"too long", http.MethodPost, signupMetadataPath, a, `{"utm_source":"` + strings.Repeat("s", 256) + `","referrer":"` +
			strings.Repeat("r", 2049) + `"}`, http.StatusBadRequest, "bad_request", "invalid signup metadata: referrer, utm_source"},
		{"unknown field", http.MethodPost, signupMetadataPath, a, `{"gclid":"x"}`, http.StatusBadRequest, "bad_request", ": gclid"},
		{"not a string", http.MethodPost, signupMetadataPath, a, `{"utm_source":7}`, http.StatusBadRequest, "bad_request", ": utm_source"},
		{"control character", http.MethodPost, signupMetadataPath, a, `{"landing_page":"/a\nb"}`, http.StatusBadRequest, "bad_request", ": landing_page"},
		{"malformed", http.MethodPost, signupMetadataPath, a, `{`, http.StatusBadRequest, "bad_request", "malformed JSON"},
		{"at the limit", http.MethodPost, signupMetadataPath, b, `{"utm_source":"` + strings.Repeat("é", 255) + `"}`, http.StatusOK, "", `{"recorded":true}`},
		{"first", http.MethodPost, signupMetadataPath, a, first, http.StatusOK, "", `{"recorded":true}`},
		{"second", http.MethodPost, signupMetadataPath, a, `{"utm_source":"ads"}`, http.StatusOK, "", `{"recorded":false}`},
		{"export shows it", http.MethodGet, exportPath, a, "", http.StatusOK, "",
			`"signup_metadata":{"utm_source":"newsletter","utm_medium":"email","utm_campaign":"spring","utm_term":"billing","utm_content":"cta","referrer":"https://news.example/p?id=1","landing_page":"https://app.example.com/pricing","recorded_at":"`},
	})
	require.Len(t, e.accountAudits(t, account.ActionSignupMetadata), 2, "user_a and user_b, once each")
	require.Contains(t, e.accountAudits(t, account.ActionSignupMetadata)[1], `"fields": ["landing_page", "referrer", "utm_campaign", "utm_content", "utm_medium", "utm_source", "utm_term"]`)
	require.NotContains(t, strings.Join(e.accountAudits(t, account.ActionSignupMetadata), " "), "newsletter", "names, never values")

	// A direct visit (no field at all) is a first touch too.
	c := e.token(t, "user_c")
	e.runAccount(t, []accountCase{
		{"direct", http.MethodPost, signupMetadataPath, c, `{}`, http.StatusOK, "", `{"recorded":true}`},
		{"then utm", http.MethodPost, signupMetadataPath, c, `{"utm_source":"ads"}`, http.StatusOK, "", `{"recorded":false}`},
	})
}

// Ten first writes at once, real commits: exactly one records, and the row holds its values.
func TestSignupMetadataConcurrentFirstWritesRecordOnce(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	tok := e.token(t, "user_race")
	e.runAccount(t, []accountCase{{"create the user", http.MethodGet, mePath, tok, "", http.StatusOK, "", ""}})
	const n = 10
	start := make(chan struct{})
	bodies := make(chan string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			rec := e.call(t, http.MethodPost, signupMetadataPath, tok, `{"utm_source":"src`+string(rune('0'+i))+`"}`)
			bodies <- rec.Body.String()
		})
	}
	close(start)
	wg.Wait()
	close(bodies)
	recorded := 0
	for b := range bodies {
		if strings.Contains(b, `"recorded":true`) {
			recorded++
		} else {
			require.JSONEq(t, `{"recorded":false}`, b)
		}
	}
	require.Equal(t, 1, recorded)
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = ?`, account.ActionSignupMetadata))
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM users WHERE signup_utm_source LIKE 'src_' AND signup_metadata_at IS NOT NULL`))
}

// The admin's user view shows where a user came from and whether they signed up with a disposable address
// (a Clerk user.created with a mailinator.com address: no signup credits).
func TestAdminUserViewShowsAttributionAndDisposableFlag(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	h, body := clerkEvent(t, "msg_tmp", "user.created", "user_tmp", "someone@mailinator.com", 1_700_000_000_000)
	require.Equal(t, http.StatusOK, deliver(e.app.Echo(), webhook.ProviderClerk, h, body).Code)
	tok := e.token(t, "user_tmp")
	e.runAccount(t, []accountCase{{"record", http.MethodPost, signupMetadataPath, tok, `{"utm_source":"reddit"}`, http.StatusOK, "", `{"recorded":true}`}})
	var id string
	require.NoError(t, e.db.Gorm.Raw(`SELECT id FROM users WHERE clerk_user_id = 'user_tmp'`).Scan(&id).Error)
	rec := e.call(t, http.MethodGet, adminAPI+"/users/"+id, e.adminToken(t), "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), `"disposable_email":true`)
	require.Contains(t, rec.Body.String(), `"signup_metadata":{"utm_source":"reddit","utm_medium":null`)
	require.Contains(t, rec.Body.String(), `"balance":0`, "no signup credits")
}
