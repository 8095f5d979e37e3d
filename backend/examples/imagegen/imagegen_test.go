package imagegen_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/apispec"
	"github.com/fabrica-saas/fabrica/backend/internal/app"
	"github.com/fabrica-saas/fabrica/backend/internal/config"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const tiers = `tiers:
  - name: free
    features:
      generations: {credits: 5}
  - name: pro
    paddle_price_ids: [pri_pro]
`

// server is the whole App on a private database, with a session for one user holding credits.
type server struct {
	app   *app.App
	db    *pgtest.DB
	token string
	user  uuid.UUID
}

func newServer(t *testing.T, balance int) *server {
	t.Helper()
	d := pgtest.New(t)
	issuer := sessiontest.NewIssuer(t)
	path := filepath.Join(t.TempDir(), "tiers.yaml")
	require.NoError(t, os.WriteFile(path, []byte(tiers), 0o600))
	env := map[string]string{"APP_ENV": config.EnvTest, "DATABASE_URL": d.URL, "CLERK_JWT_KEY": issuer.PublicKeyPEM(), "TIERS_FILE": path}
	cfg, err := config.LoadForTest(func(k string) string { return env[k] })
	require.NoError(t, err)
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), app.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close() })
	s := &server{app: a, db: d, token: issuer.Token(t, sessiontest.TokenClaims{UserID: "user_gen", SessionID: "sess_gen",
		Email: "gen@example.com", EmailVerified: true})}
	require.Equal(t, http.StatusOK, s.post(t, "/api/v1/account/me", "", "").Code) // creates the user
	require.NoError(t, d.Gorm.Raw(`SELECT id FROM users WHERE clerk_user_id = 'user_gen'`).Row().Scan(&s.user))
	s.grant(t, balance, "seed")
	return s
}

func (s *server) grant(t *testing.T, amount int, key string) {
	_, _, err := credits.New(s.db.Gorm, credits.Config{}).Grant(context.Background(),
		credits.GrantSpec{UserID: s.user, Amount: amount, Key: key, Reason: "test"})
	require.NoError(t, err)
}

// post sends a request (GET when body is empty and key too) and checks the answer against
// docs/openapi.yaml, as every API test does.
func (s *server) post(t *testing.T, path, key, body string) *httptest.ResponseRecorder {
	method := http.MethodPost
	if body == "" && key == "" {
		method = http.MethodGet
	}
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+s.token)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	rec := httptest.NewRecorder()
	s.app.Echo().ServeHTTP(rec, req)
	require.NoError(t, apispec.Check(req, path, rec.Code, rec.Header(), rec.Body.Bytes()))
	return rec
}

func (s *server) count(t *testing.T, query string) int {
	var n int
	require.NoError(t, s.db.Gorm.Raw(query).Scan(&n).Error)
	return n
}

// Ten identical requests at once: one charge, one row, and ten identical answers (nine of them replays).
func TestTenIdenticalRequestsChargeOnce(t *testing.T) {
	t.Parallel()
	s := newServer(t, 25)
	const n = 10
	recs := make([]*httptest.ResponseRecorder, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			recs[i] = s.post(t, "/api/v1/generations", "gen-req-1", `{"prompt":"a lighthouse at dusk"}`)
		})
	}
	close(start)
	wg.Wait()
	replays := 0
	for _, r := range recs {
		require.Equal(t, http.StatusCreated, r.Code, r.Body.String())
		require.JSONEq(t, recs[0].Body.String(), r.Body.String(), "every copy answers the first answer")
		if r.Header().Get("Idempotent-Replayed") == "true" {
			replays++
		}
	}
	require.Equal(t, n-1, replays)
	require.Contains(t, recs[0].Body.String(), `"charged":5,"balance":20`)
	require.Equal(t, 1, s.count(t, `SELECT count(*) FROM example_generations`))
	require.Equal(t, 1, s.count(t, `SELECT count(*) FROM credit_transactions WHERE kind = 'charge'`))
	require.Equal(t, 1, s.count(t, `SELECT count(*) FROM usage_events WHERE feature = 'generations'`))
}

func TestTheIdempotencyKeyConvention(t *testing.T) {
	t.Parallel()
	s := newServer(t, 7)
	body := `{"prompt":"a fox"}`
	require.Equal(t, http.StatusBadRequest, s.post(t, "/api/v1/generations", "", body).Code, "the key is required")
	require.Equal(t, http.StatusUnprocessableEntity, s.post(t, "/api/v1/generations", "k1", `{"prompt":""}`).Code)
	require.Equal(t, http.StatusCreated, s.post(t, "/api/v1/generations", "k1", body).Code, "a refusal kept no key")
	rec := s.post(t, "/api/v1/generations", "k1", `{"prompt":"a wolf"}`)
	require.Equal(t, http.StatusConflict, rec.Code)
	require.Contains(t, rec.Body.String(), "idempotency_key_reused")

	// 2 credits left: refused, nothing written; after a top-up the same key goes through.
	rec = s.post(t, "/api/v1/generations", "k2", body)
	require.Equal(t, http.StatusPaymentRequired, rec.Code, rec.Body.String())
	require.Equal(t, 1, s.count(t, `SELECT count(*) FROM example_generations`))
	s.grant(t, 10, "top-up")
	rec = s.post(t, "/api/v1/generations", "k2", body)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), `"charged":5,"balance":7`)
	require.Equal(t, 2, s.count(t, `SELECT count(*) FROM example_generations`))
}

// The example's table is registered for the user's export (its userdata entry): the generation shows
// under example_generations, with the prompt.
func TestGenerationsAreInTheUsersExport(t *testing.T) {
	t.Parallel()
	s := newServer(t, 10)
	require.Equal(t, http.StatusCreated, s.post(t, "/api/v1/generations", "k1", `{"prompt":"a heron"}`).Code)
	rec := s.post(t, "/api/v1/account/me/export", "", "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var doc struct {
		Generations []struct{ Prompt string } `json:"example_generations"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
	require.Len(t, doc.Generations, 1)
	require.Equal(t, "a heron", doc.Generations[0].Prompt)
}
