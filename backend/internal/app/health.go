package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/fabrica-saas/fabrica/backend/internal/httpapi"
)

// readinessChecks are what /health/ready and /status report. Their messages are shown to anonymous
// callers: the detail goes to the log only.
func (a *App) readinessChecks() []httpapi.Check {
	return []httpapi.Check{
		{Name: "database", Run: func(ctx context.Context) error {
			sqlDB, err := a.db.DB()
			if err == nil {
				err = sqlDB.PingContext(ctx)
			}
			if err != nil {
				a.log.WarnContext(ctx, "readiness: database", "error", err.Error())
				return errors.New("database unreachable")
			}
			return nil
		}},
		{Name: "schema", Run: func(ctx context.Context) error {
			current, latest, err := a.migrator.Versions(ctx)
			if err != nil {
				a.log.WarnContext(ctx, "readiness: schema", "error", err.Error())
				return errors.New("schema version unknown")
			}
			if current != latest {
				return fmt.Errorf("schema at version %d, this build expects %d: run fabrica migrate up", current, latest)
			}
			return nil
		}},
	}
}
