package broadcast

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// Reasons a recipient failed (besides the account.Skip* reasons of a skip).
const (
	FailRender   = "render"   // the template could not render the run
	FailRejected = "rejected" // the provider refused the message for good (email.ErrPermanent)
	FailGaveUp   = "gave_up"  // the last retry failed too
)

// Deliver sends a run's mail to one recipient: the send job's work. A recipient that is not pending (sent,
// skipped, failed, or a job for a row that does not exist) is a no-op, so a repeated job mails nobody
// twice, and a claim on the row (claimed_until) lets one sender at a time past this point. The consent
// gate lives here, at send time: the user is read right before the provider call, and
// gated mail (marketing, or transactional without bypass_consent) goes only to a live user whose marketing
// consent is given, with List-Unsubscribe and List-Unsubscribe-Post: List-Unsubscribe=One-Click; anyone
// else is skipped with the reason. Sends wait for the process's rate limiter (EMAIL_RATE_PER_SECOND).
// A transient provider error is returned (River retries) until lastAttempt, when the recipient fails.
func (s *Service) Deliver(ctx context.Context, runID, userID uuid.UUID, lastAttempt bool) error {
	run, pending, err := s.pendingRecipient(ctx, runID, userID)
	if err != nil {
		return err
	}
	if !pending {
		// Settled already (a repeat), or the user was erased since dispatch (the row lost its user_id):
		// nothing to send, but the erased one may have been the run's last recipient.
		if err := s.finishRun(ctx, runID); err != nil {
			return fmt.Errorf("deliver broadcast %s: %w", runID, err)
		}
		return nil
	}
	if err := s.limiter.Wait(ctx); err != nil {
		return err
	}
	switch claimed, err := s.claim(ctx, runID, userID); {
	case err != nil:
		return fmt.Errorf("deliver broadcast %s: %w", runID, err)
	case claimed == claimSettled:
		return nil
	case claimed == claimHeld && lastAttempt:
		return nil // the holder settles it
	case claimed == claimHeld:
		return ErrInFlight
	}
	who, err := account.RecipientTx(ctx, s.db, userID, gated(run))
	if err != nil {
		return fmt.Errorf("deliver broadcast %s: %w", runID, err)
	}
	if who.Skip != "" {
		return s.settle(ctx, run, userID, RecipientSkipped, who.Skip)
	}
	unsubscribe := ""
	if gated(run) {
		unsubscribe = s.links.UnsubscribeURL(userID)
	}
	msg, err := s.render(run, unsubscribe)
	if err != nil {
		s.log.ErrorContext(ctx, "broadcast render", "run_id", runID.String(), "error", err.Error())
		return s.settle(ctx, run, userID, RecipientFailed, FailRender)
	}
	msg.To = who.Email
	// Resend drops a repeat with this key: a retry after a timeout that reached the provider is not a second mail.
	msg.IdempotencyKey = "broadcast/" + runID.String() + "/" + userID.String()
	if unsubscribe != "" {
		msg = email.WithUnsubscribe(msg, unsubscribe)
	}
	switch err := s.sender.Send(ctx, msg); {
	case err == nil:
		return s.settle(ctx, run, userID, RecipientSent, "")
	case errors.Is(err, email.ErrPermanent):
		return s.settle(ctx, run, userID, RecipientFailed, FailRejected)
	case lastAttempt:
		s.log.WarnContext(ctx, "broadcast send gave up", "run_id", runID.String(), "error", err.Error())
		return s.settle(ctx, run, userID, RecipientFailed, FailGaveUp)
	default:
		// Released, so the retry can claim it again at once.
		rerr := s.db.WithContext(context.WithoutCancel(ctx)).Exec(`UPDATE broadcast_recipients SET claimed_until = NULL
			WHERE run_id = ? AND user_id = ? AND status = ?`, runID, userID, RecipientPending).Error
		return errors.Join(fmt.Errorf("deliver broadcast %s: %w", runID, err), rerr)
	}
}

// ErrInFlight means another sender holds the recipient's claim: the job is retried later and finds the
// recipient settled (or the claim lapsed, if that sender died).
var ErrInFlight = errors.New("broadcast recipient is being sent by another worker")

// ClaimLease is how long a sender's claim on a recipient lasts: longer than a send attempt may run (the
// send job's timeout is a minute, a provider call at most 30 s), so only a dead sender's claim lapses.
const ClaimLease = 2 * time.Minute

type claimResult int

const (
	claimTaken claimResult = iota
	claimHeld
	claimSettled
)

// claim takes the recipient for this sender while it is pending and nobody else holds it. Whatever the
// queue does (a rescued job next to a slow original, a duplicate), only the claim holder mails.
func (s *Service) claim(ctx context.Context, runID, userID uuid.UUID) (claimResult, error) {
	res := s.db.WithContext(ctx).Exec(`UPDATE broadcast_recipients SET claimed_until = now() + make_interval(secs => ?)
		WHERE run_id = ? AND user_id = ? AND status = ? AND (claimed_until IS NULL OR claimed_until < now())`,
		ClaimLease.Seconds(), runID, userID, RecipientPending)
	if res.Error != nil {
		return 0, res.Error
	}
	if res.RowsAffected == 1 {
		return claimTaken, nil
	}
	_, pending, err := s.pendingRecipient(ctx, runID, userID)
	switch {
	case err != nil:
		return 0, err
	case pending:
		return claimHeld, nil
	}
	return claimSettled, nil
}

// pendingRecipient reads the run and whether (run, user) is a pending recipient of it.
func (s *Service) pendingRecipient(ctx context.Context, runID, userID uuid.UUID) (models.BroadcastRun, bool, error) {
	var rows []models.BroadcastRun
	err := s.db.WithContext(ctx).Raw(`SELECT r.* FROM broadcast_runs r JOIN broadcast_recipients p ON p.run_id = r.id
		WHERE r.id = ? AND p.user_id = ? AND p.status = ?`, runID, userID, RecipientPending).Scan(&rows).Error
	if err != nil {
		return models.BroadcastRun{}, false, fmt.Errorf("deliver broadcast %s: %w", runID, err)
	}
	if len(rows) == 0 {
		return models.BroadcastRun{}, false, nil
	}
	return rows[0], true, nil
}

// render builds a run's message; unsubscribe, when set, is the recipient's link for the footer.
func (s *Service) render(run models.BroadcastRun, unsubscribe string) (email.Message, error) {
	data, err := json.Marshal(email.BroadcastData{AppName: s.cfg.AppName, Subject: run.Subject, BodyMarkdown: run.BodyMarkdown})
	if err != nil {
		return email.Message{}, err
	}
	r := s.renderer
	r.Footer.UnsubscribeURL = unsubscribe
	return r.Render(run.Template, data)
}

// settle moves a pending recipient to its outcome, audits it (email.sent, email.skipped, email.failed)
// and finishes the run when it was the last, in one transaction. Only a pending row moves, so of two
// settles of one recipient exactly one audits.
//
// The run row is locked first: settles and the dispatch's completion then decide "is anything pending?"
// one after the other (see finishIfDone), and a dispatcher's page (which share-locks the run, then may
// wait on a recipient row) can never wait on a settle that waits on it.
func (s *Service) settle(ctx context.Context, run models.BroadcastRun, userID uuid.UUID, status, reason string) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		locked, err := loadRun(ctx, tx, run.ID, true)
		if err != nil {
			return err
		}
		var why *string
		if reason != "" {
			why = &reason
		}
		res := tx.Exec(`UPDATE broadcast_recipients SET status = ?, reason = ?, finished_at = now(),
			sent_at = CASE WHEN ? = 'sent' THEN now() END
			WHERE run_id = ? AND user_id = ? AND status = 'pending'`, status, why, status, run.ID, userID)
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		details := map[string]any{"template": run.Template, "kind": run.Kind}
		if reason != "" {
			details["reason"] = reason
		}
		if err := audit.Write(ctx, tx, audit.Entry{Actor: audit.ActorSystem, Action: settleAction[status], UserID: &userID,
			ResourceType: "broadcast_run", ResourceID: run.ID.String(), Details: details}); err != nil {
			return err
		}
		return finishIfDone(ctx, tx, locked)
	})
	if err != nil {
		return fmt.Errorf("settle broadcast recipient: %w", err)
	}
	return nil
}

var settleAction = map[string]string{
	RecipientSent: ActionEmailSent, RecipientSkipped: ActionEmailSkipped, RecipientFailed: ActionEmailFailed,
}
