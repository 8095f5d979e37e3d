package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
)

// ActionFailed is the audit action of a failed delivery (recordFailure); its resource id is failureID's.
const ActionFailed = "webhook.failed"

func failureID(provider, eventID string) string { return provider + ":" + eventID }

// redactedError replaces the error_message of a redacted delivery: a handler's error may quote the payload.
const redactedError = "redacted at an erasure"

// RedactTx redacts every archived delivery about any of subjects (a user's Clerk id, verified address and
// Paddle customer id, at their erasure) and reports how many it redacted. What "redacted" means for a body
// stored as the raw signed bytes: the body becomes {"redacted":"erasure","redacted_at":...}, the subjects
// list is emptied, the stored signature is dropped (it signed bytes we no longer have, so it could never
// verify again, and keeping it would suggest the body is authentic), an error message becomes
// redactedError, and redacted_at says when. The row stays (provider, event id, type, status, times) and so
// does the event's claim in processed_webhook_events: a late redelivery is still a duplicate, and the
// forensic trail of what happened stays, without the person. Replay refuses a redacted row (ErrRedacted).
// The webhook.failed audit rows of redacted failures lose their details too (the error text).
//
// Deliveries are found through webhook_events.subjects (a GIN index); rows archived before subjects
// existed, or whose envelope could not be read, are searched by their bytes for the subjects as given
// (a partial index lists only them), until the archive retention purges them.
func RedactTx(ctx context.Context, tx *gorm.DB, subjects []string, now time.Time) (int, error) {
	if len(subjects) == 0 {
		return 0, nil
	}
	now = now.UTC()
	body, err := json.Marshal(map[string]string{"redacted": "erasure", "redacted_at": now.Format(time.RFC3339)})
	if err != nil {
		return 0, err
	}
	type redacted struct {
		Provider, EventID, ProcessingStatus string
	}
	var rows []redacted
	// $n placeholders, not GORM's ?: GORM would spread the slice into a list, and this needs one text[].
	for _, where := range []string{
		`subjects && $4::text[]`,
		`subjects IS NULL AND EXISTS (SELECT 1 FROM unnest($4::text[]) n WHERE position(convert_to(n, 'UTF8') IN body) > 0)`,
	} {
		var got []redacted
		err := tx.WithContext(ctx).Raw(`UPDATE webhook_events SET body = $1, signature = NULL, subjects = '{}',
			error_message = CASE WHEN error_message IS NULL THEN NULL ELSE $2 END, redacted_at = $3
			WHERE redacted_at IS NULL AND `+where+`
			RETURNING provider, event_id, processing_status`, body, redactedError, now, subjects).Scan(&got).Error
		if err != nil {
			return 0, fmt.Errorf("redact archive: %w", err)
		}
		rows = append(rows, got...)
	}
	var failed []string
	for _, r := range rows {
		if r.ProcessingStatus == StatusFailed {
			failed = append(failed, failureID(r.Provider, r.EventID))
		}
	}
	if err := audit.RedactDetailsTx(ctx, tx, ActionFailed, failed); err != nil {
		return 0, err
	}
	return len(rows), nil
}
