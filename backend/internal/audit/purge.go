package audit

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// Retention says which audit rows Purge deletes. Its owner is the policy that knows what the actions mean
// (account.AuditRetention); this package only applies it.
type Retention struct {
	// Before: rows created before it are deleted, except Kept ones.
	Before time.Time
	// Kept are actions exempt from Before for as long as their user's account exists (consent records).
	Kept []string
	// Erased is the action that records a user's erasure. Once that row is older than ErasedBefore, the
	// user's Kept rows and the erasure row itself are deleted like any other (when older than Before too).
	Erased       string
	ErasedBefore time.Time
}

// purgeSQL deletes the purgeable rows among the next batch of rows older than Before, in (created_at, id)
// order after the cursor, and returns how many it looked at, how many it deleted and the last key. The
// cursor walks the expired range once per run: kept rows (old consent records of live accounts) are looked
// at once, not again by every batch. The erasure row is read in the statement's snapshot, so a batch that
// deletes it deletes the rows it releases too.
const purgeSQL = `WITH scan AS (
		SELECT id, created_at, action, user_id FROM audit_logs
		 WHERE created_at < $1 AND (created_at, id) > ($2, $3)
		 ORDER BY created_at, id LIMIT $4),
	gone AS (
		DELETE FROM audit_logs a USING scan s WHERE a.id = s.id
		   AND (s.action <> ALL($5) OR EXISTS (SELECT 1 FROM audit_logs e
		        WHERE e.user_id = s.user_id AND e.action = $6 AND e.created_at < $7))
		RETURNING 1),
	last AS (SELECT created_at, id FROM scan ORDER BY created_at DESC, id DESC LIMIT 1)
	SELECT (SELECT count(*) FROM scan), (SELECT count(*) FROM gone),
	       coalesce((SELECT created_at FROM last), $2), coalesce((SELECT id FROM last), $3)`

// Purge deletes the audit rows r lets go, batch rows looked at per statement (each its own transaction,
// so none holds many locks or a long snapshot), until the expired range is walked or ctx ends, and returns
// how many it deleted. Running it twice at once is harmless: a row deleted by one is skipped by the other.
func Purge(ctx context.Context, gdb *gorm.DB, r Retention, batch int) (int, error) {
	batch = max(batch, 1)
	kept := append([]string{r.Erased}, r.Kept...)
	at, id := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), uuid.Nil
	total := 0
	for ctx.Err() == nil {
		var scanned, deleted int
		err := gdb.WithContext(ctx).Raw(purgeSQL, r.Before, at, id, batch, kept, r.Erased, r.ErasedBefore).
			Row().Scan(&scanned, &deleted, &at, &id)
		if err != nil {
			return total, fmt.Errorf("purge audit log: %w", err)
		}
		total += deleted
		if scanned < batch {
			break
		}
	}
	return total, nil
}
