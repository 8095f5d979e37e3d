package app

import (
	"context"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
	"github.com/fabrica-saas/fabrica/backend/internal/jobs"
	"github.com/fabrica-saas/fabrica/backend/internal/usage"
	"github.com/fabrica-saas/fabrica/backend/internal/verify"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// checks are every package's consistency checks, in the order `fabrica verify` prints them. Each package
// that owns tables writes its own (docs/architecture.md); registering them is one line here.
func (a *App) checks() []verify.Check {
	return slices.Concat(
		credits.Checks(),
		a.billing.Checks(),
		webhook.Checks(a.cfg.WebhookArchiveRetention),
		a.catchup.Checks(a.cfg.PaddleEventsSyncInterval),
		account.Checks(account.JobsView{EmailJobs: jobs.EmailJobView, KeptFor: jobs.KeptFor}),
		jobs.Checks(),
		usage.Checks(),
	)
}

// Checks lists every check (`fabrica verify --help`).
func (a *App) Checks() []verify.Check { return a.checks() }

// Verify runs the checks of the given areas (all when none) in one read-only snapshot (`fabrica verify`).
func (a *App) Verify(ctx context.Context, areas []string, s verify.Scope) (verify.Report, error) {
	checks, err := verify.Select(a.checks(), areas)
	if err != nil {
		return verify.Report{}, err
	}
	s.Now = a.clock.Now()
	return verify.Run(ctx, a.db, checks, s)
}

// maxAlertFacts bounds the violations one alert email lists; `fabrica verify` shows them all.
const maxAlertFacts = 40

// verifyTask is the daily `verify` task: every check, then one ops_alert email per ADMIN_EMAILS address
// listing the violations no earlier run alerted (verify.Alert remembers them in verify_alerts). It writes
// nothing else: a violation is a bug to understand, never a number to overwrite.
func (a *App) verifyTask(ctx context.Context, now time.Time) (jobs.Report, error) {
	rep, err := verify.Run(ctx, a.db, a.checks(), verify.Scope{Now: now})
	if err != nil {
		return nil, err
	}
	for _, res := range rep.Results {
		if res.Count > 0 {
			v := res.Violations[0]
			a.log.Error("verify: violations", "check", res.Check.Name, "count", res.Count, "subject", v.Subject, "detail", v.Detail)
		}
	}
	alerted, err := verify.Alert(ctx, a.db, rep, now, func(ctx context.Context, tx *gorm.DB, fresh []verify.Violation) error {
		return a.mailViolations(ctx, tx, now, fresh)
	})
	return jobs.Report{"checks": len(rep.Results), "violations": rep.Violations(), "new": len(alerted.New),
		"resolved": alerted.Resolved}, err
}

// mailViolations enqueues one ops_alert email per operator in the transaction that records the violations
// as alerted, keyed by the run: a retry of a run that committed finds nothing new, so mails nothing.
func (a *App) mailViolations(ctx context.Context, tx *gorm.DB, now time.Time, fresh []verify.Violation) error {
	d := email.OpsAlertData{AppName: a.cfg.AppName,
		Title: fmt.Sprintf("%d new consistency violation(s)", len(fresh)),
		Body: "The daily verify run found data that breaks an invariant (derived state that no longer equals what " +
			"it is derived from, or a job that stopped keeping up). Nothing was changed: each line below is a bug to understand. " +
			"Violations already alerted are not repeated.",
		Action: "run `fabrica verify` against the production database for the full report, then follow docs/operations.md (Verify) " +
			"for the check that fired; fix the cause, and correct the data only with an audited operator action.",
	}
	for i, v := range fresh {
		if i == maxAlertFacts {
			d.Facts = append(d.Facts, email.Fact{Name: "more", Value: fmt.Sprintf("%d more in `fabrica verify`", len(fresh)-i)})
			break
		}
		d.Facts = append(d.Facts, email.Fact{Name: v.Check + " " + v.Subject, Value: v.Detail})
	}
	key := "verify/" + now.UTC().Format(time.RFC3339Nano)
	for _, to := range a.cfg.AdminEmails {
		if err := a.queue.EnqueueEmailTx(ctx, tx, email.TemplateOpsAlert, to, key+"/"+to, d); err != nil {
			return err
		}
	}
	return nil
}
