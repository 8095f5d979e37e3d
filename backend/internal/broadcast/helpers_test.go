package broadcast_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/broadcast"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
	"github.com/fabrica-saas/fabrica/backend/internal/jobs"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var operator = audit.Actor{UserID: uuid.New(), ClerkUserID: "user_op", Email: "op@example.com", Admin: true}

// sender is the fake provider: it records every message, and fails those to addresses in fail.
type sender struct {
	mu   sync.Mutex
	sent []email.Message
	fail map[string]error
}

func (s *sender) Send(_ context.Context, m email.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fail[m.To]; err != nil {
		return err
	}
	s.sent = append(s.sent, m)
	return nil
}

func (s *sender) messages() []email.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]email.Message(nil), s.sent...)
}

// failingJobs is the real queue until its page-th enqueue, which fails: a dispatcher dying mid-run.
type failingJobs struct {
	*jobs.Queue
	failAt int64
	calls  atomic.Int64
}

var errCrash = errors.New("worker crashed")

func (f *failingJobs) EnqueueBroadcastSendsTx(ctx context.Context, tx *gorm.DB, run uuid.UUID, users []uuid.UUID) (int, error) {
	if f.calls.Add(1) == f.failAt {
		return 0, errCrash
	}
	return f.Queue.EnqueueBroadcastSendsTx(ctx, tx, run, users)
}

type env struct {
	db       *gorm.DB
	queue    *jobs.Queue
	accounts *account.Service
	tiers    *billing.Tiers
	sender   *sender
}

func setup(t *testing.T) *env {
	t.Helper()
	d := pgtest.New(t)
	q, err := jobs.NewQueue(d.SQL(t), true)
	require.NoError(t, err)
	tiers, err := billing.LoadTiers("")
	require.NoError(t, err)
	accounts := account.New(account.Deps{DB: d.Gorm, Erasures: account.NewErasures("broadcast-test-erasure-key-0123456789abc")},
		account.Config{UnsubscribeSecret: "broadcast-test-unsubscribe-secret-0123456789", PublicBaseURL: "https://api.test"})
	return &env{db: d.Gorm, queue: q, accounts: accounts, tiers: tiers, sender: &sender{fail: map[string]error{}}}
}

// service builds a broadcast service on e with jobs (nil: the real queue).
func (e *env) service(j broadcast.Jobs, cfg broadcast.Config) *broadcast.Service {
	if j == nil {
		j = e.queue
	}
	cfg.AppName = "Fabrica"
	return broadcast.New(broadcast.Deps{DB: e.db, Jobs: j, Sender: e.sender, Links: e.accounts, Tiers: e.tiers}, cfg)
}

type userOpts struct {
	consent bool
	tier    string
	deleted bool
	noEmail bool
}

// users inserts n users (u0@example.com ...) with opts and returns their ids.
func (e *env) users(t *testing.T, prefix string, n int, o userOpts) []uuid.UUID {
	t.Helper()
	if o.tier == "" {
		o.tier = "free"
	}
	ids := make([]uuid.UUID, n)
	for i := range ids {
		addr := fmt.Sprintf("%s%d@example.com", prefix, i)
		if o.noEmail {
			addr = ""
		}
		require.NoError(t, e.db.Raw(`INSERT INTO users (clerk_user_id, email, email_verified, current_tier,
			marketing_consent_given, deleted_at) VALUES (?, ?, ?, ?, ?, CASE WHEN ? THEN now() END) RETURNING id`,
			fmt.Sprintf("user_%s%d", prefix, i), addr, addr != "", o.tier, o.consent, o.deleted).Row().Scan(&ids[i]))
	}
	return ids
}

func (e *env) count(t *testing.T, q string, args ...any) int64 {
	t.Helper()
	var n int64
	require.NoError(t, e.db.Raw(q, args...).Row().Scan(&n))
	return n
}

// started creates and starts a run of draft.
func started(t *testing.T, svc *broadcast.Service, d broadcast.Draft) broadcast.Run {
	t.Helper()
	r, err := svc.Create(context.Background(), operator, d)
	require.NoError(t, err)
	r, err = svc.Send(context.Background(), operator, r.ID)
	require.NoError(t, err)
	require.Equal(t, broadcast.StatusSending, r.Status)
	return r
}

var news = broadcast.Draft{Template: email.TemplateAnnouncement, Subject: "Spring news", BodyMarkdown: "Hello **you**",
	Kind: broadcast.KindMarketing}

// deliverAll works every send job of the run the way the workers would, with attempt numbers from River.
func (e *env) deliverAll(t *testing.T, svc *broadcast.Service, run uuid.UUID) {
	t.Helper()
	var users []uuid.UUID
	rows, err := e.db.Raw(`SELECT (args->>'user_id')::uuid FROM river_job WHERE kind = 'broadcast_send'
		AND args->>'run_id' = ? ORDER BY id`, run.String()).Rows()
	require.NoError(t, err)
	for rows.Next() {
		var u uuid.UUID
		require.NoError(t, rows.Scan(&u))
		users = append(users, u)
	}
	require.NoError(t, rows.Close())
	for _, u := range users {
		require.NoError(t, svc.Deliver(context.Background(), run, u, false))
	}
}
