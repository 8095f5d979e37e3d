package app

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// countingProxy relays Postgres connections to a test database and counts the statements its clients send
// on the wire (simple-protocol Query and extended-protocol Execute messages): what the server ran, whatever
// pool or driver sent it.
type countingProxy struct {
	URL        string // the test database's URL, through the proxy
	statements atomic.Int64
}

func newCountingProxy(t *testing.T, d *pgtest.DB) *countingProxy {
	t.Helper()
	pc, err := pgconn.ParseConfig(d.URL)
	require.NoError(t, err)
	network, addr := "tcp", net.JoinHostPort(pc.Host, strconv.Itoa(int(pc.Port)))
	if strings.HasPrefix(pc.Host, "/") {
		network, addr = "unix", filepath.Join(pc.Host, fmt.Sprintf(".s.PGSQL.%d", pc.Port))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })

	u, err := url.Parse(d.URL)
	require.NoError(t, err)
	q := u.Query()
	q.Del("host")
	q.Del("port")
	q.Set("sslmode", "disable") // the proxy relays bytes; it speaks no TLS
	u.Host, u.RawQuery = ln.Addr().String(), q.Encode()
	p := &countingProxy{URL: u.String()}
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial(network, addr)
			if err != nil {
				_ = client.Close()
				continue
			}
			go func() { _, _ = io.Copy(client, server); _ = client.Close() }()
			go func() { p.relay(client, server); _ = server.Close() }()
		}
	}()
	return p
}

// relay copies a client's messages to the server: the untyped start-up message first (again after an
// SSL or GSS encryption request, which the server refuses here), then typed messages, counting statements.
func (p *countingProxy) relay(client, server net.Conn) {
	const sslRequest, gssRequest = 80877103, 80877104
	for {
		var head [8]byte
		if _, err := io.ReadFull(client, head[:]); err != nil {
			return
		}
		rest := make([]byte, binary.BigEndian.Uint32(head[:4])-8)
		if _, err := io.ReadFull(client, rest); err != nil {
			return
		}
		if _, err := server.Write(append(head[:], rest...)); err != nil {
			return
		}
		if code := binary.BigEndian.Uint32(head[4:]); code != sslRequest && code != gssRequest {
			break
		}
	}
	for {
		var head [5]byte
		if _, err := io.ReadFull(client, head[:]); err != nil {
			return
		}
		if head[0] == 'Q' || head[0] == 'E' {
			p.statements.Add(1)
		}
		body := make([]byte, binary.BigEndian.Uint32(head[1:])-4)
		if _, err := io.ReadFull(client, body); err != nil {
			return
		}
		if _, err := server.Write(append(head[:], body...)); err != nil {
			return
		}
	}
}

// /health/ready and /status are public and unauthenticated. A burst of 200 at once, half each, costs the
// database what one request costs, one run of each check, not one run per request: counted on the wire to
// a real Postgres. One run is about nine statements: the ping (and database/sql's reset ping of a reused
// connection), goose's two version reads, River's validation (begin, three reads, commit).
func TestHealthBurstCostsAHandfulOfQueries(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	proxy := newCountingProxy(t, d)
	env := map[string]string{"DATABASE_URL": proxy.URL}

	one := appOn(t, d, env, Options{})
	before := proxy.statements.Load()
	require.Equal(t, http.StatusOK, get(one.Echo(), "/health/ready").Code)
	single := proxy.statements.Load() - before

	a := appOn(t, d, env, Options{}) // a fresh process: nothing cached
	before = proxy.statements.Load()
	start := make(chan struct{})
	var wg sync.WaitGroup
	codes := make(chan int, 200)
	for i := range 200 {
		path := "/status"
		if i%2 == 0 {
			path = "/health/ready"
		}
		wg.Go(func() {
			<-start
			codes <- get(a.Echo(), path).Code
		})
	}
	close(start)
	wg.Wait()
	close(codes)
	for code := range codes {
		require.Equal(t, http.StatusOK, code)
	}
	burst := proxy.statements.Load() - before
	t.Logf("one health request: %d statements; 200 at once: %d", single, burst)
	require.Positive(t, single, "the checks ran against the database")
	require.LessOrEqual(t, burst, single+1, "one run of each check, not one per request (+1: a reset ping)")
	require.LessOrEqual(t, burst, int64(10))
}

// The checks have a pool of their own: with every connection of the API's pool taken (a slow request
// holding them all, say), /health/ready still answers at once, and no number of health requests can take
// a connection the API needs.
func TestHealthChecksNeverTakeTheAPIsConnections(t *testing.T) {
	t.Parallel()
	a, _ := testApp(t, map[string]string{"DB_MAX_CONNS": "2"})
	sqlDB, err := a.db.DB()
	require.NoError(t, err)
	ctx := context.Background()
	for range 2 {
		conn, err := sqlDB.Conn(ctx)
		require.NoError(t, err)
		t.Cleanup(func() { _ = conn.Close() })
	}
	require.Equal(t, 2, sqlDB.Stats().InUse, "the API's pool is exhausted")

	began := time.Now()
	rec := get(a.Echo(), "/health/ready")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Less(t, time.Since(began), time.Second, "no wait for an API connection")
	require.Contains(t, get(a.Echo(), "/status").Body.String(), `"overall":"operational"`)
	require.Zero(t, sqlDB.Stats().WaitCount, "nothing queued for the API's connections")
}
