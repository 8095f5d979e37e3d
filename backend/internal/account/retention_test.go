package account_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// The audit trail has a retention: the purge deletes rows older than AUDIT_RETENTION in batches, except
// consent records, which stay for the life of the account and AUDIT_CONSENT_RETENTION after its erasure
// (the erasure row stays as long). Old consent records of live accounts sit in front of the purgeable rows
// and a batch of 4 walks past them.
func TestAuditTrailIsPurgedButConsentRecordsOutliveTheAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := pgtest.New(t)
	const year = 365 * day
	now := time.Now()
	live, erasedLongAgo, erasedLately := uuid.New(), uuid.New(), uuid.New()
	type row struct {
		name   string
		user   *uuid.UUID
		action string
		age    time.Duration
	}
	rows := []row{
		{"live: old change", &live, account.ActionUpdated, 3 * year},
		{"live: recent change", &live, account.ActionUpdated, year},
		{"live: old consent", &live, account.ActionConsentUpdated, 5 * year},
		{"live: old unsubscribe", &live, account.ActionUnsubscribed, 4 * year},
		{"erased 4 years ago: consent", &erasedLongAgo, account.ActionConsentUpdated, 6 * year},
		{"erased 4 years ago: change", &erasedLongAgo, account.ActionUpdated, 6 * year},
		{"erased 4 years ago: erasure", &erasedLongAgo, account.ActionHardDeleted, 4 * year},
		{"erased a year ago: consent", &erasedLately, account.ActionConsentUpdated, 5 * year},
		{"erased a year ago: change", &erasedLately, account.ActionUpdated, 3 * year},
		{"erased a year ago: erasure", &erasedLately, account.ActionHardDeleted, year},
		{"no user: old failure", nil, "webhook.failed", 3 * year},
	}
	for i := range 30 {
		u := uuid.New()
		rows = append(rows, row{fmt.Sprintf("live %d: ancient consent", i), &u, account.ActionConsentUpdated, 10*year - time.Duration(i)*day})
	}
	for _, r := range rows {
		require.NoError(t, d.Gorm.Exec(`INSERT INTO audit_logs (actor, action, user_id, resource_id, created_at) VALUES ('system', ?, ?, ?, ?)`,
			r.action, r.user, r.name, now.Add(-r.age)).Error)
	}

	n, err := audit.Purge(ctx, d.Gorm, account.AuditRetention(now, 2*year, 3*year), 4)
	require.NoError(t, err)
	require.Equal(t, 6, n)
	var left []string
	require.NoError(t, d.Gorm.Raw(`SELECT resource_id FROM audit_logs WHERE resource_id NOT LIKE 'live %' ORDER BY resource_id`).
		Scan(&left).Error)
	require.Equal(t, []string{"erased a year ago: consent", "erased a year ago: erasure", "live: old consent",
		"live: old unsubscribe", "live: recent change"}, left)
	var ancient int
	require.NoError(t, d.Gorm.Raw(`SELECT count(*) FROM audit_logs WHERE resource_id LIKE 'live %'`).Scan(&ancient).Error)
	require.Equal(t, 30, ancient, "a live account's consent records, whatever their age")

	n, err = audit.Purge(ctx, d.Gorm, account.AuditRetention(now, 2*year, 3*year), 4)
	require.NoError(t, err)
	require.Zero(t, n, "a second run finds nothing")
}
