package jobs

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/verify"
)

// KeptFor is how long River keeps a completed or cancelled job before its cleaner deletes it (set on the
// runner, River's default): a check that counts jobs sees only that far back. Discarded jobs stay longer.
const KeptFor = 24 * time.Hour

// EmailJobView is the email jobs as other packages' checks read them (docs/architecture.md, the verify
// views): one row per email job River still holds, with its idempotency key, template, state and time.
const EmailJobView = `SELECT id, args->>'idempotency_key' AS key, args->>'template' AS template, state, created_at
	FROM river_job WHERE kind = 'email'`

// Checks are the job queue's checks, for `fabrica verify jobs`.
func Checks() []verify.Check {
	const name = "jobs.email_key_once"
	return []verify.Check{{Name: name, Area: "jobs",
		Doc: "no two email jobs share an idempotency key: each cause enqueues its email once, in its own transaction",
		Run: func(ctx context.Context, tx *gorm.DB, _ verify.Scope) ([]verify.Violation, error) {
			// Every email is enqueued in the transaction of the one event or action that causes it, keyed
			// by that cause (welcome/<clerk id>, payment_failed/<sub>/<event>, ...): a second job for a key
			// is an effect that happened twice. Resend would drop the repeat; SMTP would send it.
			return verify.Rows(ctx, tx, name, `SELECT e.key AS subject,
				       format('%s email jobs (%s) for one key', count(*), string_agg(e.template || ' #' || e.id || ' ' || e.state, ', ' ORDER BY e.id)) AS detail
				  FROM (`+EmailJobView+`) e WHERE e.key <> '' GROUP BY e.key HAVING count(*) > 1`)
		}}}
}
