package verify

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// The verify_alerts table belongs to this package: what the daily job has told the operators, one row per
// (check, subject) while the violation lasts. It is the job's memory, so an operator is mailed once per
// new violation rather than once a day for as long as it takes to understand it.

// Notify tells the operators about violations no earlier run had alerted, inside the transaction that
// records them: the record and the alert (an email job) commit together or not at all.
type Notify func(ctx context.Context, tx *gorm.DB, fresh []Violation) error

// Alerted is what Alert did.
type Alerted struct {
	// New are the violations no earlier run had alerted (or that had been resolved and came back).
	New []Violation
	// Resolved counts alerted violations this run no longer found.
	Resolved int
}

// Alert records the report's violations and calls notify with the new ones (not when there are none).
// A violation is identified by its check and subject: its detail may change from run to run (a balance
// drifting further) without it being a new one. An alerted violation the run no longer finds is marked
// resolved, except in a check that found more than it kept (Result.Truncated): there, one not among the
// first few may still be there. Runs are serialised by an advisory lock, so two at once alert once.
func Alert(ctx context.Context, db *gorm.DB, rep Report, now time.Time, notify Notify) (Alerted, error) {
	var out Alerted
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		out = Alerted{}
		if err := tx.Exec(`SELECT pg_advisory_xact_lock(hashtextextended('verify_alerts', 0))`).Error; err != nil {
			return err
		}
		for _, res := range rep.Results {
			fresh, resolved, err := record(tx, res, now)
			if err != nil {
				return err
			}
			out.New = append(out.New, fresh...)
			out.Resolved += resolved
		}
		if len(out.New) == 0 {
			return nil
		}
		return notify(ctx, tx, out.New)
	})
	if err != nil {
		return Alerted{}, fmt.Errorf("verify alerts: %w", err)
	}
	return out, nil
}

// record brings one check's rows in step with its result and returns the violations that are new.
func record(tx *gorm.DB, res Result, now time.Time) ([]Violation, int, error) {
	var open []string
	if err := tx.Raw(`SELECT subject FROM verify_alerts WHERE check_name = ? AND resolved_at IS NULL`,
		res.Check.Name).Scan(&open).Error; err != nil {
		return nil, 0, err
	}
	seen := make(map[string]bool, len(open))
	for _, s := range open {
		seen[s] = false
	}
	var fresh []Violation
	for _, v := range res.Violations {
		if _, ok := seen[v.Subject]; !ok {
			fresh = append(fresh, v)
		}
		seen[v.Subject] = true
		// A resolved row that comes back starts over: new first_seen_at and detail, alerted again.
		if err := tx.Exec(`INSERT INTO verify_alerts (check_name, subject, detail, first_seen_at, last_seen_at)
			VALUES (?, ?, ?, ?, ?)
			ON CONFLICT ON CONSTRAINT pk_verify_alerts DO UPDATE SET last_seen_at = EXCLUDED.last_seen_at,
			  detail = CASE WHEN verify_alerts.resolved_at IS NULL THEN verify_alerts.detail ELSE EXCLUDED.detail END,
			  first_seen_at = CASE WHEN verify_alerts.resolved_at IS NULL THEN verify_alerts.first_seen_at ELSE EXCLUDED.first_seen_at END,
			  resolved_at = NULL`, res.Check.Name, v.Subject, v.Detail, now, now).Error; err != nil {
			return nil, 0, err
		}
	}
	if res.Truncated() {
		return fresh, 0, nil
	}
	var gone []string
	for s, found := range seen {
		if !found {
			gone = append(gone, s)
		}
	}
	if len(gone) == 0 {
		return fresh, 0, nil
	}
	err := tx.Exec(`UPDATE verify_alerts SET resolved_at = ? WHERE check_name = ? AND subject IN ? AND resolved_at IS NULL`,
		now, res.Check.Name, gone).Error
	return fresh, len(gone), err
}
