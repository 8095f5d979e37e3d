package httpapi

import (
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/admin"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
)

// The admin metrics overview's JSON. Days are UTC dates ("2026-03-31").

const dayFormat = time.DateOnly

type overviewResponse struct {
	GeneratedAt time.Time        `json:"generated_at"`
	Since       string           `json:"since"`
	Days        int              `json:"days"`
	Revenue     revenueView      `json:"revenue"`
	Churn       churnView        `json:"churn"`
	Activity    activityView     `json:"activity"`
	Acquisition acquisitionView  `json:"acquisition"`
	Mailing     []mailDayView    `json:"mailing"`
	Webhooks    []webhookDayView `json:"webhooks"`
	Credits     []creditsDayView `json:"credits"`
}

type revenueView struct {
	// MRR is minor units per month by currency.
	MRR           map[string]int64  `json:"mrr"`
	Subscriptions int               `json:"subscriptions"`
	Unpriced      int               `json:"unpriced"`
	Discounted    int               `json:"discounted"`
	FromTiersFile int               `json:"from_tiers_file"`
	ByTier        []tierRevenueView `json:"by_tier"`
}

type tierRevenueView struct {
	Tier          string           `json:"tier"`
	MRR           map[string]int64 `json:"mrr"`
	Subscriptions int              `json:"subscriptions"`
	Unpriced      int              `json:"unpriced"`
}

type churnView struct {
	Canceled int64           `json:"canceled"`
	ByTier   []tierCountView `json:"by_tier"`
}

type tierCountView struct {
	Tier  string `json:"tier"`
	Count int64  `json:"count"`
}

type activityView struct {
	DAU int64 `json:"dau"`
	WAU int64 `json:"wau"`
	MAU int64 `json:"mau"`
}

type acquisitionView struct {
	Signups  int64            `json:"signups"`
	BySource map[string]int64 `json:"by_source"`
	Days     []signupDayView  `json:"days"`
}

type signupDayView struct {
	Day      string           `json:"day"`
	Signups  int64            `json:"signups"`
	BySource map[string]int64 `json:"by_source"`
}

type mailDayView struct {
	Day     string `json:"day"`
	Sent    int64  `json:"sent"`
	Skipped int64  `json:"skipped"`
	Failed  int64  `json:"failed"`
}

type webhookDayView struct {
	Day       string           `json:"day"`
	Total     int64            `json:"total"`
	ByOutcome map[string]int64 `json:"by_outcome"`
}

type creditsDayView struct {
	Day      string `json:"day"`
	Granted  int64  `json:"granted"`
	Spent    int64  `json:"spent"`
	Refunded int64  `json:"refunded"`
	// Expired is every write-off of the day; RolledOver what rollovers carried on. Breakage is the difference.
	Expired    int64 `json:"expired"`
	RolledOver int64 `json:"rolled_over"`
}

func toOverviewResponse(o admin.Overview) overviewResponse {
	out := overviewResponse{GeneratedAt: o.GeneratedAt, Since: o.Since.Format(dayFormat), Days: admin.OverviewDays,
		Revenue: toRevenueView(o.Revenue), Activity: activityView{DAU: o.Activity.DAU, WAU: o.Activity.WAU, MAU: o.Activity.MAU},
		Churn: churnView{Canceled: o.Churn.Canceled, ByTier: toPage(o.Churn.ByTier, "", func(c billing.TierCount) tierCountView {
			return tierCountView{Tier: c.Tier, Count: c.Count}
		}).Items},
		Acquisition: acquisitionView{Signups: o.Acquisition.Signups, BySource: o.Acquisition.BySource,
			Days: toPage(o.Acquisition.Days, "", func(d admin.CountsDay) signupDayView {
				return signupDayView{Day: d.Day.Format(dayFormat), Signups: d.Total, BySource: d.Counts}
			}).Items},
		Mailing: toPage(o.Mailing, "", func(d admin.MailDay) mailDayView {
			return mailDayView{Day: d.Day.Format(dayFormat), Sent: d.Sent, Skipped: d.Skipped, Failed: d.Failed}
		}).Items,
		Webhooks: toPage(o.Webhooks, "", func(d admin.CountsDay) webhookDayView {
			return webhookDayView{Day: d.Day.Format(dayFormat), Total: d.Total, ByOutcome: d.Counts}
		}).Items,
		Credits: toPage(o.Credits, "", func(d credits.Day) creditsDayView {
			return creditsDayView{Day: d.Day.Format(dayFormat), Granted: d.Granted, Spent: d.Spent, Refunded: d.Refunded,
				Expired: d.Expired, RolledOver: d.RolledOver}
		}).Items,
	}
	return out
}

func toRevenueView(r billing.Revenue) revenueView {
	v := revenueView{MRR: r.MRR, Subscriptions: r.Subscriptions, Unpriced: r.Unpriced, Discounted: r.Discounted,
		FromTiersFile: r.FromTiersFile, ByTier: []tierRevenueView{}}
	if v.MRR == nil {
		v.MRR = map[string]int64{}
	}
	for _, name := range slices.Sorted(maps.Keys(r.ByTier)) {
		t := r.ByTier[name]
		v.ByTier = append(v.ByTier, tierRevenueView{Tier: name, MRR: t.MRR, Subscriptions: t.Subscriptions, Unpriced: t.Unpriced})
	}
	return v
}

func (h *adminHandler) overview(c echo.Context) error {
	o, err := h.admin.Overview(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toOverviewResponse(o))
}
