// Package module is the extension point of a package of the app's own (backend/examples/imagegen, and a
// fork's packages under backend/modules/): everything such a package adds to the service, its routes, the
// error codes of its sentinels, its periodic tasks and its tables of user data, in one Module value that
// app lists in one line. Nothing of it is registered by import or init: the package builds its Module
// from the Deps app hands it, and app wires each part where the built-in ones go.
package module

import (
	"context"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/httpapi"
	"github.com/fabrica-saas/fabrica/backend/internal/userdata"
)

// Module is what one package of the app's own contributes.
type Module struct {
	// Name names the module in boot errors.
	Name string
	// Routes adds its endpoints (nil: none): under Session (/api/v1 behind a session), with the
	// Idempotency-Key middleware at hand. Each needs its operation in docs/openapi.yaml, marked
	// x-fabrica-app-route.
	Routes func(httpapi.Routes)
	// Errors maps its sentinels to answers, after the built-in error table; a sentinel the table already
	// maps refuses the boot.
	Errors []httpapi.ErrorCode
	// Tasks are its periodic jobs, run like the built-in ones (River, one leader, unique per period,
	// `fabrica jobs run NAME`); a name another task has refuses the boot.
	Tasks []Task
	// UserData registers every table it owns that holds a user's data: the account export writes it and
	// the account erasure erases it. TestEveryUserTableIsRegistered refuses a table it forgot.
	UserData []userdata.Table
}

// Task is a periodic job: a name, how often, and the work. Run decides with now (the app's clock) and
// must be idempotent and bounded (a batch per run): two instances, or a manual run beside the schedule,
// must be safe. RealTime marks storage housekeeping that keeps the machine's time (a development clock
// move does not run it). The report's counts are logged.
type Task struct {
	Name     string
	Every    time.Duration
	RealTime bool
	Run      func(ctx context.Context, now time.Time) (map[string]int, error)
}
