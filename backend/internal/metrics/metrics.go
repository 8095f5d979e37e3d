// Package metrics exposes the service's Prometheus metrics: webhook deliveries and their latency, job
// outcomes, session key (JWKS) fetch failures, recent ledger movements and the database pool. Counters are fed by small observer hooks in
// the webhook pipeline and the job runner; database-backed gauges are read at scrape time.
package metrics

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
)

// Metrics owns a private registry (never the global one, so tests and several apps in one process do
// not collide).
type Metrics struct {
	reg        *prometheus.Registry
	deliveries *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	jobs       *prometheus.CounterVec
	jwksFails  prometheus.Counter
	jwksStale  prometheus.Gauge
}

// Ledger is where the ledger gauges come from (*credits.Service).
type Ledger interface {
	Recent(ctx context.Context, window time.Duration) ([]credits.KindTotal, error)
}

// New registers every metric. sqlDB feeds the pool statistics, ledger the ledger gauges.
func New(sqlDB *sql.DB, ledger Ledger, log *slog.Logger) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fabrica_webhook_deliveries_total",
			Help: "Webhook deliveries by provider, event type and outcome (processed, skipped, ignored, failed, unauthorized, error).",
		}, []string{"provider", "event_type", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "fabrica_webhook_pipeline_seconds",
			Help:    "Time from a verified delivery to its committed outcome.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"provider"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fabrica_jobs_total",
			Help: "River job outcomes by job kind (completed, failed, cancelled, snoozed).",
		}, []string{"kind", "outcome"}),
		jwksFails: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "fabrica_session_jwks_failures_total",
			Help: "Failed fetches of Clerk's JWKS (session signing keys).",
		}),
		jwksStale: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "fabrica_session_jwks_stale",
			Help: "1 while sessions are verified with the last fetched keys because Clerk's JWKS cannot be fetched.",
		}),
	}
	m.reg.MustRegister(m.deliveries, m.latency, m.jobs, m.jwksFails, m.jwksStale,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewDBStatsCollector(sqlDB, "fabrica"),
		&ledgerCollector{ledger: ledger, log: log, now: time.Now},
	)
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Delivery records one webhook delivery's outcome (webhook.Observer).
func (m *Metrics) Delivery(provider, eventType, outcome string, took time.Duration) {
	m.deliveries.WithLabelValues(provider, eventType, outcome).Inc()
	m.latency.WithLabelValues(provider).Observe(took.Seconds())
}

// JobFinished records one job attempt's outcome (jobs.Observer).
func (m *Metrics) JobFinished(kind, outcome string) {
	m.jobs.WithLabelValues(kind, outcome).Inc()
}

// JWKSFetchFailed records a failed JWKS fetch and whether stale keys are being served (session.Observer).
func (m *Metrics) JWKSFetchFailed(servingStale bool) {
	m.jwksFails.Inc()
	if servingStale {
		m.jwksStale.Set(1)
	} else {
		// Either the keys are still fresh or they are past the stale window and nothing verifies any more;
		// the failure counter tells the two apart from a healthy instance.
		m.jwksStale.Set(0)
	}
}

// JWKSFetched records a successful JWKS fetch: the keys are fresh again (session.Observer).
func (m *Metrics) JWKSFetched() { m.jwksStale.Set(0) }

// LedgerCacheFor is how long the ledger gauges are reused between scrapes. /metrics is unauthenticated in
// development and scraped every 15-60 s by Prometheus; an aggregate over a day of ledger rows on every
// request would let anyone who can reach it load the database at will.
const LedgerCacheFor = 30 * time.Second

// ledgerCollector reports the last 24h of ledger movements from the database, so every instance reports
// the same committed truth (an in-process counter would count rolled-back grants). The totals are cached
// for LedgerCacheFor: at most one aggregate query per interval, however often /metrics is requested.
type ledgerCollector struct {
	ledger Ledger
	log    *slog.Logger
	now    func() time.Time

	mu      sync.Mutex
	totals  []credits.KindTotal
	fetched time.Time
}

var (
	ledgerMovements = prometheus.NewDesc("fabrica_ledger_movements_24h", "Ledger movements in the last 24 hours by kind.", []string{"kind"}, nil)
	ledgerCredits   = prometheus.NewDesc("fabrica_ledger_credits_24h", "Sum of ledger deltas in the last 24 hours by kind.", []string{"kind"}, nil)
)

func (c *ledgerCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- ledgerMovements
	ch <- ledgerCredits
}

func (c *ledgerCollector) Collect(ch chan<- prometheus.Metric) {
	for _, t := range c.current() {
		ch <- prometheus.MustNewConstMetric(ledgerMovements, prometheus.GaugeValue, float64(t.Count), t.Kind)
		ch <- prometheus.MustNewConstMetric(ledgerCredits, prometheus.GaugeValue, float64(t.Sum), t.Kind)
	}
}

// current returns the cached totals, refreshing them when older than LedgerCacheFor. The lock makes
// concurrent scrapes share one query; a failed query keeps the last totals (and is logged).
func (c *ledgerCollector) current() []credits.KindTotal {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.fetched.IsZero() && c.now().Sub(c.fetched) < LedgerCacheFor {
		return c.totals
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	totals, err := c.ledger.Recent(ctx, 24*time.Hour)
	if err != nil {
		c.log.Warn("metrics: ledger query", "error", err.Error())
		return c.totals
	}
	c.totals, c.fetched = totals, c.now()
	return c.totals
}
