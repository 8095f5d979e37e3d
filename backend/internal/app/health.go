package app

import (
	"context"
	"errors"

	"github.com/fabrica-saas/fabrica/backend/internal/httpapi"
)

// readinessChecks are what /health/ready and /status report (httpapi caches each result for a few
// seconds). They run on the probe pool, never the API's. Their messages are shown to anonymous callers:
// the detail goes to the log only.
func (a *App) readinessChecks() []httpapi.Check {
	return []httpapi.Check{
		{Name: "database", Run: func(ctx context.Context) error {
			if err := a.probe.PingContext(ctx); err != nil {
				a.log.WarnContext(ctx, "readiness: database", "error", err.Error())
				return errors.New("database unreachable")
			}
			return nil
		}},
		{Name: "schema", Run: func(ctx context.Context) error {
			pending, err := a.probeSchema.Pending(ctx)
			if err != nil {
				a.log.WarnContext(ctx, "readiness: schema", "error", err.Error())
				return errors.New("schema version unknown")
			}
			if pending != "" {
				return errors.New(pending + ": run fabrica migrate up")
			}
			return nil
		}},
	}
}
