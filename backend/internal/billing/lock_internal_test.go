package billing

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// The claim the grant top-ups rest on: the upsert leaves the subscription row locked until commit even
// when the snapshot is stale and its WHERE rejects the update (Postgres locks the conflicting row either
// way), so every event of one subscription reads and tops up a month after the previous one committed.
func TestStaleUpsertStillLocksTheSubscriptionRow(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	ctx := context.Background()
	var userID uuid.UUID
	require.NoError(t, d.Gorm.Raw(`INSERT INTO users (clerk_user_id) VALUES ('user_lock') RETURNING id`).Row().Scan(&userID))
	at := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	snapshot := func(eventID string, occurred time.Time) synced {
		return synced{env: envelope{EventID: eventID, OccurredAt: occurred}, userID: userID,
			tier: Tier{Name: "pro"}, plan: plan{item: item{Price: price{ID: "pri_pro"}}, quantity: 1},
			sub: subscriptionData{ID: "sub_lock", Status: "active", CurrentBillingPeriod: &period{StartsAt: at, EndsAt: at.AddDate(0, 1, 0)}}}
	}
	_, applied, err := upsertSubscription(ctx, d.Gorm, snapshot("evt_new", at.Add(time.Hour)))
	require.NoError(t, err)
	require.True(t, applied)

	require.NoError(t, d.Gorm.Transaction(func(tx *gorm.DB) error {
		_, applied, err := upsertSubscription(ctx, tx, snapshot("evt_old", at))
		require.NoError(t, err)
		require.False(t, applied, "stale")
		// Another session cannot take the row while this transaction is open.
		err = d.Gorm.Exec(`SELECT 1 FROM subscriptions WHERE paddle_subscription_id = 'sub_lock' FOR UPDATE NOWAIT`).Error
		require.ErrorContains(t, err, "could not obtain lock")
		return nil
	}))
	require.NoError(t, d.Gorm.Exec(`SELECT 1 FROM subscriptions WHERE paddle_subscription_id = 'sub_lock' FOR UPDATE NOWAIT`).Error)
}
