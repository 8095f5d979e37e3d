package simulate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
)

// The chaos model (docs/simulate.md). Paddle and Svix deliver at least once, in no guaranteed order, retry
// whatever was not answered 2xx for days, and re-sign every attempt. What the rules promise to converge
// on, and therefore what chaos does:
//   - every event is delivered 1 to 3 times;
//   - within a step's window (the events Paddle sends for one action at one moment: a checkout's
//     transaction.completed, subscription.created and .activated; a renewal's transaction and snapshot)
//     the deliveries are shuffled and sent in rounds of 1 to 3 at once, duplicates racing each other;
//   - a delivery answered anything but 2xx (a renewal before its subscription is known) is retried after
//     the rest of the window, as Paddle would, up to 8 times;
//   - a third of the extra copies are held back and delivered after one of the next four steps, or at the
//     end: after later events, after the clock moved on (a redelivery of a delivery whose 200 Paddle
//     never saw).
//
// What chaos does not do: move an event's first delivery past a later step. The rules do not make every
// such order converge, on purpose: a month whose first snapshot is already an upgrade is granted the
// upgraded allowance (docs/billing.md), a past_due that arrives after the recovery mails nothing. Spends,
// API calls and clock moves are barriers: everything of the window before them has been delivered.
//
// The schedule comes from the seed and the scenario alone (never from the server's answers), so the same
// seed gives the same schedule; it is printed under each step.
type scheduler struct {
	chaos bool
	rng   *rand.Rand
	// late are the held-back copies, by the step after which they are delivered (-1: at the end).
	late map[int][]copyOf
	// steps is the scenario's length, to aim held-back copies.
	steps int
}

// copyOf is one delivery attempt of an event.
type copyOf struct {
	ev *event
	n  int // 1 for the first copy
}

func (c copyOf) String() string { return fmt.Sprintf("%s#%d", c.ev.typ, c.n) }

func newScheduler(chaos bool, seed uint64, scenario string, steps int) *scheduler {
	h := uint64(14695981039346656037)
	for _, b := range []byte(scenario) {
		h = (h ^ uint64(b)) * 1099511628211
	}
	return &scheduler{chaos: chaos, rng: rand.New(rand.NewPCG(seed, h)), late: map[int][]copyOf{}, steps: steps}
}

// plan turns a window's events into rounds of concurrent copies, holding some copies back; it only
// draws from the seeded generator.
func (s *scheduler) plan(step int, evs []event) (rounds [][]copyOf, held []string) {
	var window []copyOf
	for i := range evs {
		ev := &evs[i]
		copies := 1
		if s.chaos {
			copies += s.rng.IntN(3)
		}
		for n := 1; n <= copies; n++ {
			c := copyOf{ev: ev, n: n}
			if n > 1 && s.rng.IntN(3) == 0 {
				after := step + 1 + s.rng.IntN(4)
				if after >= s.steps {
					after = -1
				}
				s.late[after] = append(s.late[after], c)
				where := fmt.Sprintf("after step %d", after+1)
				if after < 0 {
					where = "at the end"
				}
				held = append(held, c.String()+" "+where)
				continue
			}
			window = append(window, c)
		}
	}
	if !s.chaos {
		for _, c := range window {
			rounds = append(rounds, []copyOf{c})
		}
		return rounds, nil
	}
	s.rng.Shuffle(len(window), func(i, j int) { window[i], window[j] = window[j], window[i] })
	for len(window) > 0 {
		n := min(1+s.rng.IntN(3), len(window))
		rounds = append(rounds, window[:n])
		window = window[n:]
	}
	return rounds, held
}

// describe prints a schedule: rounds separated by |, copies of one round (sent at once) by +.
func describe(rounds [][]copyOf, held []string) string {
	parts := make([]string, 0, len(rounds))
	for _, r := range rounds {
		names := make([]string, 0, len(r))
		for _, c := range r {
			names = append(names, c.String())
		}
		parts = append(parts, strings.Join(names, " + "))
	}
	out := strings.Join(parts, " | ")
	if len(held) > 0 {
		out += "; held back: " + strings.Join(held, ", ")
	}
	return out
}

// deliverRounds sends each round's copies at once and retries what was not accepted, after the rest;
// an event counts as delivered once any copy of it was accepted. A delivery failed for good (archived
// failed: a forgery, a payload billing refuses) is an error at once: no retry heals it.
func (r *runner) deliverRounds(ctx context.Context, rounds [][]copyOf) error {
	var retry []copyOf
	for _, round := range rounds {
		type result struct {
			c       copyOf
			ok      bool
			answer  string
			failed  bool
			callErr error
		}
		results := make([]result, len(round))
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, c := range round {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				a, ok, err := r.c.deliver(ctx, r.m.b, c.ev.provider, c.ev.d)
				results[i] = result{c: c, ok: ok, answer: a.String(), failed: a.OK() && !ok, callErr: err}
			}()
		}
		close(start)
		wg.Wait()
		for _, res := range results {
			switch {
			case res.callErr != nil:
				return res.callErr
			case res.failed:
				return fmt.Errorf("%s %s was refused for good: %s", res.c.ev.provider, res.c, res.answer)
			case !res.ok:
				if !r.sched.chaos {
					return fmt.Errorf("%s %s: %s", res.c.ev.provider, res.c, res.answer)
				}
				retry = append(retry, res.c)
			}
		}
	}
	for attempt := 1; len(retry) > 0; attempt++ {
		var again []copyOf
		for _, c := range retry {
			a, ok, err := r.c.deliver(ctx, r.m.b, c.ev.provider, c.ev.d)
			if err != nil {
				return err
			}
			if !ok {
				if attempt == 8 {
					return fmt.Errorf("%s %s still not accepted after %d retries: %s", c.ev.provider, c, attempt, a)
				}
				again = append(again, c)
			}
		}
		retry = again
	}
	return nil
}
