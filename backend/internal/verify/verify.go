// Package verify runs read-only consistency checks over the database: every piece of derived state (a
// balance, a bucket's remaining credits, a usage counter, a tier) recomputed from the rows it is derived
// from, and every invariant the schema cannot express. Each check belongs to the package that owns its
// tables; this package only runs them in one snapshot and reports. It never fixes anything: a difference
// is a bug to understand, not a number to overwrite.
package verify

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
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

// Result is one check's outcome.
type Result struct {
	Check      Check
	Violations []Violation
	Took       time.Duration
}

// Report is a whole run.
type Report struct {
	Results []Result
}

// Violations counts every violation of the run.
func (r Report) Violations() int {
	n := 0
	for _, res := range r.Results {
		n += len(res.Violations)
	}
	return n
}

// Run runs checks in one REPEATABLE READ, READ ONLY transaction, so they all see one consistent state
// of a live database (a spend committing between two checks cannot look like a difference) and none can
// write. A check that errors stops the run: an unanswered check is not a passed one.
func Run(ctx context.Context, db *gorm.DB, checks []Check, s Scope) (Report, error) {
	var rep Report
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for _, c := range checks {
			start := time.Now()
			v, err := c.Run(ctx, tx, s)
			if err != nil {
				return fmt.Errorf("verify %s: %w", c.Name, err)
			}
			rep.Results = append(rep.Results, Result{Check: c, Violations: v, Took: time.Since(start)})
		}
		return nil
	}, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	return rep, err
}

// Rows runs query (which returns subject and detail) and turns each row into a violation of check.
func Rows(ctx context.Context, tx *gorm.DB, check, query string, args ...any) ([]Violation, error) {
	var rows []struct{ Subject, Detail string }
	if err := tx.WithContext(ctx).Raw(query, args...).Scan(&rows).Error; err != nil {
		return nil, err
	}
	out := make([]Violation, 0, len(rows))
	for _, r := range rows {
		out = append(out, Violation{Check: check, Subject: r.Subject, Detail: r.Detail})
	}
	return out, nil
}
