package disposable_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/disposable"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func newList(t *testing.T, cfg disposable.Config) (*disposable.Blocklist, *gorm.DB) {
	t.Helper()
	d := pgtest.New(t)
	b, err := disposable.New(d.Gorm, cfg, nil)
	require.NoError(t, err)
	return b, d.Gorm
}

func check(t *testing.T, b *disposable.Blocklist, db *gorm.DB, addr string) (string, bool) {
	t.Helper()
	entry, ok, err := b.DisposableTx(context.Background(), db, addr)
	require.NoError(t, err)
	return entry, ok
}

func TestEmbeddedListMatchesDomainsAndParents(t *testing.T) {
	t.Parallel()
	b, db := newList(t, disposable.Config{})
	require.Equal(t, 8883, b.EmbeddedSize())
	for _, tc := range []struct {
		addr, entry string
		want        bool
	}{
		{"a@mailinator.com", "mailinator.com", true},
		{"a@MAILINATOR.COM.", "mailinator.com", true},
		{"a@x.sub.mailinator.com", "mailinator.com", true},
		{"a@gmail.com", "", false},
		{"a@fabricamailinator.com", "", false}, // a suffix that is not a parent domain
		{"a@com", "", false},
		{"no-at-sign", "", false},
		{"", "", false},
	} {
		entry, ok := check(t, b, db, tc.addr)
		require.Equal(t, tc.want, ok, tc.addr)
		require.Equal(t, tc.entry, entry, tc.addr)
	}
}

// embeddedDomains is the list embedded in the binary, the one in use before any refresh.
func embeddedDomains(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("data", "disposable_domains.json"))
	require.NoError(t, err)
	var list []string
	require.NoError(t, json.Unmarshal(raw, &list))
	return list
}

// domainsFile is a list in the upstream .conf format: a comment, a blank line, one domain a line.
func domainsFile(domains ...string) string {
	var b strings.Builder
	b.WriteString("# a comment\n\n")
	for _, d := range domains {
		b.WriteString(d + "\n")
	}
	return b.String()
}

// without is list less the named domains.
func without(list []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(d string) bool { return slices.Contains(drop, d) })
}

type server struct {
	mu     sync.Mutex
	status int
	body   string
}

func (s *server) set(status int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status, s.body = status, body
}

func (s *server) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.WriteHeader(s.status)
	_, _ = w.Write([]byte(s.body))
}

// httpsList serves srv over TLS; cfg gets its URL and a client that trusts its certificate.
func httpsList(t *testing.T, srv http.Handler, cfg disposable.Config) disposable.Config {
	t.Helper()
	ts := httptest.NewTLSServer(srv)
	t.Cleanup(ts.Close)
	cfg.URL, cfg.HTTPClient = ts.URL, ts.Client()
	return cfg
}

// A refresh replaces the embedded list for every reader of the table; a failed one keeps what was in use.
func TestRefreshReplacesTheListAndKeepsItOnFailure(t *testing.T) {
	t.Parallel()
	base := embeddedDomains(t)
	srv := &server{status: http.StatusOK, body: domainsFile(append(without(base, "mailinator.com"), "Fresh-Throwaway.test", "not a domain")...)}
	b, db := newList(t, httpsList(t, srv, disposable.Config{MaxBytes: 1 << 20}))
	ctx := context.Background()

	_, ok := check(t, b, db, "a@fresh-throwaway.test")
	require.False(t, ok, "not on the embedded list")
	n, err := b.Refresh(ctx)
	require.NoError(t, err)
	require.Equal(t, len(base), n, "one dropped, one added, the odd line dropped")
	_, ok = check(t, b, db, "a@x.fresh-throwaway.test")
	require.True(t, ok)
	_, ok = check(t, b, db, "a@mailinator.com")
	require.False(t, ok, "the stored list replaces the embedded one")

	// Another instance (another Blocklist on the same database) sees the same list.
	other, err := disposable.New(db, disposable.Config{}, nil)
	require.NoError(t, err)
	_, ok = check(t, other, db, "a@fresh-throwaway.test")
	require.True(t, ok)

	for name, resp := range map[string]struct {
		status int
		body   string
	}{
		"http error":   {http.StatusBadGateway, domainsFile(base...)},
		"too few":      {http.StatusOK, domainsFile(base[:5]...)},
		"bad json":     {http.StatusOK, `["a.example",`},
		"too large":    {http.StatusOK, domainsFile(base...) + strings.Repeat("# padding\n", 1<<17)},
		"empty":        {http.StatusOK, ""},
		"json objects": {http.StatusOK, `[{"domain":"a.example"}]`},
	} {
		srv.set(resp.status, resp.body)
		_, err := b.Refresh(ctx)
		require.ErrorIs(t, err, disposable.ErrBadList, name)
		_, ok = check(t, b, db, "a@fresh-throwaway.test")
		require.True(t, ok, "%s: the last good list stays", name)
	}

	// A JSON array, the npm package's format, works too (duplicates stored once).
	list := append(without(base, "mailinator.com"), "fresh-throwaway.test", "json-throwaway.test", "x.example", "X.example")
	raw, err := json.Marshal(list)
	require.NoError(t, err)
	srv.set(http.StatusOK, string(raw))
	n, err = b.Refresh(ctx)
	require.NoError(t, err)
	require.Equal(t, len(base)+2, n)
	_, ok = check(t, b, db, "a@json-throwaway.test")
	require.True(t, ok)
}

// The list screens every sign-up, so only HTTPS brings it: a plain-HTTP URL is refused, and so is a
// redirect from HTTPS down to plain HTTP (anyone on that path could rewrite the list). HTTPS to HTTPS is
// followed.
func TestRefreshFetchesOverHTTPSOnly(t *testing.T) {
	t.Parallel()
	list := domainsFile(append(embeddedDomains(t), "fresh-throwaway.test")...)
	plain := httptest.NewServer(&server{status: http.StatusOK, body: list})
	t.Cleanup(plain.Close)
	secure := httptest.NewTLSServer(&server{status: http.StatusOK, body: list})
	t.Cleanup(secure.Close)
	redirect := func(to string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusFound) })
	}
	d := pgtest.New(t)
	ctx := context.Background()
	for name, cfg := range map[string]disposable.Config{
		"plain http":                 {URL: plain.URL},
		"https redirecting to http":  httpsList(t, redirect(plain.URL+"/list.txt"), disposable.Config{}),
		"https redirecting for ever": httpsList(t, http.RedirectHandler("/again", http.StatusFound), disposable.Config{}),
	} {
		b, err := disposable.New(d.Gorm, cfg, nil)
		require.NoError(t, err)
		_, err = b.Refresh(ctx)
		require.ErrorIs(t, err, disposable.ErrBadList, name)
		_, ok := check(t, b, d.Gorm, "a@fresh-throwaway.test")
		require.False(t, ok, "%s: nothing stored", name)
	}

	cfg := httpsList(t, redirect(secure.URL+"/list.txt"), disposable.Config{})
	cfg.HTTPClient = secure.Client() // trusts both test servers' certificate
	b, err := disposable.New(d.Gorm, cfg, nil)
	require.NoError(t, err)
	_, err = b.Refresh(ctx)
	require.NoError(t, err, "an https to https redirect is followed")
	_, ok := check(t, b, d.Gorm, "a@fresh-throwaway.test")
	require.True(t, ok)
}

// A list that would block a major mailbox provider, or a parent domain of one, is broken or tampered with:
// refused, the list in use stays. So is one that differs from the list in use by more than half (a file
// that lost half its lines, a URL now serving something else); a day's usual churn passes.
func TestRefreshRefusesAnImplausibleList(t *testing.T) {
	t.Parallel()
	base := embeddedDomains(t)
	srv := &server{}
	b, db := newList(t, httpsList(t, srv, disposable.Config{}))
	ctx := context.Background()
	many := make([]string, len(base)/2+1)
	for i := range many {
		many[i] = fmt.Sprintf("throwaway%d.example", i)
	}
	for name, list := range map[string][]string{
		"gmail":                      append(slices.Clone(base), "gmail.com"),
		"outlook":                    append(slices.Clone(base), "Outlook.com"),
		"a parent of a provider":     append(slices.Clone(base), "co.uk"),
		"half of the list gone":      base[:len(base)/2-1],
		"more than half of it added": append(slices.Clone(base), many...),
		"another list altogether":    many,
	} {
		srv.set(http.StatusOK, domainsFile(list...))
		_, err := b.Refresh(ctx)
		require.ErrorIs(t, err, disposable.ErrBadList, name)
		_, ok := check(t, b, db, "a@mailinator.com")
		require.True(t, ok, "%s: the embedded list stays in use", name)
		_, ok = check(t, b, db, "a@gmail.com")
		require.False(t, ok, name)
	}

	srv.set(http.StatusOK, domainsFile(append(without(base, base[:100]...), many[:100]...)...))
	_, err := b.Refresh(ctx)
	require.NoError(t, err, "a day's churn: 100 in, 100 out")
	_, ok := check(t, b, db, "a@throwaway7.example")
	require.True(t, ok)
	// The next refresh is judged against what is stored now.
	srv.set(http.StatusOK, domainsFile(base[:len(base)/3]...))
	_, err = b.Refresh(ctx)
	require.ErrorIs(t, err, disposable.ErrBadList)
}

func TestRefreshWithoutURLDoesNothing(t *testing.T) {
	t.Parallel()
	b, db := newList(t, disposable.Config{})
	n, err := b.Refresh(context.Background())
	require.NoError(t, err)
	require.Zero(t, n)
	_, ok := check(t, b, db, "a@mailinator.com")
	require.True(t, ok)
}

// Refreshes running at once (a manual run beside the schedule, two instances) take turns: each succeeds and
// the table holds one whole list.
func TestConcurrentRefreshesTakeTurns(t *testing.T) {
	t.Parallel()
	list := embeddedDomains(t)
	b, db := newList(t, httpsList(t, &server{status: http.StatusOK, body: domainsFile(list...)}, disposable.Config{}))
	start := make(chan struct{})
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			<-start
			_, err := b.Refresh(context.Background())
			errs <- err
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	var n int
	require.NoError(t, db.Raw(`SELECT count(*) FROM disposable_domains`).Scan(&n).Error)
	require.Equal(t, len(list), n)
}
