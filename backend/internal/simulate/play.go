package simulate

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/clock"
)

// play runs one step: its action, the copies chaos held back for after it, the timeline entry, then its
// expectations.
func (r *runner) play(ctx context.Context, st Step) error {
	label := st.label()
	if st.Note != "" {
		r.say("                  # %s", st.Note)
	}
	var evs []event
	what := ""
	var err error
	switch st.Action {
	case "signup":
		var ev event
		ev, err = r.m.signup(r.now)
		evs = []event{ev}
	case "checkout":
		evs, err = r.m.checkout(st.Args, r.now, r.customData(ctx, map[string]any{"tier": st.Args.Tier, "price_id": st.Args.Price}, st.Args.Price))
	case "pack":
		if st.Args.Price == "" {
			return errors.New("pack: price is required (a credit_packs price of the tiers file)")
		}
		evs, err = r.m.pack(st.Args, r.now, r.customData(ctx, map[string]any{"pack": st.Args.Price}, st.Args.Price))
	case "change", "seats":
		var s *sub
		if s, err = r.m.sub(st.Args.Sub); err == nil {
			qty := st.Args.Seats
			if st.Action == "seats" {
				if qty, err = r.intArg(st.Args.Value, st.Args.Quantity); err != nil {
					return err
				}
			}
			what, evs, err = r.m.change(s, st.Args.Tier, qty, st.Args, r.now)
		}
	case "payment":
		var s *sub
		if s, err = r.m.sub(st.Args.Sub); err == nil {
			what, evs, err = r.m.payment(s, st.Args.Value, r.now)
		}
	case "refund":
		evs, err = r.m.refund(st.Args, r.now)
	case "approve":
		evs, err = r.m.approve(st.Args.Value, r.now)
	case "cancel", "pause":
		var s *sub
		if s, err = r.m.sub(st.Args.Sub); err == nil {
			s.keepPeriod = st.Args.KeepPeriod
			what, evs, err = r.m.schedule(s, st.Action, st.Args.At, r.now)
		}
	case "resume":
		var s *sub
		if s, err = r.m.sub(st.Args.Sub); err == nil {
			what, evs, err = r.m.resume(s, r.now)
		}
	case "spend":
		what, err = r.spend(ctx, st.Args)
	case "finish":
		if st.Args.Job == "" {
			return errors.New("finish: job is required (the job id of an earlier spend)")
		}
		what, err = r.finishJob(ctx, st.Args.Job, or(st.Args.Outcome, "complete"))
	case "card_update":
		var s *sub
		if s, err = r.m.sub(st.Args.Sub); err == nil {
			what, evs, err = r.m.cardUpdate(s, r.now)
		}
	case "delete_account":
		what, evs, err = r.deleteAccount(ctx)
	case "sign_in":
		what, err = r.signIn(ctx)
	case "advance", "until":
		target, perr := r.target(st)
		if perr != nil {
			return perr
		}
		if err := r.advanceTo(ctx, target, label); err != nil {
			return err
		}
		return r.expect(ctx, st)
	case "usage":
		what, err = r.usage(ctx, st.Args)
	default:
		return fmt.Errorf("unknown action %q", st.Action)
	}
	if err != nil {
		return err
	}
	if err := r.deliver(ctx, evs); err != nil {
		return err
	}
	if err := r.deliverLate(ctx, r.step); err != nil {
		return err
	}
	event := label
	if what != "" {
		event += " [" + what + "]"
	}
	if len(evs) > 0 {
		event += ": " + eventNames(evs)
	}
	if err := r.settle(ctx, r.now, event); err != nil {
		return err
	}
	return r.expect(ctx, st)
}

func (r *runner) expect(ctx context.Context, st Step) error {
	if st.Action == "advance" || st.Action == "until" {
		if err := r.deliverLate(ctx, r.step); err != nil {
			return err
		}
	}
	if st.Expect == nil {
		return nil
	}
	if st.Action == "advance" || st.Action == "until" {
		o, err := r.observe(ctx)
		if err != nil {
			return err
		}
		r.obs = o
	}
	held, err := r.check(ctx, st.Expect, r.obs)
	if err != nil {
		return err
	}
	r.say("                  ✓ %s", strings.Join(held, " "))
	return nil
}

func (r *runner) target(st Step) (time.Time, error) {
	if st.Action == "until" {
		t, err := time.Parse(time.RFC3339, st.Args.Value)
		if err != nil {
			return time.Time{}, fmt.Errorf("until: %q is not an RFC 3339 time", st.Args.Value)
		}
		return t.UTC(), nil
	}
	return clock.Advance(r.now, st.Args.Value)
}

func (r *runner) intArg(value string, alt int) (int, error) {
	if value == "" {
		if alt <= 0 {
			return 0, errors.New("a positive number is required")
		}
		return alt, nil
	}
	n, err := strconv.Atoi(value)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a positive number", value)
	}
	return n, nil
}

// customData is what the checkout hands Paddle.js: the server's own (POST /billing/checkout, which binds
// the user's Paddle customer) when the user exists and the server can check out, else the same signed data
// made here with the server's CHECKOUT_SIGNING_SECRET (a server whose checkout cannot bind a customer).
func (r *runner) customData(ctx context.Context, body map[string]any, price string) map[string]any {
	if r.obs.known && !r.obs.deleted && !r.obs.erased && !r.noCheckout {
		if tok, err := r.c.token(r.m.clerkID, r.m.email); err == nil {
			var co struct {
				CustomerID string            `json:"customer_id"`
				CustomData map[string]string `json:"custom_data"`
			}
			for k, v := range body {
				if v == "" {
					delete(body, k)
				}
			}
			if _, err := r.c.call(ctx, http.MethodPost, "/api/v1/billing/checkout", tok, body, &co); err == nil && len(co.CustomData) > 0 {
				out := map[string]any{}
				for k, v := range co.CustomData {
					out[k] = v
				}
				if co.CustomerID != "" {
					r.m.customer = co.CustomerID
				}
				return out
			}
			r.noCheckout = true
		}
	}
	return r.m.b.CustomData(r.m.clerkID, r.m.email, r.now.Add(-time.Minute))
}

// spend spends credits with the user's session; expect_error names the error code the spend must get.
func (r *runner) spend(ctx context.Context, a Args) (string, error) {
	amount, err := r.intArg(a.Value, a.Amount)
	if err != nil {
		return "", fmt.Errorf("spend: %w", err)
	}
	job := a.Job
	if job == "" {
		job = fmt.Sprintf("sim-step-%d", r.step+1)
	}
	tok, err := r.c.token(r.m.clerkID, r.m.email)
	if err != nil {
		return "", err
	}
	_, err = r.c.call(ctx, http.MethodPost, "/api/v1/credits/spend", tok,
		map[string]any{"amount": amount, "job_id": job, "reason": "simulated work"}, nil)
	var ae *apiError
	switch {
	case err == nil && a.Error == "":
		return r.finishJob(ctx, job, or(a.Outcome, "complete"))
	case err == nil:
		return "", mismatch{"spend", "refused with " + a.Error, "accepted"}
	case errors.As(err, &ae) && a.Error != "" && strings.Contains(ae.body, `"code":"`+a.Error+`"`):
		return "refused: " + a.Error, nil
	case errors.As(err, &ae):
		return "", mismatch{"spend", or(a.Error, "accepted"), fmt.Sprintf("%d %s", ae.status, ae.body)}
	}
	return "", err
}

// deleteAccount deletes the account through the API; Paddle then cancels the live subscriptions at their
// period's end (the deletion's paddle_cancel_subscription jobs).
func (r *runner) deleteAccount(ctx context.Context) (string, []event, error) {
	tok, err := r.c.token(r.m.clerkID, r.m.email)
	if err != nil {
		return "", nil, err
	}
	if _, err := r.c.call(ctx, http.MethodDelete, "/api/v1/account/me", tok, nil, nil); err != nil {
		return "", nil, err
	}
	evs, err := r.m.accountDeleted(r.now)
	return "deleted; Paddle cancels at the period's end", evs, err
}

// signIn is a fresh sign-in (auth_time now): it restores a deleted account within the grace period.
func (r *runner) signIn(ctx context.Context) (string, error) {
	tok, err := r.c.token(r.m.clerkID, r.m.email)
	if err != nil {
		return "", err
	}
	_, err = r.c.call(ctx, http.MethodGet, "/api/v1/account/me", tok, nil, nil)
	var ae *apiError
	if errors.As(err, &ae) && ae.status == http.StatusGone {
		return "410 account_deleted", nil
	}
	if err != nil {
		return "", err
	}
	return "200", nil
}

// finishJob reports how a spend's job ended, as the worker that ran it: complete keeps the charge, fail
// refunds it, none leaves it to the reconciler (refunded at its deadline, CREDITS_ORPHAN_AFTER).
func (r *runner) finishJob(ctx context.Context, job, outcome string) (string, error) {
	switch outcome {
	case "none":
		return "spent, the job left running", nil
	case "complete", "fail":
	default:
		return "", fmt.Errorf("outcome: %q (complete, fail or none)", outcome)
	}
	if r.userID == "" {
		if _, err := r.observe(ctx); err != nil {
			return "", err
		}
	}
	body := map[string]any{"user_id": r.userID}
	if outcome == "fail" {
		body["reason"] = "simulated failure"
	}
	if _, err := r.c.call(ctx, http.MethodPost, "/api/v1/credits/jobs/"+job+"/"+outcome, r.cfg.WorkerKey, body, nil); err != nil {
		return "", err
	}
	return "spent, the job " + map[string]string{"complete": "completed", "fail": "failed: refunded"}[outcome], nil
}

// usage reports a usage event as the app's worker does (POST /api/v1/usage with a worker key) and checks
// its result. Under chaos the same event goes three times at once: one answer is the event's result, the
// others are duplicates of it (a refused event claims nothing, so its copies are refused alike).
func (r *runner) usage(ctx context.Context, a Args) (string, error) {
	if a.Feature == "" {
		return "", errors.New("usage: feature is required (a feature of the tiers file)")
	}
	qty := int64(max(a.Quantity, 1))
	key := a.Key
	if key == "" {
		key = fmt.Sprintf("sim-usage-%d", r.step+1)
	}
	want := or(a.Result, "recorded")
	if r.userID == "" {
		if _, err := r.observe(ctx); err != nil {
			return "", err
		}
	}
	// Keys are the user's own (usage_claims' key is (user_id, key)): each run's customer has its own.
	body := map[string]any{"events": []map[string]any{{"user_id": r.userID, "feature": a.Feature, "quantity": qty,
		"idempotency_key": key}}}
	copies := 1
	if r.cfg.Chaos {
		copies = 3
	}
	type answer struct {
		Results []struct {
			Status    string `json:"status"`
			Used      int64  `json:"used"`
			Remaining *int64 `json:"remaining"`
			Charged   int    `json:"charged"`
		} `json:"results"`
	}
	answers := make([]answer, copies)
	errs := make([]error, copies)
	var wg sync.WaitGroup
	for i := range copies {
		wg.Go(func() {
			_, errs[i] = r.c.call(ctx, http.MethodPost, "/api/v1/usage", r.cfg.WorkerKey, body, &answers[i])
		})
	}
	wg.Wait()
	got, first := 0, ""
	for i, ans := range answers {
		if errs[i] != nil {
			return "", errs[i]
		}
		if len(ans.Results) != 1 {
			return "", fmt.Errorf("usage: %d results for one event", len(ans.Results))
		}
		switch st := ans.Results[0].Status; {
		case st == want:
			got++
			if first == "" {
				first = fmt.Sprintf("%s %s ×%d: used %d", st, a.Feature, qty, ans.Results[0].Used)
				if rem := ans.Results[0].Remaining; rem != nil {
					first += fmt.Sprintf(", %d left", *rem)
				}
				if c := ans.Results[0].Charged; c > 0 {
					first += fmt.Sprintf(", %d credits", c)
				}
			}
		case st == "duplicate" && want == "recorded":
		default:
			return "", mismatch{"usage " + a.Feature, want, st}
		}
	}
	if got == 0 || (want == "recorded" && got != 1) {
		return "", mismatch{"usage " + a.Feature + " results " + want, 1, got}
	}
	return first, nil
}
