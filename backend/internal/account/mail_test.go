package account_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/jobs/jobstest"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// A row stored before the verified-email migration keeps its address, marked unverified. No path that
// resolves an address to send to may use it: billing's transactional mail (EmailTx), the deletion
// confirmation, the welcome mail of a late user.created, broadcast audiences and their send-time check.
// A verified row beside it gets all of them.
func TestUnverifiedAddressesGetNoMail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := pgtest.New(t)
	m := &jobstest.Mailer{}
	svc := newAccounts(t, d.Gorm, m, account.Config{AppName: "Fabrica", DeletionGrace: 30 * day})
	// clerk_synced_at in the future: Clerk's user.created below is an older snapshot and does not apply,
	// so its sign-up runs on the stored row.
	var legacy, fresh uuid.UUID
	require.NoError(t, d.Gorm.Raw(`INSERT INTO users (clerk_user_id, email, email_verified, clerk_synced_at, marketing_consent_given)
		VALUES ('user_legacy', 'legacy@example.com', false, now() + interval '1 day', true) RETURNING id`).Row().Scan(&legacy))
	require.NoError(t, d.Gorm.Raw(`INSERT INTO users (clerk_user_id, email, email_verified, clerk_synced_at, marketing_consent_given)
		VALUES ('user_fresh', 'fresh@example.com', true, now() + interval '1 day', true) RETURNING id`).Row().Scan(&fresh))

	for _, tc := range []struct {
		id   uuid.UUID
		want string
	}{{legacy, ""}, {fresh, "fresh@example.com"}} {
		addr, err := account.EmailTx(ctx, d.Gorm, tc.id)
		require.NoError(t, err)
		require.Equal(t, tc.want, addr, "transactional mail")
	}

	ids, err := account.AudiencePageTx(ctx, d.Gorm, account.Audience{Consent: true}, uuid.Nil, 10)
	require.NoError(t, err)
	require.Equal(t, []uuid.UUID{fresh}, ids, "a broadcast's audience")
	for _, consent := range []bool{true, false} {
		r, err := account.RecipientTx(ctx, d.Gorm, legacy, consent)
		require.NoError(t, err)
		require.Equal(t, account.Recipient{Skip: account.SkipNoAddress}, r, "a broadcast's send-time check")
	}

	e := &env{db: d.Gorm, handlers: svc.ClerkHandlers(), mailer: m}
	e.apply(t, account.EventUserCreated, "user_legacy", "legacy@example.com", time.Now().UnixMilli())
	e.apply(t, account.EventUserCreated, "user_fresh", "fresh@example.com", time.Now().UnixMilli())
	require.Equal(t, []string{"welcome/user_fresh"}, m.Keys(), "the welcome mail")

	_, err = svc.Delete(ctx, audit.Actor{UserID: legacy, ClerkUserID: "user_legacy"})
	require.NoError(t, err)
	require.Len(t, m.Keys(), 1, "no deletion confirmation to an unverified address")
	_, err = svc.Delete(ctx, audit.Actor{UserID: fresh, ClerkUserID: "user_fresh"})
	require.NoError(t, err)
	require.Len(t, m.Keys(), 2, "the verified one is confirmed")
}
