package httpapi

import (
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/idempotency"
	"github.com/fabrica-saas/fabrica/backend/internal/usage"
)

// usageHandler serves metering: what a user may do (entitlements, check) and what they did (usage
// events, gauges). Workers report for any user (user_id); a session reports only its own user's
// client_reportable features.
type usageHandler struct {
	usage *usage.Service
}

// usageErrors: usage's sentinels, and the Idempotency-Key convention's.
var usageErrors = []ErrorCode{
	{usage.ErrInvalid, http.StatusUnprocessableEntity, "validation_failed", "invalid usage"},
	{usage.ErrNoReservation, http.StatusNotFound, "not_found", "no reservation for this key"},
	{idempotency.ErrKeyReused, http.StatusConflict, "idempotency_key_reused",
		"the Idempotency-Key was used for another request (another body, method or path)"},
}

// errNotClientReportable refuses a session reporting a feature only workers may report.
var errNotClientReportable = NewError(http.StatusForbidden, "forbidden",
	"this feature is reported by the service (a worker key), not by the user's session")

type entitlementView struct {
	Feature          string     `json:"feature"`
	Kind             string     `json:"kind"`
	Enabled          bool       `json:"enabled"`
	Limit            *int64     `json:"limit"`
	Overage          *string    `json:"overage"`
	Used             int64      `json:"used"`
	Remaining        *int64     `json:"remaining"`
	ResetsAt         *time.Time `json:"resets_at"`
	CreditsPerUnit   *int       `json:"credits_per_unit"`
	ClientReportable bool       `json:"client_reportable"`
}

func toEntitlementView(e usage.Entitlement) entitlementView {
	v := entitlementView{Feature: e.Feature, Kind: e.Kind, Enabled: e.Enabled, Limit: e.Limit, Used: e.Used,
		Remaining: e.Remaining, ResetsAt: e.ResetsAt, ClientReportable: e.ClientReportable}
	if e.Overage != "" {
		v.Overage = &e.Overage
	}
	if e.CreditsPerUnit > 0 {
		v.CreditsPerUnit = &e.CreditsPerUnit
	}
	return v
}

type entitlementsResponse struct {
	Features []entitlementView `json:"features"`
}

// entitlements lists every feature of the tiers file as the caller has it: cheap (index reads, no event
// scan), meant for every page load.
func (h *usageHandler) entitlements(c echo.Context) error {
	ents, err := h.usage.Entitlements(c.Request().Context(), currentUser(c).ID)
	if err != nil {
		return err
	}
	out := entitlementsResponse{Features: make([]entitlementView, 0, len(ents))}
	for _, e := range ents {
		out.Features = append(out.Features, toEntitlementView(e))
	}
	return c.JSON(http.StatusOK, out)
}

type checkRequest struct {
	Feature  string  `json:"feature"`
	Quantity *int64  `json:"quantity"`
	UserID   *string `json:"user_id"`
}

type checkResponse struct {
	Allowed   bool   `json:"allowed"`
	Remaining *int64 `json:"remaining"`
	Reason    string `json:"reason"`
}

// check answers whether the user may use quantity (default 1) of feature, recording nothing.
func (h *usageHandler) check(c echo.Context) error {
	var req checkRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	user, err := subjectOf(c, req.UserID)
	if err != nil {
		return err
	}
	q := int64(1)
	if req.Quantity != nil {
		q = *req.Quantity
	}
	d, err := h.usage.Check(c.Request().Context(), user, req.Feature, q)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, checkResponse{Allowed: d.Allowed, Remaining: d.Remaining, Reason: d.Reason})
}

type usageEventRequest struct {
	UserID         *string    `json:"user_id"`
	Feature        string     `json:"feature"`
	Quantity       int64      `json:"quantity"`
	IdempotencyKey string     `json:"idempotency_key"`
	OccurredAt     *time.Time `json:"occurred_at"`
}

type usageRequest struct {
	Events []usageEventRequest `json:"events"`
}

type usageResultView struct {
	Status    string     `json:"status"`
	EventID   *uuid.UUID `json:"event_id"`
	Feature   string     `json:"feature"`
	Quantity  int64      `json:"quantity"`
	Used      int64      `json:"used"`
	Limit     *int64     `json:"limit"`
	Remaining *int64     `json:"remaining"`
	ResetsAt  *time.Time `json:"resets_at"`
	Charged   int        `json:"charged"`
	Balance   *int       `json:"balance"`
}

func toUsageResultView(r usage.Result) usageResultView {
	v := usageResultView{Status: r.Status, Feature: r.Feature, Quantity: r.Quantity, Used: r.Used, Limit: r.Limit,
		Remaining: r.Remaining, Charged: r.Charged, Balance: r.Balance}
	if r.EventID != uuid.Nil {
		v.EventID = &r.EventID
	}
	if !r.PeriodEnd.IsZero() {
		v.ResetsAt = &r.PeriodEnd
	}
	return v
}

type usageResponse struct {
	Results []usageResultView `json:"results"`
}

// record records up to 1,000 events, each with its own result (200 whatever they are).
func (h *usageHandler) record(c echo.Context) error {
	var req usageRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if len(req.Events) == 0 || len(req.Events) > usage.MaxBatch {
		return NewError(http.StatusUnprocessableEntity, "validation_failed", "events: want 1 to 1000 events")
	}
	events := make([]usage.Event, len(req.Events))
	for i, e := range req.Events {
		user, err := subjectOf(c, e.UserID)
		if err != nil {
			return err
		}
		if !isWorker(c) && !h.usage.ClientMayReport(currentUser(c).CurrentTier, e.Feature) {
			return errNotClientReportable
		}
		events[i] = usage.Event{UserID: user, Feature: e.Feature, Quantity: e.Quantity, Key: e.IdempotencyKey}
		if e.OccurredAt != nil {
			events[i].OccurredAt = *e.OccurredAt
		}
	}
	results, err := h.usage.RecordEvents(c.Request().Context(), events)
	if err != nil {
		return err
	}
	out := usageResponse{Results: make([]usageResultView, 0, len(results))}
	for _, r := range results {
		out.Results = append(out.Results, toUsageResultView(r))
	}
	return c.JSON(http.StatusOK, out)
}

type gaugeRequest struct {
	UserID         *string    `json:"user_id"`
	Value          *int64     `json:"value"`
	IdempotencyKey string     `json:"idempotency_key"`
	OccurredAt     *time.Time `json:"occurred_at"`
}

// setGauge sets a gauge (PUT /usage/gauges/:feature).
func (h *usageHandler) setGauge(c echo.Context) error {
	var req gaugeRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	user, err := subjectOf(c, req.UserID)
	if err != nil {
		return err
	}
	feature := c.Param("feature")
	if !isWorker(c) && !h.usage.ClientMayReport(currentUser(c).CurrentTier, feature) {
		return errNotClientReportable
	}
	if req.Value == nil {
		return NewError(http.StatusUnprocessableEntity, "validation_failed", "value is required")
	}
	e := usage.Event{UserID: user, Feature: feature, Quantity: *req.Value, Key: req.IdempotencyKey}
	if req.OccurredAt != nil {
		e.OccurredAt = *req.OccurredAt
	}
	r, err := h.usage.SetGauge(c.Request().Context(), nil, e)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toUsageResultView(r))
}

// subjectOf is the user a call is about: the session's own (which must not name one), or the one a
// worker names (required).
func subjectOf(c echo.Context, userID *string) (uuid.UUID, error) {
	if !isWorker(c) {
		if userID != nil {
			return uuid.Nil, errUserIDNotAllowed
		}
		return currentUser(c).ID, nil
	}
	a, err := workerActor(c, userID)
	return a.UserID, err
}

type usageMonthView struct {
	Feature     string    `json:"feature"`
	PeriodStart time.Time `json:"period_start"`
	PeriodEnd   time.Time `json:"period_end"`
	Used        int64     `json:"used"`
	Limit       *int64    `json:"limit"`
}

func toUsageMonthView(m usage.Month) usageMonthView {
	return usageMonthView{Feature: m.Feature, PeriodStart: m.PeriodStart, PeriodEnd: m.PeriodEnd, Used: m.Used, Limit: m.Limit}
}

type adminUserUsageResponse struct {
	Features   []entitlementView `json:"features"`
	Items      []usageMonthView  `json:"items"`
	NextCursor string            `json:"next_cursor,omitempty"`
}

// userUsage is the console's view of a user's usage: each feature this month, and the months before.
func (h *usageHandler) userUsage(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	p, _, err := listParams(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	ents, err := h.usage.EntitlementsForOperator(ctx, id)
	if err != nil {
		return err
	}
	months, next, err := h.usage.History(ctx, id, p)
	if err != nil {
		return err
	}
	out := adminUserUsageResponse{Features: make([]entitlementView, 0, len(ents)), NextCursor: next}
	for _, e := range ents {
		out.Features = append(out.Features, toEntitlementView(e))
	}
	out.Items = toPage(months, "", toUsageMonthView).Items
	return c.JSON(http.StatusOK, out)
}

type nearestLimitView struct {
	UserID uuid.UUID `json:"user_id"`
	usageMonthView
}

// nearestLimits lists this month's counters closest to their limits, across users (the overview).
func (h *usageHandler) nearestLimits(c echo.Context) error {
	p, _, err := listParams(c)
	if err != nil {
		return err
	}
	months, err := h.usage.NearestLimits(c.Request().Context(), p.Limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toPage(months, "", func(m usage.Month) nearestLimitView {
		return nearestLimitView{UserID: m.UserID, usageMonthView: toUsageMonthView(m)}
	}))
}
