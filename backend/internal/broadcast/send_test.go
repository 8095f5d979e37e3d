package broadcast_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/broadcast"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

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

// Any admin could mail every user without consent: a transactional announcement with bypass_consent went
// to everyone, free-form Markdown without an unsubscribe link. Only a template with fixed wording may bypass
// consent, and the announcement has none: the draft is refused (the API answers 409 bypass_not_allowed),
// and the preview with it. A run stored that way before the rule is still sent on consent only, with the
// unsubscribe headers: the send checks the template again.
func TestAnnouncementCannotBypassConsent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{})
	e.users(t, "yes", 2, userOpts{consent: true, tier: "pro"})
	e.users(t, "no", 3, userOpts{tier: "pro"})
	terms := news
	terms.Kind, terms.BypassConsent, terms.Audience.Tier = broadcast.KindTransactional, true, "pro"
	_, err := svc.Create(ctx, operator, terms)
	require.ErrorIs(t, err, broadcast.ErrBypassNeedsFixedWording)
	_, err = svc.PreviewDraft(terms)
	require.ErrorIs(t, err, broadcast.ErrBypassNeedsFixedWording)
	require.Zero(t, e.count(t, `SELECT count(*) FROM broadcast_runs`))

	var stored uuid.UUID
	require.NoError(t, e.db.Raw(`INSERT INTO broadcast_runs (template, subject, body_markdown, audience, kind, bypass_consent, created_by)
		VALUES (?, 'Terms', 'Anything at all', '{"tier":"pro"}', ?, true, 'admin:op@example.com') RETURNING id`,
		email.TemplateAnnouncement, broadcast.KindTransactional).Row().Scan(&stored))
	_, err = svc.Send(ctx, operator, stored)
	require.NoError(t, err)
	require.NoError(t, svc.Dispatch(ctx, stored))
	e.deliverAll(t, svc, stored)
	msgs := e.sender.messages()
	require.Len(t, msgs, 2, "only the two who consented")
	for _, m := range msgs {
		require.Contains(t, m.Headers, "List-Unsubscribe")
		require.Contains(t, m.Text, "Unsubscribe")
	}
}

// A transactional run that does not bypass consent is gated like marketing: only users who consented get
// it, with the unsubscribe headers.
func TestTransactionalRuns(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{})
	e.users(t, "yes", 2, userOpts{consent: true, tier: "pro"})
	e.users(t, "no", 3, userOpts{tier: "pro"})
	e.users(t, "free", 4, userOpts{})
	gated := news
	gated.Kind = broadcast.KindTransactional
	run := started(t, svc, gated)
	require.NoError(t, svc.Dispatch(context.Background(), run.ID))
	e.deliverAll(t, svc, run.ID)
	require.Len(t, e.sender.messages(), 2, "without bypass_consent only the two who consented")
	require.Contains(t, e.sender.messages()[1].Headers, "List-Unsubscribe")
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
