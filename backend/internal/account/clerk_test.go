package account_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/jobs/jobstest"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

type env struct {
	db       *gorm.DB
	handlers map[string]webhook.Handler
	mailer   *jobstest.Mailer
}

func setup(t *testing.T) *env {
	t.Helper()
	d := pgtest.New(t)
	m := &jobstest.Mailer{}
	svc := newAccounts(t, d.Gorm, m, account.Config{AppName: "Fabrica"})
	return &env{db: d.Gorm, handlers: svc.ClerkHandlers(), mailer: m}
}

// apply runs one event's handler in its own committed transaction, as the pipeline would.
func (e *env) apply(t *testing.T, typ, clerkID, mail string, updatedAt int64) {
	t.Helper()
	require.NoError(t, e.tryApply(t, typ, clerkID, mail, updatedAt))
}

// tryApply is apply returning the handler's error (the transaction then rolls back, as the pipeline's does).
func (e *env) tryApply(t *testing.T, typ, clerkID, mail string, updatedAt int64) error {
	data := map[string]any{"id": clerkID}
	if mail != "" {
		data["primary_email_address_id"] = "idn_2"
		data["email_addresses"] = []map[string]any{{"id": "idn_1", "email_address": "old-" + mail, "verification": verified},
			{"id": "idn_2", "email_address": mail, "verification": verified}}
		data["updated_at"] = updatedAt
	}
	payload, err := json.Marshal(map[string]any{"type": typ, "timestamp": updatedAt, "data": data})
	if err != nil {
		return err
	}
	return e.db.Transaction(func(tx *gorm.DB) error {
		return e.handlers[typ](context.Background(), tx, webhook.Event{Provider: "clerk", ID: "msg", Type: typ, Payload: payload})
	})
}

type userState struct {
	Email   string
	Deleted bool
	Balance int
}

func (e *env) user(t *testing.T, clerkID string) userState {
	t.Helper()
	var s userState
	require.NoError(t, e.db.Raw(`SELECT u.email, u.deleted_at IS NOT NULL,
		coalesce((SELECT sum(delta) FROM credit_transactions c WHERE c.user_id = u.id), 0)
		FROM users u WHERE clerk_user_id = ?`, clerkID).Row().Scan(&s.Email, &s.Deleted, &s.Balance))
	return s
}

func TestUserCreatedGrantsAndWelcomesOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.apply(t, account.EventUserCreated, "user_a", "Ada@Example.com", 1000)
	e.apply(t, account.EventUserCreated, "user_a", "ada@example.com", 1000) // a second event id for the same signup
	require.Equal(t, userState{Email: "ada@example.com", Balance: 25}, e.user(t, "user_a"))
	require.Equal(t, []string{"welcome/user_a"}, e.mailer.Keys())
}

func TestOlderSnapshotIsIgnored(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.apply(t, account.EventUserCreated, "user_b", "first@example.com", 1000)
	e.apply(t, account.EventUserUpdated, "user_b", "third@example.com", 3000)
	e.apply(t, account.EventUserUpdated, "user_b", "second@example.com", 2000) // delivered late
	require.Equal(t, "third@example.com", e.user(t, "user_b").Email)
}

func TestUpdateBeforeCreateEndsTheSame(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.apply(t, account.EventUserUpdated, "user_c", "new@example.com", 2000)
	require.Equal(t, userState{Email: "new@example.com"}, e.user(t, "user_c"), "an update for an unknown user creates it")
	e.apply(t, account.EventUserCreated, "user_c", "old@example.com", 1000)
	require.Equal(t, userState{Email: "new@example.com", Balance: 25}, e.user(t, "user_c"), "the older snapshot keeps the newer email; the grant still happens")
	require.Equal(t, []string{"welcome/user_c"}, e.mailer.Keys())
}

func TestDeletedUserIsNeverResurrected(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.apply(t, account.EventUserCreated, "user_d", "d@example.com", 1000)
	e.apply(t, account.EventUserDeleted, "user_d", "", 2000)
	e.apply(t, account.EventUserUpdated, "user_d", "zombie@example.com", 3000)
	e.apply(t, account.EventUserCreated, "user_d", "zombie@example.com", 3000)
	require.Equal(t, userState{Email: "d@example.com", Deleted: true, Balance: 25}, e.user(t, "user_d"))

	// A deletion for a user we never saw leaves a tombstone, so its late user.created creates nothing.
	e.apply(t, account.EventUserDeleted, "user_e", "", 2000)
	e.apply(t, account.EventUserCreated, "user_e", "e@example.com", 1000)
	require.Equal(t, userState{Deleted: true}, e.user(t, "user_e"))
	require.Equal(t, []string{"welcome/user_d"}, e.mailer.Keys())
}

func TestMissingUserIDIsAHandlerError(t *testing.T) {
	t.Parallel()
	e := setup(t)
	err := e.db.Transaction(func(tx *gorm.DB) error {
		return e.handlers[account.EventUserCreated](context.Background(), tx, webhook.Event{Payload: []byte(`{"data":{}}`)})
	})
	require.ErrorContains(t, err, "no data.id")
}

func TestClerkDeletionCancelsLiveSubscriptionsOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.apply(t, account.EventUserCreated, "user_s", "s@example.com", 1000)
	require.NoError(t, e.db.Exec(`INSERT INTO subscriptions (user_id, paddle_subscription_id, tier, status, last_event_at)
		SELECT id, 'sub_live', 'pro', 'active', now() FROM users WHERE clerk_user_id = 'user_s'
		UNION ALL SELECT id, 'sub_old', 'pro', 'canceled', now() FROM users WHERE clerk_user_id = 'user_s'`).Error)
	e.apply(t, account.EventUserDeleted, "user_s", "", 2000)
	e.apply(t, account.EventUserDeleted, "user_s", "", 3000) // already deleted: nothing more
	require.Equal(t, []string{"sub_live"}, e.mailer.Cancels())
}
