package broadcast_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/broadcast"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

func TestCreateValidatesTheDraft(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{})
	with := func(f func(*broadcast.Draft)) broadcast.Draft { d := news; f(&d); return d }
	cases := []struct {
		name   string
		draft  broadcast.Draft
		want   error
		fields string
	}{
		{"unknown template", with(func(d *broadcast.Draft) { d.Template = "welcome" }), broadcast.ErrUnknownTemplate, ""},
		{"marketing bypassing consent", with(func(d *broadcast.Draft) { d.BypassConsent = true }), broadcast.ErrConsentRequired, ""},
		{"no subject", with(func(d *broadcast.Draft) { d.Subject = "  " }), broadcast.ErrInvalidDraft, "subject"},
		{"subject with a line break", with(func(d *broadcast.Draft) { d.Subject = "a\r\nBcc: x@evil.test" }), broadcast.ErrInvalidDraft, "subject"},
		{"long subject", with(func(d *broadcast.Draft) { d.Subject = strings.Repeat("é", broadcast.MaxSubject+1) }), broadcast.ErrInvalidDraft, "subject"},
		{"huge body and bad kind", with(func(d *broadcast.Draft) { d.BodyMarkdown = strings.Repeat("x", broadcast.MaxBody+1); d.Kind = "spam" }),
			broadcast.ErrInvalidDraft, "body_markdown, kind"},
		{"unknown tier", with(func(d *broadcast.Draft) { d.Audience.Tier = "platinum" }), billing.ErrUnknownTier, ""},
	}
	for _, tc := range cases {
		_, err := svc.Create(context.Background(), operator, tc.draft)
		require.ErrorIs(t, err, tc.want, tc.name)
		if tc.fields != "" {
			var fe *account.FieldError
			require.ErrorAs(t, err, &fe, tc.name)
			require.Equal(t, tc.fields, strings.Join(fe.FieldNames(), ", "), tc.name)
		}
	}
	require.Zero(t, e.count(t, `SELECT count(*) FROM broadcast_runs`)+e.count(t, `SELECT count(*) FROM audit_logs`))

	r, err := svc.Create(context.Background(), operator, with(func(d *broadcast.Draft) { d.Audience.Tier = "pro" }))
	require.NoError(t, err)
	require.Equal(t, broadcast.StatusQueued, r.Status)
	require.Equal(t, "admin:op@example.com", r.CreatedBy)
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'broadcast.queued'
		AND actor = 'admin:op@example.com' AND resource_id = ? AND details->>'tier' = 'pro'`, r.ID.String()))
	require.Zero(t, e.count(t, `SELECT count(*) FROM river_job`), "creating sends nothing")
	_, err = svc.Get(context.Background(), uuid.New())
	require.ErrorIs(t, err, db.ErrNotFound)
}

// The database refuses a marketing run that bypasses consent even if the code were to let one through.
func TestMarketingBypassIsImpossibleInTheSchema(t *testing.T) {
	t.Parallel()
	e := setup(t)
	err := e.db.Exec(`INSERT INTO broadcast_runs (template, subject, kind, bypass_consent, created_by)
		VALUES ('announcement', 's', 'marketing', true, 'test')`).Error
	require.ErrorContains(t, err, "violates check constraint")
	require.NoError(t, e.db.Exec(`INSERT INTO broadcast_runs (template, subject, kind, bypass_consent, created_by)
		VALUES ('announcement', 's', 'transactional', true, 'test')`).Error)
}

// Four dispatchers of one run at once, behind a start barrier, with pages of 7: every consenting user gets
// exactly one recipient row and one send job; non-consenting, deleted and address-less users get none.
func TestConcurrentDispatchersInsertEachRecipientOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{PageSize: 7})
	consenting := e.users(t, "yes", 40, userOpts{consent: true})
	e.users(t, "no", 10, userOpts{})
	e.users(t, "gone", 3, userOpts{consent: true, deleted: true})
	e.users(t, "mute", 2, userOpts{consent: true, noEmail: true})
	run := started(t, svc, news)

	start := make(chan struct{})
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			<-start
			errs <- svc.Dispatch(context.Background(), run.ID)
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, int64(len(consenting)), e.count(t, `SELECT count(*) FROM broadcast_recipients WHERE run_id = ?`, run.ID))
	require.Equal(t, int64(len(consenting)), e.count(t, `SELECT count(*) FROM river_job WHERE kind = 'broadcast_send'`))
	require.Equal(t, int64(len(consenting)), e.count(t, `SELECT count(DISTINCT args) FROM river_job WHERE kind = 'broadcast_send'`))
	got, err := svc.Get(context.Background(), run.ID)
	require.NoError(t, err)
	require.NotNil(t, got.DispatchedAt)
	require.Equal(t, broadcast.Counts{Pending: int64(len(consenting))}, got.Counts)
}

// A dispatcher that dies on its third page leaves two committed pages (recipients and their jobs together)
// and nothing of the third; the retry resumes after the last committed user and inserts only the rest.
func TestCrashedDispatchResumesWhereItStopped(t *testing.T) {
	t.Parallel()
	e := setup(t)
	const pageSize = 5
	consenting := e.users(t, "c", 23, userOpts{consent: true})
	crashing := &failingJobs{Queue: e.queue, failAt: 3}
	run := started(t, e.service(crashing, broadcast.Config{PageSize: pageSize}), news)

	err := e.service(crashing, broadcast.Config{PageSize: pageSize}).Dispatch(context.Background(), run.ID)
	require.ErrorIs(t, err, errCrash)
	require.Equal(t, int64(2*pageSize), e.count(t, `SELECT count(*) FROM broadcast_recipients`))
	require.Equal(t, int64(2*pageSize), e.count(t, `SELECT count(*) FROM river_job WHERE kind = 'broadcast_send'`))

	resumed := &failingJobs{Queue: e.queue}
	require.NoError(t, e.service(resumed, broadcast.Config{PageSize: pageSize}).Dispatch(context.Background(), run.ID))
	require.Equal(t, int64(len(consenting)), e.count(t, `SELECT count(*) FROM broadcast_recipients`))
	require.Equal(t, int64(len(consenting)), e.count(t, `SELECT count(*) FROM river_job WHERE kind = 'broadcast_send'`))
	require.Equal(t, int64(3), resumed.calls.Load(), "13 users left: pages of 5, 5 and 3, none of the first two pages again")

	// A third run of the whole dispatch (River retrying after the commit) changes nothing.
	require.NoError(t, e.service(nil, broadcast.Config{PageSize: pageSize}).Dispatch(context.Background(), run.ID))
	require.Equal(t, int64(len(consenting)), e.count(t, `SELECT count(*) FROM river_job WHERE kind = 'broadcast_send'`))
}

// Consent is checked when the mail goes out, not when it was queued: a user who unsubscribes, withdraws
// consent or deletes the account in between is skipped with the reason and an email.skipped row.
func TestConsentWithdrawnBetweenQueueAndSendIsSkipped(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{})
	ids := e.users(t, "u", 5, userOpts{consent: true})
	run := started(t, svc, news)
	require.NoError(t, svc.Dispatch(context.Background(), run.ID))

	// u0 clicks an unsubscribe link, u1 withdraws consent in the app, u2 deletes the account.
	token := strings.TrimPrefix(e.accounts.UnsubscribeURL(ids[0]), "https://api.test/api/v1/email/unsubscribe?t=")
	require.NoError(t, e.accounts.Unsubscribe(context.Background(), token, "192.0.2.9"))
	require.NoError(t, e.db.Exec(`UPDATE users SET marketing_consent_given = false, marketing_consent_source = 'api' WHERE id = ?`, ids[1]).Error)
	require.NoError(t, e.db.Exec(`UPDATE users SET deleted_at = now() WHERE id = ?`, ids[2]).Error)
	e.deliverAll(t, svc, run.ID)

	msgs := e.sender.messages()
	require.Len(t, msgs, 2)
	got, err := svc.Get(context.Background(), run.ID)
	require.NoError(t, err)
	require.Equal(t, broadcast.Counts{Sent: 2, Skipped: 3}, got.Counts)
	require.Equal(t, broadcast.StatusFinished, got.Status)
	for i, reason := range []string{account.SkipUnsubscribed, account.SkipNoConsent, account.SkipDeleted} {
		require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM broadcast_recipients WHERE user_id = ? AND status = 'skipped'
			AND reason = ?`, ids[i], reason), reason)
		require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'email.skipped' AND user_id = ?
			AND details->>'reason' = ?`, ids[i], reason), reason)
	}
	require.Equal(t, int64(2), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'email.sent'`))
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'broadcast.finished'
		AND details->>'sent' = '2' AND details->>'skipped' = '3'`))

	// Every job again (River redelivering, a second worker): nobody is mailed twice, nothing is audited twice.
	e.deliverAll(t, svc, run.ID)
	require.Len(t, e.sender.messages(), 2)
	require.Equal(t, int64(5), e.count(t, `SELECT count(*) FROM audit_logs WHERE action IN ('email.sent', 'email.skipped')`))
}

// Marketing mail carries the RFC 8058 headers, the footer link and the per-recipient idempotency key.
func TestMarketingMailCarriesUnsubscribeHeaders(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{})
	ids := e.users(t, "m", 1, userOpts{consent: true})
	run := started(t, svc, news)
	require.NoError(t, svc.Dispatch(context.Background(), run.ID))
	e.deliverAll(t, svc, run.ID)

	msgs := e.sender.messages()
	require.Len(t, msgs, 1)
	m := msgs[0]
	require.True(t, strings.HasPrefix(m.Headers["List-Unsubscribe"], "<https://api.test/api/v1/email/unsubscribe?t=v2."))
	require.Equal(t, "List-Unsubscribe=One-Click", m.Headers["List-Unsubscribe-Post"])
	require.Contains(t, m.Text, "Unsubscribe: https://api.test/api/v1/email/unsubscribe?t=")
	// Tokens are sealed with a random nonce, so the link is checked by what it opens: this user.
	token := strings.TrimSuffix(strings.TrimPrefix(m.Headers["List-Unsubscribe"], "<https://api.test/api/v1/email/unsubscribe?t="), ">")
	require.NoError(t, e.accounts.Unsubscribe(context.Background(), token, ""))
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM users WHERE id = ? AND NOT marketing_consent_given`, ids[0]))
	require.Equal(t, "m0@example.com", m.To)
	require.Equal(t, "Spring news", m.Subject)
	require.Contains(t, m.HTML, "<strong>you</strong>")
	require.Equal(t, "broadcast/"+run.ID.String()+"/"+ids[0].String(), m.IdempotencyKey)
}

// A transactional run that bypasses consent reaches every live user with an address, without unsubscribe
// headers (unsubscribing would not stop it); one that does not bypass is gated like marketing.
func TestTransactionalRuns(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{})
	e.users(t, "yes", 2, userOpts{consent: true, tier: "pro"})
	e.users(t, "no", 3, userOpts{tier: "pro"})
	e.users(t, "free", 4, userOpts{})
	terms := news
	terms.Kind, terms.BypassConsent, terms.Audience.Tier = broadcast.KindTransactional, true, "pro"
	run := started(t, svc, terms)
	require.NoError(t, svc.Dispatch(context.Background(), run.ID))
	e.deliverAll(t, svc, run.ID)
	msgs := e.sender.messages()
	require.Len(t, msgs, 5, "the pro tier only, consent or not")
	for _, m := range msgs {
		require.NotContains(t, m.Headers, "List-Unsubscribe")
		require.NotContains(t, m.Text, "Unsubscribe")
	}

	gated := news
	gated.Kind = broadcast.KindTransactional
	run = started(t, svc, gated)
	require.NoError(t, svc.Dispatch(context.Background(), run.ID))
	e.deliverAll(t, svc, run.ID)
	require.Len(t, e.sender.messages(), 7, "without bypass_consent only the two who consented")
	require.Contains(t, e.sender.messages()[6].Headers, "List-Unsubscribe")
}

// A permanent refusal fails the recipient at once; a transient error is retried (returned) until the last
// attempt, which fails it; either way the run still finishes.
func TestProviderFailures(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{})
	ids := e.users(t, "f", 3, userOpts{consent: true})
	e.sender.fail["f0@example.com"] = fmt.Errorf("resend: %w: status 422", email.ErrPermanent)
	e.sender.fail["f1@example.com"] = errors.New("resend: status 503")
	run := started(t, svc, news)
	require.NoError(t, svc.Dispatch(context.Background(), run.ID))
	ctx := context.Background()

	require.NoError(t, svc.Deliver(ctx, run.ID, ids[0], false))
	require.Error(t, svc.Deliver(ctx, run.ID, ids[1], false), "River retries a transient failure")
	require.NoError(t, svc.Deliver(ctx, run.ID, ids[2], false))
	got, _ := svc.Get(ctx, run.ID)
	require.Equal(t, broadcast.Counts{Pending: 1, Sent: 1, Failed: 1}, got.Counts)
	require.Equal(t, broadcast.StatusSending, got.Status)

	require.NoError(t, svc.Deliver(ctx, run.ID, ids[1], true))
	got, _ = svc.Get(ctx, run.ID)
	require.Equal(t, broadcast.Counts{Sent: 1, Failed: 2}, got.Counts)
	require.Equal(t, broadcast.StatusFinished, got.Status)
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM broadcast_recipients WHERE reason = ?`, broadcast.FailRejected))
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM broadcast_recipients WHERE reason = ?`, broadcast.FailGaveUp))
	require.Equal(t, int64(2), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'email.failed'`))
}

// An erased user's recipient row loses its user (SET NULL); it can never be sent, so it must not keep the
// run from finishing.
func TestErasedRecipientDoesNotBlockTheRun(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{})
	ids := e.users(t, "e", 3, userOpts{consent: true})
	run := started(t, svc, news)
	require.NoError(t, svc.Dispatch(context.Background(), run.ID))
	require.NoError(t, e.db.Exec(`DELETE FROM users WHERE id = ?`, ids[0]).Error)
	e.deliverAll(t, svc, run.ID)
	got, err := svc.Get(context.Background(), run.ID)
	require.NoError(t, err)
	require.Equal(t, broadcast.StatusFinished, got.Status)
	require.Equal(t, broadcast.Counts{Sent: 2, Skipped: 1}, got.Counts)
}

// The run's last recipient erased after dispatch: its job finds no recipient, and still finishes the run.
func TestErasedLastRecipientFinishesTheRun(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{})
	ids := e.users(t, "l", 2, userOpts{consent: true})
	run := started(t, svc, news)
	require.NoError(t, svc.Dispatch(context.Background(), run.ID))
	require.NoError(t, svc.Deliver(context.Background(), run.ID, ids[0], false))
	require.NoError(t, e.db.Exec(`DELETE FROM users WHERE id = ?`, ids[1]).Error)
	require.NoError(t, svc.Deliver(context.Background(), run.ID, ids[1], false))
	got, err := svc.Get(context.Background(), run.ID)
	require.NoError(t, err)
	require.Equal(t, broadcast.StatusFinished, got.Status)
	require.Equal(t, broadcast.Counts{Sent: 1, Skipped: 1}, got.Counts)
}

// A dispatcher that pages after the run was fully dispatched inserts nothing, even for a user who became
// eligible meanwhile: no recipient appears after the run could have finished.
func TestLateDispatcherInsertsNothingAfterTheDispatchCompleted(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{})
	e.users(t, "a", 2, userOpts{consent: true})
	run := started(t, svc, news)
	require.NoError(t, svc.Dispatch(context.Background(), run.ID))
	// The highest possible id, so the resumed keyset would reach it.
	require.NoError(t, e.db.Exec(`INSERT INTO users (id, clerk_user_id, email, email_verified, marketing_consent_given)
		VALUES ('ffffffff-ffff-4fff-bfff-ffffffffffff', 'user_late', 'late@example.com', true, true)`).Error)
	require.NoError(t, svc.Dispatch(context.Background(), run.ID))
	require.Equal(t, int64(2), e.count(t, `SELECT count(*) FROM broadcast_recipients`))
}

// An empty audience finishes as soon as it is dispatched; sending a finished run again does nothing.
func TestEmptyAudienceFinishesAndSendingAgainIsANoOp(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{})
	run := started(t, svc, news)
	require.NoError(t, svc.Dispatch(context.Background(), run.ID))
	got, err := svc.Send(context.Background(), operator, run.ID)
	require.NoError(t, err)
	require.Equal(t, broadcast.StatusFinished, got.Status)
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'broadcast.send_requested'`))
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM river_job WHERE kind = 'broadcast_dispatch'`))
}

// EMAIL_RATE_PER_SECOND spaces the sends of one process: five sends at 20 a second take at least 200 ms
// (a lower bound the limiter guarantees, not a timing target).
func TestSendsAreThrottled(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{RatePerSecond: 20})
	e.users(t, "r", 5, userOpts{consent: true})
	run := started(t, svc, news)
	require.NoError(t, svc.Dispatch(context.Background(), run.ID))
	begin := time.Now()
	e.deliverAll(t, svc, run.ID)
	require.GreaterOrEqual(t, time.Since(begin), 200*time.Millisecond)
	require.Len(t, e.sender.messages(), 5)
}

// Dispatchers and senders at once, pages of 5: three dispatchers race while four senders work every job
// they can see, again and again, in random order, until the run finishes (so two senders often work one
// recipient at once, which River alone would not do). No statement deadlocks, every consenting user is
// mailed exactly once, and the run finishes exactly once.
func TestDispatchersAndSendersAtOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{PageSize: 5})
	users := e.users(t, "x", 60, userOpts{consent: true})
	run := started(t, svc, news)

	start := make(chan struct{})
	dispatched := make(chan struct{})
	var dwg, swg sync.WaitGroup
	errs := make(chan error, 64)
	for range 3 {
		dwg.Go(func() {
			<-start
			errs <- svc.Dispatch(context.Background(), run.ID)
		})
	}
	for range 4 {
		swg.Go(func() {
			<-start
			for {
				select {
				case <-dispatched:
					if e.count(t, `SELECT count(*) FROM broadcast_runs WHERE status = 'finished'`) == 1 {
						return
					}
				default:
				}
				var jobs []struct{ UserID uuid.UUID }
				if err := e.db.Raw(`SELECT (args->>'user_id')::uuid AS user_id FROM river_job WHERE kind = 'broadcast_send'
					ORDER BY random()`).Scan(&jobs).Error; err != nil {
					errs <- err
					return
				}
				for _, j := range jobs {
					// Two senders on one recipient at once: one claims it, the other is told to retry.
					if err := svc.Deliver(context.Background(), run.ID, j.UserID, false); err != nil && !errors.Is(err, broadcast.ErrInFlight) {
						errs <- err
						return
					}
				}
			}
		})
	}
	close(start)
	dwg.Wait()
	close(dispatched)
	swg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	msgs := e.sender.messages()
	require.Len(t, msgs, len(users))
	seen := map[string]bool{}
	for _, m := range msgs {
		require.False(t, seen[m.To], "mailed twice: %s", m.To)
		seen[m.To] = true
	}
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'broadcast.finished'`))
	require.Equal(t, int64(len(users)), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'email.sent'`))
}

// A sender that died holding a recipient's claim: another sender is told to retry (nothing is mailed)
// until the claim lapses, then mails the recipient once.
func TestADeadSendersClaimLapses(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{})
	ids := e.users(t, "d", 1, userOpts{consent: true})
	run := started(t, svc, news)
	require.NoError(t, svc.Dispatch(context.Background(), run.ID))
	require.NoError(t, e.db.Exec(`UPDATE broadcast_recipients SET claimed_until = now() + interval '2 minutes'`).Error)

	require.ErrorIs(t, svc.Deliver(context.Background(), run.ID, ids[0], false), broadcast.ErrInFlight)
	require.NoError(t, svc.Deliver(context.Background(), run.ID, ids[0], true), "the last attempt leaves it to the holder")
	require.Empty(t, e.sender.messages())

	require.NoError(t, e.db.Exec(`UPDATE broadcast_recipients SET claimed_until = now() - interval '1 second'`).Error)
	require.NoError(t, svc.Deliver(context.Background(), run.ID, ids[0], false))
	require.Len(t, e.sender.messages(), 1)
	require.NoError(t, svc.Deliver(context.Background(), run.ID, ids[0], false))
	require.Len(t, e.sender.messages(), 1)
}
