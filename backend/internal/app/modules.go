package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/broadcast"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/feedback"
	"github.com/fabrica-saas/fabrica/backend/internal/httpapi"
	"github.com/fabrica-saas/fabrica/backend/internal/idempotency"
	"github.com/fabrica-saas/fabrica/backend/internal/jobs"
	"github.com/fabrica-saas/fabrica/backend/internal/usage"
	"github.com/fabrica-saas/fabrica/backend/internal/userdata"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// userData collects every owner's tables of user data: the built-in owners', in the export document's
// order, then the modules'. TestEveryUserTableIsRegistered holds it to the migrated schema.
func (a *App) userData() (*userdata.Registry, error) {
	owners := [][]userdata.Table{account.UserData(), billing.UserData(), credits.UserData(), feedback.UserData(),
		audit.UserData(), webhook.UserData(), broadcast.UserData(), usage.UserData(), idempotency.UserData()}
	for _, m := range a.modules {
		owners = append(owners, m.UserData)
	}
	r, err := userdata.New(owners...)
	if err != nil {
		return nil, fmt.Errorf("modules: %w", err)
	}
	return r, nil
}

// UserData is the registry of user data the App was built with (the export's sections, the erasure's
// work), for tests and tools that inspect it.
func (a *App) UserData() []userdata.Table { return a.registry.Tables() }

// moduleEdges collects the modules' routes and error rows; a row that maps a sentinel twice refuses the
// boot, naming the module.
func (a *App) moduleEdges() ([]func(httpapi.Routes), []httpapi.ErrorCode, error) {
	var routes []func(httpapi.Routes)
	var rows []httpapi.ErrorCode
	var errs []error
	for _, m := range a.modules {
		if m.Routes != nil {
			routes = append(routes, m.Routes)
		}
		if err := httpapi.CheckErrors(append(rows, m.Errors...)); err != nil {
			errs = append(errs, fmt.Errorf("module %s: %w", m.Name, err))
			continue
		}
		rows = append(rows, m.Errors...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, nil, fmt.Errorf("modules: %w", err)
	}
	return routes, rows, nil
}

// moduleTasks are the modules' periodic tasks as jobs.Tasks.
func (a *App) moduleTasks() []jobs.Task {
	var out []jobs.Task
	for _, m := range a.modules {
		for _, t := range m.Tasks {
			run := t.Run
			out = append(out, jobs.Task{Name: t.Name, Every: t.Every, RealTime: t.RealTime,
				Run: func(ctx context.Context, now time.Time) (jobs.Report, error) {
					r, err := run(ctx, now)
					return jobs.Report(r), err
				}})
		}
	}
	return out
}

// checkTaskNames refuses two tasks of one name: River schedules and `fabrica jobs run` finds them by it.
func checkTaskNames(tasks []jobs.Task) error {
	seen := map[string]bool{}
	for _, t := range tasks {
		if seen[t.Name] {
			return fmt.Errorf("modules: two periodic tasks are named %q", t.Name)
		}
		seen[t.Name] = true
	}
	return nil
}
