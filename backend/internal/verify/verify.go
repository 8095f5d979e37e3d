// Package verify runs read-only consistency checks over the database: every piece of derived state (a
// balance, a bucket's remaining credits, a usage counter, a tier) recomputed from the rows it is derived
// from, and every invariant the schema cannot express. Each check belongs to the package that owns its
// tables; this package only runs them in one snapshot and reports. It never fixes anything: a difference
// is a bug to understand, not a number to overwrite.
//
// A check that spans two owners' tables reads the other owner's rows through a view the owner publishes
// (a SQL subquery constant, such as account.TierView), so no package writes SQL against a table it does
// not own.
package verify

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Violation is one difference a check found.
type Violation struct {
	Check   string `json:"check"`
	Subject string `json:"subject"` // what it is about: a user, a bucket, a movement id
	Detail  string `json:"detail"`  // what was expected and what was found
}

// Scope narrows a run; the zero value checks everything.
type Scope struct {
	// UserID limits the checks that are per user to that user (others run whole).
	UserID *uuid.UUID
	// Now is the application's clock, for checks that compare with times the application decided by it
	// (a period's end, a deduct's deadline); zero: the database's now(). In development the clock may
	// have been moved (docs/simulate.md), and a check on the database's time would then judge a
	// simulated month by the real one.
	Now time.Time
}

// At is the scope's time as a query parameter (nil: the database's now(); spell it
// coalesce(CAST(@now AS timestamptz), now()) in SQL).
func (s Scope) At() any {
	if s.Now.IsZero() {
		return nil
	}
	return s.Now
}

// User is the scope's user as a query parameter: its id as text, or nil (SQL NULL) for every user.
func (s Scope) User() any {
	if s.UserID == nil {
		return nil
	}
	return s.UserID.String()
}

// Check is one named check. Run reads through tx (a read-only snapshot) and returns what it found.
type Check struct {
	Name string
	// Area groups checks for `fabrica verify AREA` (ledger, usage, billing, webhooks, ...).
	Area string
	// Doc says in one line what the check holds.
	Doc string
	Run func(ctx context.Context, tx *gorm.DB, s Scope) ([]Violation, error)
}

// MaxReported is how many violations of one check a run keeps (the first ones by subject); Result.Count
// is how many there were. A broken invariant on a large database can have millions of violations: the
// first few say what is wrong, the count says how much.
const MaxReported = 20

// Result is one check's outcome.
type Result struct {
	Check Check
	// Violations are the first MaxReported violations, ordered by subject.
	Violations []Violation
	// Count is how many violations the check found in all.
	Count int
	Took  time.Duration
}

// Truncated reports whether the check found more violations than it kept.
func (r Result) Truncated() bool { return r.Count > len(r.Violations) }

// Report is a whole run.
type Report struct {
	Results []Result
	Took    time.Duration
}

// Violations counts every violation of the run.
func (r Report) Violations() int {
	n := 0
	for _, res := range r.Results {
		n += res.Count
	}
	return n
}

// String lists every violation kept, one a line, for a test failure or a log.
func (r Report) String() string {
	var b strings.Builder
	for _, res := range r.Results {
		for _, v := range res.Violations {
			fmt.Fprintf(&b, "%s: %s: %s\n", v.Check, v.Subject, v.Detail)
		}
		if res.Truncated() {
			fmt.Fprintf(&b, "%s: ... %d more\n", res.Check.Name, res.Count-len(res.Violations))
		}
	}
	return b.String()
}

// Run runs checks in one REPEATABLE READ, READ ONLY transaction, so they all see one consistent state
// of a live database (a spend committing between two checks cannot look like a difference) and none can
// write. A check that errors stops the run: an unanswered check is not a passed one.
func Run(ctx context.Context, db *gorm.DB, checks []Check, s Scope) (Report, error) {
	var rep Report
	start := time.Now()
	// A check scans: its statements are slow by nature and its errors are returned, so the pool's slow
	// statement log stays quiet here; the report has each check's time.
	quiet := db.Session(&gorm.Session{Logger: db.Logger.LogMode(logger.Silent)})
	err := quiet.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for _, c := range checks {
			t := &tally{count: -1}
			began := time.Now()
			v, err := c.Run(withTally(ctx, t), tx, s)
			if err != nil {
				return fmt.Errorf("verify %s: %w", c.Name, err)
			}
			rep.Results = append(rep.Results, result(c, v, t, time.Since(began)))
		}
		return nil
	}, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	rep.Took = time.Since(start)
	return rep, err
}

// result keeps the first MaxReported of a check's violations, by subject. The count is what Rows saw
// in SQL when the check used it (it fetched only the first few), else how many the check returned.
func result(c Check, v []Violation, t *tally, took time.Duration) Result {
	count := len(v)
	if t.count >= 0 {
		count = max(t.count, len(v))
	}
	slices.SortStableFunc(v, func(a, b Violation) int {
		return cmp.Or(strings.Compare(a.Subject, b.Subject), strings.Compare(a.Detail, b.Detail))
	})
	for i := range v {
		v[i].Check = c.Name
	}
	return Result{Check: c, Violations: v[:min(len(v), MaxReported)], Count: count, Took: took}
}

// tally carries the full count of a check's violations from Rows back to Run. It travels in the context
// so that Check.Run keeps its one signature (every package's checks, and those still to come, are written
// against it) while each Rows query fetches only the first MaxReported rows.
type tally struct{ count int }

type tallyKey struct{}

func withTally(ctx context.Context, t *tally) context.Context {
	return context.WithValue(ctx, tallyKey{}, t)
}

// Rows runs query (which returns subject and detail columns) and turns each row into a violation of
// check. It fetches the first MaxReported rows by subject and counts all of them in the same statement
// (a window count, computed before the LIMIT), so a check that finds a million differences still moves
// only a few rows. Several Rows calls in one check add up. query must not end in a semicolon.
func Rows(ctx context.Context, tx *gorm.DB, check, query string, args ...any) ([]Violation, error) {
	var rows []struct {
		Subject, Detail string
		Total           int
	}
	// MATERIALIZED plans the check on its own, as the full scan it is: left inline, the LIMIT invites
	// Postgres to sort every candidate row by subject first and probe them one by one (measured ten times
	// slower on a million claims), though the count needs all of them anyway.
	wrapped := `WITH v AS MATERIALIZED (` + query + `)
		SELECT subject::text AS subject, detail::text AS detail, count(*) OVER () AS total FROM v
		 ORDER BY v.subject::text COLLATE "C", v.detail::text COLLATE "C" LIMIT ` + fmt.Sprint(MaxReported)
	if err := tx.WithContext(ctx).Raw(wrapped, args...).Scan(&rows).Error; err != nil {
		return nil, err
	}
	out := make([]Violation, 0, len(rows))
	for _, r := range rows {
		out = append(out, Violation{Check: check, Subject: r.Subject, Detail: r.Detail})
	}
	if t, ok := ctx.Value(tallyKey{}).(*tally); ok {
		total := 0
		if len(rows) > 0 {
			total = rows[0].Total
		}
		t.count = max(t.count, 0) + total
	}
	return out, nil
}

// Areas lists the areas of checks, in the order they first appear.
func Areas(checks []Check) []string {
	var out []string
	for _, c := range checks {
		if !slices.Contains(out, c.Area) {
			out = append(out, c.Area)
		}
	}
	return out
}

// Select keeps the checks of the given areas (all of them when areas is empty); an area no check has is
// an error that lists the known ones.
func Select(checks []Check, areas []string) ([]Check, error) {
	if len(areas) == 0 {
		return checks, nil
	}
	known := Areas(checks)
	for _, a := range areas {
		if !slices.Contains(known, a) {
			return nil, fmt.Errorf("unknown area %q (known: %s)", a, strings.Join(known, ", "))
		}
	}
	var out []Check
	for _, c := range checks {
		if slices.Contains(areas, c.Area) {
			out = append(out, c)
		}
	}
	return out, nil
}
