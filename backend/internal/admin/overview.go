package admin

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/broadcast"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// OverviewDays is the length of every window of the overview: the per-day series (UTC days, today
// included) and the churn count.
const OverviewDays = 30

// RevenueSource computes revenue on a transaction (*billing.Service: MRR needs the tiers file's amounts).
type RevenueSource interface {
	RevenueTx(ctx context.Context, tx *gorm.DB) (billing.Revenue, error)
}

// Overview is the operator's business dashboard, read from one snapshot at one now(): revenue, churn,
// activity, acquisition, mailing, webhook deliveries and the ledger. Every series has one entry per UTC
// day from Since through GeneratedAt's day, zeros included.
type Overview struct {
	GeneratedAt time.Time
	Since       time.Time
	Revenue     billing.Revenue
	Churn       Churn
	Activity    account.Activity
	Acquisition Acquisition
	Mailing     []MailDay
	Webhooks    []CountsDay
	Credits     []credits.Day
}

// Churn is the subscriptions canceled in the last OverviewDays days.
type Churn struct {
	Canceled int64
	ByTier   []billing.TierCount
}

// Acquisition is the signups of the window, in total and by utm_source ("" when none was recorded).
type Acquisition struct {
	Signups  int64
	BySource map[string]int64
	Days     []CountsDay // Counts by utm_source
}

// CountsDay is one day's counts by a key (utm_source, a delivery's processing status).
type CountsDay struct {
	Day    time.Time
	Total  int64
	Counts map[string]int64
}

// MailDay is one day of broadcast recipients by outcome.
type MailDay struct {
	Day                   time.Time
	Sent, Skipped, Failed int64
}

// Overview reads the dashboard. Each section comes from its table's owner, each query bounded by an
// index to its window (docs/benchmarks.md has the 100k-user figure); revenue reads the live subscriptions.
func (s *Service) Overview(ctx context.Context) (Overview, error) {
	var o Overview
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// now() is the transaction's start: one instant for every section.
		if err := tx.Raw(`SELECT now()`).Row().Scan(&o.GeneratedAt); err != nil {
			return err
		}
		o.GeneratedAt = o.GeneratedAt.UTC()
		today := o.GeneratedAt.Truncate(24 * time.Hour)
		o.Since = today.AddDate(0, 0, -(OverviewDays - 1))
		return s.readOverview(ctx, tx, &o)
	}, snapshot)
	if err != nil {
		return Overview{}, fmt.Errorf("admin overview: %w", err)
	}
	return o, nil
}

func (s *Service) readOverview(ctx context.Context, tx *gorm.DB, o *Overview) error {
	var err error
	if s.revenue != nil {
		if o.Revenue, err = s.revenue.RevenueTx(ctx, tx); err != nil {
			return err
		}
	}
	if o.Churn.ByTier, err = billing.CanceledSinceTx(ctx, tx, o.GeneratedAt.AddDate(0, 0, -OverviewDays)); err != nil {
		return err
	}
	for _, c := range o.Churn.ByTier {
		o.Churn.Canceled += c.Count
	}
	if o.Activity, err = account.ActivityTx(ctx, tx, o.GeneratedAt); err != nil {
		return err
	}
	signups, err := account.SignupsPerDayTx(ctx, tx, o.Since)
	if err != nil {
		return err
	}
	o.Acquisition = acquisition(o.Since, signups)
	mailing, err := broadcast.MailingPerDayTx(ctx, tx, o.Since)
	if err != nil {
		return err
	}
	o.Mailing = mailDays(o.Since, mailing)
	deliveries, err := webhook.DeliveriesPerDayTx(ctx, tx, o.Since)
	if err != nil {
		return err
	}
	o.Webhooks = countsDays(o.Since, deliveries, func(d webhook.OutcomeDay) (time.Time, string, int64) { return d.Day, d.Status, d.Count })
	ledger, err := s.ledger.WithTx(tx).PerDay(ctx, o.Since)
	if err != nil {
		return err
	}
	o.Credits = creditDays(o.Since, ledger)
	return nil
}

// days are the OverviewDays UTC days from since.
func days(since time.Time) []time.Time {
	out := make([]time.Time, OverviewDays)
	for i := range out {
		out[i] = since.AddDate(0, 0, i)
	}
	return out
}

// dayIndex is d's position in the window, or -1 outside it.
func dayIndex(since, d time.Time) int {
	i := int(d.UTC().Sub(since).Hours() / 24)
	if i < 0 || i >= OverviewDays {
		return -1
	}
	return i
}

func countsDays[T any](since time.Time, rows []T, key func(T) (time.Time, string, int64)) []CountsDay {
	out := make([]CountsDay, OverviewDays)
	for i, d := range days(since) {
		out[i] = CountsDay{Day: d, Counts: map[string]int64{}}
	}
	for _, r := range rows {
		d, k, n := key(r)
		if i := dayIndex(since, d); i >= 0 {
			out[i].Counts[k] += n
			out[i].Total += n
		}
	}
	return out
}

func acquisition(since time.Time, rows []account.SourceDay) Acquisition {
	a := Acquisition{BySource: map[string]int64{},
		Days: countsDays(since, rows, func(r account.SourceDay) (time.Time, string, int64) { return r.Day, r.Source, r.Count })}
	for _, d := range a.Days {
		for k, n := range d.Counts {
			a.BySource[k] += n
			a.Signups += n
		}
	}
	return a
}

func mailDays(since time.Time, rows []broadcast.StatusDay) []MailDay {
	out := make([]MailDay, OverviewDays)
	for i, d := range days(since) {
		out[i].Day = d
	}
	for _, r := range rows {
		i := dayIndex(since, r.Day)
		if i < 0 {
			continue
		}
		switch r.Status {
		case broadcast.RecipientSent:
			out[i].Sent += r.Count
		case broadcast.RecipientSkipped:
			out[i].Skipped += r.Count
		case broadcast.RecipientFailed:
			out[i].Failed += r.Count
		}
	}
	return out
}

func creditDays(since time.Time, rows []credits.Day) []credits.Day {
	out := make([]credits.Day, OverviewDays)
	for i, d := range days(since) {
		out[i].Day = d
	}
	for _, r := range rows {
		if i := dayIndex(since, r.Day); i >= 0 {
			r.Day = out[i].Day
			out[i] = r
		}
	}
	return out
}
