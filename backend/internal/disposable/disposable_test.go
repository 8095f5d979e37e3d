package disposable_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
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

// domainsFile is a list of n made-up domains plus extra, in the upstream .conf format.
func domainsFile(n int, extra ...string) string {
	var b strings.Builder
	b.WriteString("# a comment\n\n")
	for i := range n {
		fmt.Fprintf(&b, "throwaway%d.example\n", i)
	}
	for _, e := range extra {
		b.WriteString(e + "\n")
	}
	return b.String()
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

// A refresh replaces the embedded list for every reader of the table; a failed one keeps what was in use.
func TestRefreshReplacesTheListAndKeepsItOnFailure(t *testing.T) {
	t.Parallel()
	srv := &server{status: http.StatusOK, body: domainsFile(150, "Fresh-Throwaway.test", "not a domain")}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	b, db := newList(t, disposable.Config{URL: ts.URL, MaxBytes: 64 << 10})
	ctx := context.Background()

	_, ok := check(t, b, db, "a@fresh-throwaway.test")
	require.False(t, ok, "not on the embedded list")
	n, err := b.Refresh(ctx)
	require.NoError(t, err)
	require.Equal(t, 151, n, "the odd line is dropped, the rest stored")
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
		"http error":   {http.StatusBadGateway, domainsFile(150)},
		"too few":      {http.StatusOK, domainsFile(5)},
		"bad json":     {http.StatusOK, `["a.example",`},
		"too large":    {http.StatusOK, domainsFile(5000)},
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
	srv.set(http.StatusOK, `["json-throwaway.test", "x.example", "X.example", "pad.example"]`)
	b2, err := disposable.New(db, disposable.Config{URL: ts.URL, MinDomains: 2}, nil)
	require.NoError(t, err)
	n, err = b2.Refresh(ctx)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	_, ok = check(t, b, db, "a@json-throwaway.test")
	require.True(t, ok)
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
	ts := httptest.NewServer(&server{status: http.StatusOK, body: domainsFile(300)})
	defer ts.Close()
	b, db := newList(t, disposable.Config{URL: ts.URL})
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
	require.Equal(t, 300, n)
}
