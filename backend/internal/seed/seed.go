// Package seed fills a development database with demo data through the paths real data takes: signed
// webhooks (built by trigger) and API calls with sessions and the worker key, over HTTP to a running server
// (`fabrica seed`). Every event id and job id is fixed and a delivery the archive already holds is not sent
// again, so a second run changes nothing.
package seed

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/trigger"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// User is one demo user: a Clerk id and its verified email.
type User struct{ ClerkID, Email string }

// The demo users: one on the free tier, a pro subscriber with a renewal, one who canceled.
var (
	Free     = User{"user_seed_free", "free@fabrica.test"}
	Pro      = User{"user_seed_pro", "pro@fabrica.test"}
	Canceled = User{"user_seed_canceled", "canceled@fabrica.test"}
)

// FailedEventID is the Paddle event seed delivers to fail: a subscription on a price no tier lists, which
// the pipeline archives as failed (and answers 500 for the provider to retry) with nothing else written.
const FailedEventID = "evt_seed_unknown_price"

// Config is what a run needs: the server, how to sign its events and sessions, and the worker key.
type Config struct {
	URL    string
	Client *http.Client
	Events *trigger.Builder
	// Session mints a session token for a Clerk user id and verified email (dev tokens, in the command).
	Session func(clerkUserID, email string) (string, error)
	// Admin is an operator's session: seed asks the admin API what the archive already holds.
	Admin string
	// WorkerKey is one of WORKER_API_KEYS: only a worker reports how a job ended.
	WorkerKey string
	Out       io.Writer
	Now       func() time.Time
}

// delivery is one event of the demo and what its answer must be.
type delivery struct {
	spec trigger.Spec
	// fails: the delivery must fail (archived failed), not be processed.
	fails bool
}

// deliveries are the demo's events in the order a real life would send them. Each later snapshot of a
// subscription occurs a second after the one before, since the newest snapshot wins.
func deliveries(now time.Time) []delivery {
	at := now.UTC().Truncate(time.Second)
	clerk := func(u User, id string) delivery {
		return delivery{spec: trigger.Spec{Provider: webhook.ProviderClerk, Event: "user.created", User: u.ClerkID,
			Email: u.Email, EventID: id, At: at}}
	}
	paddle := func(u User, event, id string, second int) delivery {
		return delivery{spec: trigger.Spec{Provider: webhook.ProviderPaddle, Event: event, User: u.ClerkID, Email: u.Email,
			Tier: "pro", EventID: id, At: at.Add(time.Duration(second) * time.Second)}}
	}
	failing := paddle(Free, "subscription.created", FailedEventID, 0)
	failing.spec.Price, failing.spec.Subscription, failing.fails = "pri_seed_unknown", "sub_seed_unknown_price", true
	return []delivery{
		clerk(Free, "msg_seed_free_created"),
		clerk(Pro, "msg_seed_pro_created"),
		clerk(Canceled, "msg_seed_canceled_created"),
		paddle(Pro, "subscription.created", "evt_seed_pro_created", 1),
		// The next period's charge: the renewal grants its month.
		paddle(Pro, "transaction.completed", "evt_seed_pro_renewed", 2),
		paddle(Canceled, "subscription.created", "evt_seed_canceled_created", 1),
		paddle(Canceled, "subscription.canceled", "evt_seed_canceled_canceled", 2),
		failing,
	}
}

// job is one metered job: spent by the user's session (or a worker for the user), then finished by a worker.
type job struct {
	user     User
	id       string
	amount   int
	reason   string
	byWorker bool
	// failed is the failure's reason (a refund); "" completes the job.
	failed string
}

var jobs = []job{
	{user: Pro, id: "seed-render-1", amount: 120, reason: "render a video"},
	{user: Pro, id: "seed-render-2", amount: 40, reason: "render a video", failed: "encoder crashed"},
	{user: Free, id: "seed-export-1", amount: 5, reason: "export a report", byWorker: true},
}

// Run seeds the server at c.URL. It stops at the first answer that is not the expected one.
func Run(ctx context.Context, c Config) error {
	if c.Now == nil {
		c.Now = time.Now
	}
	s := &seeder{Config: c, base: strings.TrimRight(c.URL, "/")}
	for _, d := range deliveries(c.Now()) {
		if err := s.deliver(ctx, d); err != nil {
			return err
		}
	}
	ids := map[User]string{}
	for _, j := range jobs {
		if _, ok := ids[j.user]; !ok {
			id, err := s.userID(ctx, j.user)
			if err != nil {
				return err
			}
			ids[j.user] = id
		}
		if err := s.run(ctx, j, ids[j.user]); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(c.Out, "seeded: %s (free), %s (pro, renewed), %s (canceled); %d jobs; one failed delivery "+
		"(GET /api/v1/admin/webhook-events?status=failed)\n", Free.Email, Pro.Email, Canceled.Email, len(jobs))
	return err
}

type seeder struct {
	Config
	base string
}

// deliver sends d unless the archive holds it already: processed for an event that must succeed (its
// claim makes a resend a no-op anyway, but the resend would still be archived, as a duplicate), any
// delivery at all for the one that must fail (a failure leaves no claim, so a resend would fail again).
func (s *seeder) deliver(ctx context.Context, d delivery) error {
	sp := d.spec
	label := fmt.Sprintf("%s %s %s", sp.Provider, sp.Event, sp.EventID)
	status := webhook.StatusProcessed
	if d.fails {
		status = webhook.StatusFailed
	}
	have, err := s.archived(ctx, sp.Provider, sp.EventID, status)
	if err != nil {
		return err
	}
	if have {
		return s.say("%s: already delivered", label)
	}
	del, err := s.Events.Build(sp)
	if err != nil {
		return err
	}
	a := trigger.Send(ctx, s.Client, s.base, sp.Provider, del, 1, 1)[0]
	processed := a.OK() && !strings.Contains(a.Body, `"failed":true`)
	switch {
	case a.Err != nil:
		return fmt.Errorf("seed: %s: %w", label, a.Err)
	case processed == d.fails:
		return fmt.Errorf("seed: %s: unexpected answer %s", label, a)
	}
	return s.say("%s: %s", label, a)
}

// userID is the demo user's id (users.id), which a worker names; the session creates no one here, since
// the user's user.created came first.
func (s *seeder) userID(ctx context.Context, u User) (string, error) {
	tok, err := s.Session(u.ClerkID, u.Email)
	if err != nil {
		return "", err
	}
	var me struct {
		ID string `json:"id"`
	}
	_, err = s.call(ctx, http.MethodGet, "/api/v1/account/me", tok, nil, &me, http.StatusOK)
	return me.ID, err
}

// run spends for j (201; 200 when an earlier run did, or 409 job_finished when that run failed it) and
// reports its outcome as the worker (idempotent too).
func (s *seeder) run(ctx context.Context, j job, userID string) error {
	spend := map[string]any{"amount": j.amount, "job_id": j.id, "reason": j.reason}
	bearer := s.WorkerKey
	if j.byWorker {
		spend["user_id"] = userID
	} else if t, err := s.Session(j.user.ClerkID, j.user.Email); err != nil {
		return err
	} else {
		bearer = t
	}
	want := []int{http.StatusCreated, http.StatusOK}
	if j.failed != "" {
		// An earlier run failed the job and its credits came back: spending it again is 409 job_finished.
		want = append(want, http.StatusConflict)
	}
	code, err := s.call(ctx, http.MethodPost, "/api/v1/credits/spend", bearer, spend, nil, want...)
	if err != nil {
		return err
	}
	outcome, done, body := "complete", "completed", map[string]any{"user_id": userID}
	if j.failed != "" {
		outcome, done, body["reason"] = "fail", "failed", j.failed
	}
	if _, err := s.call(ctx, http.MethodPost, "/api/v1/credits/jobs/"+j.id+"/"+outcome, s.WorkerKey, body, nil,
		http.StatusOK); err != nil {
		return err
	}
	verb := "spent"
	if code != http.StatusCreated {
		verb = "already spent"
	}
	return s.say("credits %s: %s %d for %s, %s by the worker", j.id, verb, j.amount, j.user.Email, done)
}

func (s *seeder) say(format string, args ...any) error {
	_, err := fmt.Fprintf(s.Out, format+"\n", args...)
	return err
}
