package simulate

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
)

// observation is what the server says about the user after a step, through the admin API.
type observation struct {
	known   bool // the user exists (signed up, or created by a checkout or a session)
	erased  bool
	deleted bool
	tier    string
	balance int
	subs    map[string]subView // by Paddle subscription id
}

type subView struct {
	Tier     string `json:"tier"`
	Status   string `json:"status"`
	Quantity int    `json:"quantity"`
	Price    string `json:"paddle_price_id"`
	Paddle   string `json:"id"` // the Paddle subscription id
	Flags    []string
	Revoked  *time.Time `json:"access_revoked_at"`
}

type adminUser struct {
	User struct {
		ID          string     `json:"id"`
		CurrentTier string     `json:"current_tier"`
		DeletedAt   *time.Time `json:"deleted_at"`
	} `json:"user"`
	Subscriptions []subView `json:"subscriptions"`
	Ledger        struct {
		Balance int `json:"balance"`
	} `json:"ledger"`
}

// observe reads the user's state. Until the user exists there is nothing to read; once erased, the admin
// API answers 404.
func (r *runner) observe(ctx context.Context) (observation, error) {
	if r.userID == "" {
		var page struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
		}
		q := url.Values{"clerk_user_id": {r.m.clerkID}}
		if _, err := r.c.asAdmin(ctx, http.MethodGet, "/api/v1/admin/users?"+q.Encode(), nil, &page); err != nil {
			return observation{}, err
		}
		if len(page.Items) == 0 {
			return observation{}, nil
		}
		r.userID = page.Items[0].ID
	}
	var u adminUser
	_, err := r.c.asAdmin(ctx, http.MethodGet, "/api/v1/admin/users/"+r.userID, nil, &u)
	var ae *apiError
	if errors.As(err, &ae) && ae.status == http.StatusNotFound {
		return observation{known: true, erased: true, tier: "-"}, nil
	}
	if err != nil {
		return observation{}, err
	}
	o := observation{known: true, deleted: u.User.DeletedAt != nil, tier: u.User.CurrentTier, balance: u.Ledger.Balance,
		subs: map[string]subView{}}
	for _, s := range u.Subscriptions {
		o.subs[s.Paddle] = s
	}
	return o, nil
}

func (o observation) account() string {
	switch {
	case !o.known:
		return "none"
	case o.erased:
		return "erased"
	case o.deleted:
		return "deleted"
	}
	return "active"
}

// effect is the timeline's summary of what changed between two observations.
func effect(before, after observation, subs map[string]*sub) string {
	var parts []string
	if a, b := before.account(), after.account(); a != b && after.known {
		parts = append(parts, "account "+a+"→"+b)
	}
	if before.tier != after.tier && after.known && !after.erased {
		parts = append(parts, "tier "+or(before.tier, "-")+"→"+after.tier)
	}
	if before.balance != after.balance {
		parts = append(parts, fmt.Sprintf("balance %d→%d (%+d)", before.balance, after.balance, after.balance-before.balance))
	}
	for _, l := range sortedKeys(subs) {
		id := subs[l].id
		a, b := before.subs[id], after.subs[id]
		if a.Status != b.Status && b.Status != "" {
			parts = append(parts, fmt.Sprintf("%s %s→%s", l, or(a.Status, "-"), b.Status))
		}
		if a.Quantity != b.Quantity && a.Status != "" && b.Status != "" {
			parts = append(parts, fmt.Sprintf("%s seats %d→%d", l, a.Quantity, b.Quantity))
		}
	}
	if len(parts) == 0 {
		return "no change"
	}
	return strings.Join(parts, ", ")
}

// mismatch is a failed expectation: what, expected and actual.
type mismatch struct {
	what             string
	expected, actual any
}

func (m mismatch) Error() string {
	return fmt.Sprintf("%s: expected %v, got %v", m.what, m.expected, m.actual)
}

// check holds the observation (and what the expectation asks beyond it) to e; the first difference is
// the error.
func (r *runner) check(ctx context.Context, e *Expect, o observation) ([]string, error) {
	var ok []string
	if len(e.Usage) > 0 {
		if err := r.checkUsage(ctx, e.Usage); err != nil {
			return nil, err
		}
		ok = append(ok, "usage")
	}
	if e.Account != nil {
		if o.account() != *e.Account {
			return nil, mismatch{"account", *e.Account, o.account()}
		}
		ok = append(ok, "account="+*e.Account)
	}
	if e.Tier != nil {
		if o.tier != *e.Tier {
			return nil, mismatch{"tier", *e.Tier, o.tier}
		}
		ok = append(ok, "tier="+*e.Tier)
	}
	if e.Balance != nil {
		if o.balance != *e.Balance {
			return nil, mismatch{"balance", *e.Balance, o.balance}
		}
		ok = append(ok, fmt.Sprintf("balance=%d", *e.Balance))
	}
	if e.Status != nil || e.Seats != nil || e.Flags != nil {
		s, err := r.m.sub(e.Sub)
		if err != nil {
			return nil, err
		}
		v := o.subs[s.id]
		if e.Status != nil && v.Status != *e.Status {
			return nil, mismatch{"subscription " + s.label + " status", *e.Status, or(v.Status, "none")}
		}
		if e.Seats != nil && v.Quantity != *e.Seats {
			return nil, mismatch{"subscription " + s.label + " seats", *e.Seats, v.Quantity}
		}
		if e.Flags != nil && fmt.Sprint(*e.Flags) != fmt.Sprint(v.Flags) && len(*e.Flags)+len(v.Flags) > 0 {
			return nil, mismatch{"subscription " + s.label + " flags", *e.Flags, v.Flags}
		}
		ok = append(ok, "subscription")
	}
	if e.bucketsSet {
		if err := r.checkBuckets(ctx, e.Buckets); err != nil {
			return nil, err
		}
		ok = append(ok, fmt.Sprintf("buckets(%d)", len(e.Buckets)))
	}
	if len(e.Ledger) > 0 {
		sums, err := r.ledgerSums(ctx)
		if err != nil {
			return nil, err
		}
		for _, k := range sortedKeys(e.Ledger) {
			if sums[k] != e.Ledger[k] {
				return nil, mismatch{"ledger " + k + " (sum of the movements' deltas)", e.Ledger[k], sums[k]}
			}
		}
		ok = append(ok, "ledger")
	}
	if len(e.Emails) > 0 {
		counts, err := r.emailCounts(ctx)
		if err != nil {
			return nil, err
		}
		for _, k := range sortedKeys(e.Emails) {
			if counts[k] != e.Emails[k] {
				return nil, mismatch{"emails " + k, e.Emails[k], counts[k]}
			}
		}
		ok = append(ok, "emails")
	}
	return ok, nil
}

// featureView is what a check reads of a feature's entitlement.
type featureView struct {
	Feature   string `json:"feature"`
	Enabled   bool   `json:"enabled"`
	Used      int64  `json:"used"`
	Remaining *int64 `json:"remaining"`
}

// checkUsage reads the user's entitlements with their session and compares the features named.
func (r *runner) checkUsage(ctx context.Context, want map[string]UsageExpect) error {
	tok, err := r.c.token(r.m.clerkID, r.m.email)
	if err != nil {
		return err
	}
	var got struct {
		Features []featureView `json:"features"`
	}
	if _, err := r.c.call(ctx, http.MethodGet, "/api/v1/entitlements", tok, nil, &got); err != nil {
		return err
	}
	for _, name := range sortedKeys(want) {
		w := want[name]
		i := slices.IndexFunc(got.Features, func(f featureView) bool { return f.Feature == name })
		if i < 0 {
			return mismatch{"usage " + name, "a feature of the tiers file", "no such feature"}
		}
		f := got.Features[i]
		if w.Enabled != nil && f.Enabled != *w.Enabled {
			return mismatch{"usage " + name + " enabled", *w.Enabled, f.Enabled}
		}
		if w.Used != nil && f.Used != *w.Used {
			return mismatch{"usage " + name + " used", *w.Used, f.Used}
		}
		if w.Remaining != nil && (f.Remaining == nil || *f.Remaining != *w.Remaining) {
			var rem any = "unlimited"
			if f.Remaining != nil {
				rem = *f.Remaining
			}
			return mismatch{"usage " + name + " remaining", *w.Remaining, rem}
		}
	}
	return nil
}

type bucketView struct {
	Category  string     `json:"category"`
	Remaining int        `json:"remaining"`
	ExpiresAt *time.Time `json:"expires_at"`
}

func (r *runner) checkBuckets(ctx context.Context, want []Bucket) error {
	tok, err := r.c.token(r.m.clerkID, r.m.email)
	if err != nil {
		return err
	}
	var got struct {
		Buckets []bucketView `json:"buckets"`
	}
	if _, err := r.c.call(ctx, http.MethodGet, "/api/v1/billing/credits?limit=1", tok, nil, &got); err != nil {
		return err
	}
	render := func(b bucketView) string {
		exp := "never"
		if b.ExpiresAt != nil {
			exp = b.ExpiresAt.UTC().Format(time.RFC3339)
		}
		return fmt.Sprintf("%s %d (expires %s)", b.Category, b.Remaining, exp)
	}
	var have []string
	for _, b := range got.Buckets {
		have = append(have, render(b))
	}
	if len(got.Buckets) != len(want) {
		return mismatch{"buckets (in burn order)", fmt.Sprintf("%d buckets", len(want)), fmt.Sprintf("%d: %s", len(have), strings.Join(have, "; "))}
	}
	for i, w := range want {
		g := got.Buckets[i]
		exp := "never"
		if g.ExpiresAt != nil {
			exp = g.ExpiresAt.UTC().Format(time.RFC3339)
		}
		if g.Category != w.Category || g.Remaining != w.Remaining || (w.Expires != "" && !sameTime(w.Expires, exp)) {
			return mismatch{fmt.Sprintf("bucket %d (in burn order)", i+1),
				fmt.Sprintf("%s %d (expires %s)", w.Category, w.Remaining, or(w.Expires, "any")), render(g)}
		}
	}
	return nil
}

func sameTime(want, got string) bool {
	if want == got {
		return true
	}
	a, err1 := time.Parse(time.RFC3339, want)
	b, err2 := time.Parse(time.RFC3339, got)
	return err1 == nil && err2 == nil && a.Equal(b)
}

type movement struct {
	Kind   string `json:"kind"`
	Delta  int    `json:"delta"`
	JobID  string `json:"job_id"`
	Reason string `json:"reason"`
}

// ledger is the user's whole ledger, through the admin API's pages.
func (r *runner) ledger(ctx context.Context) ([]movement, error) {
	var out []movement
	cursor := ""
	for {
		var page struct {
			Items      []movement `json:"items"`
			NextCursor string     `json:"next_cursor"`
		}
		q := url.Values{"limit": {"100"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		if _, err := r.c.asAdmin(ctx, http.MethodGet, "/api/v1/admin/users/"+r.userID+"/credits?"+q.Encode(), nil, &page); err != nil {
			return nil, err
		}
		out = append(out, page.Items...)
		if cursor = page.NextCursor; cursor == "" {
			return out, nil
		}
	}
}

func (r *runner) ledgerSums(ctx context.Context) (map[string]int, error) {
	moves, err := r.ledger(ctx)
	sums := map[string]int{}
	for _, m := range moves {
		sums[m.Kind] += m.Delta
	}
	return sums, err
}

type queuedEmail struct {
	Template       string `json:"template"`
	IdempotencyKey string `json:"idempotency_key"`
}

func (r *runner) emails(ctx context.Context) ([]queuedEmail, error) {
	var list struct {
		Items []queuedEmail `json:"items"`
	}
	_, err := r.c.asAdmin(ctx, http.MethodGet, "/api/v1/dev/emails?"+url.Values{"to": {r.m.email}}.Encode(), nil, &list)
	return list.Items, err
}

func (r *runner) emailCounts(ctx context.Context) (map[string]int, error) {
	list, err := r.emails(ctx)
	counts := map[string]int{}
	for _, e := range list {
		counts[e.Template]++
	}
	return counts, err
}

// outcome is the run's end state with every id of the run replaced by its canonical name: equal for the
// orderly run and any chaos run of the same scenario, or the chaos found something.
func (r *runner) outcome(ctx context.Context, o observation) ([]string, error) {
	out := []string{"account " + o.account(), "tier " + o.tier, fmt.Sprintf("balance %d", o.balance)}
	if !o.known || o.erased {
		return out, nil
	}
	for _, id := range sortedKeys(o.subs) {
		s := o.subs[id]
		revoked := s.Revoked != nil
		out = append(out, r.m.ids.normalize(fmt.Sprintf("subscription %s %s tier=%s seats=%d price=%s revoked=%v flags=%v",
			id, s.Status, s.Tier, s.Quantity, s.Price, revoked, s.Flags)))
	}
	moves, err := r.ledger(ctx)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, m := range moves {
		lines = append(lines, r.m.ids.normalize(fmt.Sprintf("movement %s %+d %s (%s)", m.Kind, m.Delta, m.JobID, m.Reason)))
	}
	mails, err := r.emails(ctx)
	if err != nil {
		return nil, err
	}
	for _, e := range mails {
		lines = append(lines, r.m.ids.normalize("email "+e.Template+" "+e.IdempotencyKey))
	}
	sort.Strings(lines)
	return append(out, lines...), nil
}
