package account

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/verify"
)

// TierView is the users' tiers as other packages' checks read them (docs/architecture.md, the verify
// views): billing's check that every tier follows from the user's subscriptions.
const TierView = `SELECT id AS user_id, current_tier AS tier, deleted_at IS NOT NULL AS deleted FROM users`

// welcomeKey is the idempotency key of a user's welcome email: one per Clerk user, ever.
func welcomeKey(clerkUserID string) string { return welcomeKeyPrefix + clerkUserID }

const welcomeKeyPrefix = "welcome/"

// JobsView is what the welcome check reads of the job queue, which the jobs package owns and account
// cannot import: jobs.EmailJobView (a query of the email jobs with their key) and how long the queue
// keeps a finished job (jobs.KeptFor). app passes both.
type JobsView struct {
	EmailJobs string
	KeptFor   time.Duration
}

// Checks are the account checks, for `fabrica verify account`.
func Checks(jobs JobsView) []verify.Check {
	const name = "account.welcome_email_once"
	return []verify.Check{{Name: name, Area: "account",
		Doc: "a user whose sign-up ran with a verified address has exactly one welcome email job (within the queue's retention of finished jobs)",
		Run: func(ctx context.Context, tx *gorm.DB, s verify.Scope) ([]verify.Violation, error) {
			// The sign-up hooks ran once (signup_completed_at) and the welcome hook enqueued its job in
			// that transaction when the user had an address. River deletes a finished job after KeptFor,
			// so only the sign-ups younger than that still show theirs. One limit, accepted: an address
			// first verified after the sign-up got no welcome, and such a user is reported here.
			return verify.Rows(ctx, tx, name, `WITH welcome AS (
				  SELECT j.key, count(*) AS n FROM (`+jobs.EmailJobs+`) j WHERE starts_with(j.key, @prefix) GROUP BY j.key)
				SELECT u.id::text AS subject,
				       format('signed up at %s with an address: %s welcome email jobs (key %s), want 1',
				              u.signup_completed_at, coalesce(w.n, 0), @prefix || u.clerk_user_id) AS detail
				  FROM users u LEFT JOIN welcome w ON w.key = @prefix || u.clerk_user_id
				 WHERE u.signup_completed_at >= now() - make_interval(secs => @kept) AND u.email <> ''
				   AND (CAST(@user AS uuid) IS NULL OR u.id = CAST(@user AS uuid))
				   AND coalesce(w.n, 0) <> 1`,
				map[string]any{"prefix": welcomeKeyPrefix, "kept": jobs.KeptFor.Seconds(), "user": s.User()})
		}}}
}
