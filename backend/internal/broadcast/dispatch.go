package broadcast

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// Dispatch inserts a sending run's recipients and their send jobs, a page per transaction, then marks the
// dispatch complete. It is safe to run any number of times and concurrently: a recipient row is inserted
// at most once (ON CONFLICT (run_id, user_id) DO NOTHING, the loser of a race waiting for the winner's
// commit), and only a newly inserted row gets a job, in the row's own transaction. After a crash River
// retries it, and it resumes after the highest user id already inserted (pages go in id order and commit
// whole). A run that is not sending (queued, finished, failed) is left alone.
func (s *Service) Dispatch(ctx context.Context, runID uuid.UUID) error {
	run, err := loadRun(ctx, s.db, runID, false)
	if err != nil {
		return fmt.Errorf("dispatch broadcast %s: %w", runID, err)
	}
	if run.Status != StatusSending {
		return nil
	}
	aud := account.Audience{Tier: audienceOf(run).Tier, Consent: gated(run)}
	after, err := s.dispatchedThrough(ctx, runID)
	if err != nil {
		return fmt.Errorf("dispatch broadcast %s: %w", runID, err)
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		last, full, err := s.dispatchPage(ctx, runID, aud, after)
		if err != nil {
			return fmt.Errorf("dispatch broadcast %s: %w", runID, err)
		}
		if !full {
			break
		}
		after = last
	}
	if err := s.completeDispatch(ctx, runID); err != nil {
		return fmt.Errorf("dispatch broadcast %s: %w", runID, err)
	}
	return nil
}

// dispatchedThrough is where a resumed dispatch starts: the highest user id with a recipient row (the
// unique index's order), the nil uuid for a fresh run. Rows whose user was erased (NULL) are ignored.
func (s *Service) dispatchedThrough(ctx context.Context, runID uuid.UUID) (uuid.UUID, error) {
	var ids []uuid.UUID
	rows, err := s.db.WithContext(ctx).Raw(`SELECT user_id FROM broadcast_recipients
		WHERE run_id = ? AND user_id IS NOT NULL ORDER BY user_id DESC LIMIT 1`, runID).Rows()
	if err != nil {
		return uuid.Nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			return uuid.Nil, err
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return uuid.Nil, rows.Err()
	}
	return ids[0], rows.Err()
}

// dispatchPage inserts the recipients of the audience's next page after after, with a send job for each
// new one, in one transaction. It returns the page's last user id and whether the page was full (there may
// be more).
func (s *Service) dispatchPage(ctx context.Context, runID uuid.UUID, aud account.Audience, after uuid.UUID) (uuid.UUID, bool, error) {
	var last uuid.UUID
	var full bool
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// FOR SHARE: pages of concurrent dispatchers run side by side, but completeDispatch (FOR UPDATE)
		// waits for them, and a page that starts after it sees the run dispatched and inserts nothing: no
		// recipient appears after the run could have finished.
		var runs []models.BroadcastRun
		if err := tx.Raw(`SELECT * FROM broadcast_runs WHERE id = ? FOR SHARE`, runID).Scan(&runs).Error; err != nil {
			return err
		}
		if len(runs) == 0 || runs[0].Status != StatusSending || runs[0].DispatchedAt != nil {
			return nil
		}
		ids, err := account.AudiencePageTx(ctx, tx, aud, after, s.cfg.PageSize)
		if err != nil || len(ids) == 0 {
			return err
		}
		last, full = ids[len(ids)-1], len(ids) == s.cfg.PageSize
		fresh, err := insertRecipients(ctx, tx, runID, ids)
		if err != nil || len(fresh) == 0 {
			return err
		}
		_, err = s.jobs.EnqueueBroadcastSendsTx(ctx, tx, runID, fresh)
		return err
	})
	return last, full, err
}

// insertRecipients inserts pending rows for ids and returns those that were not there yet.
func insertRecipients(ctx context.Context, tx *gorm.DB, runID uuid.UUID, ids []uuid.UUID) ([]uuid.UUID, error) {
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = id.String()
	}
	// One statement for the page; the array literal holds only canonical uuids, so it needs no quoting.
	rows, err := tx.WithContext(ctx).Raw(`INSERT INTO broadcast_recipients (run_id, user_id)
		SELECT ?, unnest(CAST(? AS uuid[]))
		ON CONFLICT ON CONSTRAINT uq_broadcast_recipients_run_user DO NOTHING RETURNING user_id`,
		runID, "{"+strings.Join(list, ",")+"}").Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var fresh []uuid.UUID
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		fresh = append(fresh, id)
	}
	return fresh, rows.Err()
}

// completeDispatch records that every recipient is in, and finishes the run if they are all settled
// already (an empty audience, or sends faster than the dispatcher).
func (s *Service) completeDispatch(ctx context.Context, runID uuid.UUID) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		run, err := loadRun(ctx, tx, runID, true)
		if err != nil || run.Status != StatusSending {
			return err
		}
		if run.DispatchedAt == nil {
			if err := tx.Exec(`UPDATE broadcast_runs SET dispatched_at = now() WHERE id = ?`, runID).Error; err != nil {
				return err
			}
			if err := tx.Raw(`SELECT * FROM broadcast_runs WHERE id = ?`, runID).Scan(&run).Error; err != nil {
				return err
			}
		}
		return finishIfDone(ctx, tx, run)
	})
}

// finishRun finishes the run if nothing is left pending, under the run lock like every settle: a send
// job that finds its recipient gone (erased since dispatch) may be the run's last.
func (s *Service) finishRun(ctx context.Context, runID uuid.UUID) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		run, err := loadRun(ctx, tx, runID, true)
		if errors.Is(err, db.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return finishIfDone(ctx, tx, run)
	})
}

// finishIfDone finishes a sending, fully dispatched run with no recipient left pending, and audits
// broadcast.finished once. The caller holds the run row's lock (FOR UPDATE), taken before it settled its
// own recipient: every settle and the dispatch's completion take that lock before looking, each look is a
// new statement (READ COMMITTED: a fresh snapshot), so whichever comes last sees everything the others
// committed, and the run cannot stay sending with nothing pending.
func finishIfDone(ctx context.Context, tx *gorm.DB, run models.BroadcastRun) error {
	if run.Status != StatusSending || run.DispatchedAt == nil {
		return nil
	}
	var pending bool
	// Stops at the first pending row with a user: O(1) on the partial index in the common case.
	if err := tx.WithContext(ctx).Raw(`SELECT EXISTS (SELECT 1 FROM broadcast_recipients
		WHERE run_id = ? AND status = 'pending' AND user_id IS NOT NULL)`, run.ID).Row().Scan(&pending); err != nil || pending {
		return err
	}
	// A recipient erased before its send (user_id SET NULL) can never be sent: skipped.
	if err := tx.Exec(`UPDATE broadcast_recipients SET status = ?, reason = ?, finished_at = now()
		WHERE run_id = ? AND status = 'pending' AND user_id IS NULL`, RecipientSkipped, account.SkipDeleted, run.ID).Error; err != nil {
		return err
	}
	if err := tx.Exec(`UPDATE broadcast_runs SET status = ?, finished_at = now() WHERE id = ?`, StatusFinished, run.ID).Error; err != nil {
		return err
	}
	c, err := countRecipients(ctx, tx, run.ID)
	if err != nil {
		return err
	}
	return audit.Write(ctx, tx, audit.Entry{Actor: audit.ActorSystem, Action: ActionFinished, ResourceType: "broadcast_run",
		ResourceID: run.ID.String(), Details: map[string]any{"sent": c.Sent, "skipped": c.Skipped, "failed": c.Failed}})
}

// GiveUp marks a sending run failed when its dispatcher has exhausted its retries; sending it again
// resumes it. Recipients already inserted keep their send jobs.
func (s *Service) GiveUp(ctx context.Context, runID uuid.UUID, cause error) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Exec(`UPDATE broadcast_runs SET status = ? WHERE id = ? AND status = ?`, StatusFailed, runID, StatusSending)
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		s.log.ErrorContext(ctx, "broadcast dispatch gave up", "run_id", runID.String(), "error", cause.Error())
		return audit.Write(ctx, tx, audit.Entry{Actor: audit.ActorSystem, Action: ActionFailed, ResourceType: "broadcast_run",
			ResourceID: runID.String(), Details: map[string]any{"stage": "dispatch"}})
	})
}
