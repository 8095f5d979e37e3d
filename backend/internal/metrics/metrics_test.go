package metrics

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
)

type countingLedger struct{ calls atomic.Int64 }

func (l *countingLedger) Recent(context.Context, time.Duration) ([]credits.KindTotal, error) {
	l.calls.Add(1)
	return []credits.KindTotal{{Kind: "grant", Count: 3, Sum: 75}}, nil
}

// The hole "a ledger aggregate per /metrics scrape" (docs/security.md): scraping /metrics does not run the ledger
// aggregate on every request; the gauges are reused for LedgerCacheFor.
func TestScrapesShareOneLedgerQueryPerInterval(t *testing.T) {
	t.Parallel()
	ledger := &countingLedger{}
	clock := time.Now()
	reg := prometheus.NewRegistry()
	reg.MustRegister(&ledgerCollector{ledger: ledger, log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		now: func() time.Time { return clock }})
	h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	scrape := func() string {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		return rec.Body.String()
	}
	for range 50 {
		require.True(t, strings.Contains(scrape(), `fabrica_ledger_credits_24h{kind="grant"} 75`))
	}
	require.EqualValues(t, 1, ledger.calls.Load(), "fifty scrapes, one query")
	clock = clock.Add(LedgerCacheFor)
	scrape()
	require.EqualValues(t, 2, ledger.calls.Load(), "refreshed after the interval")
}
