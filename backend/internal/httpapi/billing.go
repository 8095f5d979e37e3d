package httpapi

import (
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/billing/paddleapi"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

var billingErrors = []ErrorCode{
	{billing.ErrAlreadySubscribed, http.StatusConflict, "already_subscribed", "you already have an active subscription; change tier instead"},
	{billing.ErrFreeTierCheckout, http.StatusConflict, "free_tier", "the free tier needs no checkout"},
	{billing.ErrUnknownTier, http.StatusUnprocessableEntity, "unknown_tier", "unknown tier"},
	{billing.ErrUnknownCheckoutPrice, http.StatusUnprocessableEntity, "unknown_price", "price_id is not one of the tier's prices"},
	{billing.ErrNoSubscription, http.StatusConflict, "no_subscription", "no active subscription"},
	{billing.ErrSameTier, http.StatusConflict, "same_tier", "already on this tier"},
	{billing.ErrNotPaused, http.StatusConflict, "not_paused", "the subscription is not paused"},
	{billing.ErrNoPaddleAPI, http.StatusServiceUnavailable, "unavailable", "billing management is not configured"},
	{billing.ErrEmailUnverified, http.StatusConflict, "email_unverified", "verify your email address first"},
	{billing.ErrUnknownPack, http.StatusUnprocessableEntity, "unknown_pack", "pack is not one of the credit packs"},
	{account.ErrCustomerTaken, http.StatusConflict, "customer_conflict", "this billing account belongs to another user"},
	{paddleapi.ErrConflict, http.StatusConflict, "paddle_conflict", "paddle refused the change in the subscription's current state"},
	{paddleapi.ErrNotFound, http.StatusConflict, "paddle_conflict", "paddle does not know this subscription"},
	{paddleapi.ErrUnavailable, http.StatusBadGateway, "paddle_unavailable", "paddle is unavailable; try again"},
	{paddleapi.ErrRejected, http.StatusBadGateway, "paddle_rejected", "paddle rejected the request"},
}

type billingHandler struct {
	billing *billing.Service
	ledger  *credits.Service
	now     func() time.Time
}

type checkoutRequest struct {
	Tier string `json:"tier"`
	// PriceID picks one of the tier's prices (monthly or yearly); omitted, the tier's first.
	PriceID string `json:"price_id"`
	// Pack is a credit pack's price id: a one-time purchase instead of a tier.
	Pack string `json:"pack"`
}

// errTierOrPack refuses a checkout that names both a tier and a pack, or neither.
var errTierOrPack = NewError(http.StatusUnprocessableEntity, "validation_failed", "name either a tier (with an optional price_id) or a pack")

type checkoutResponse struct {
	PaddlePriceID string            `json:"paddle_price_id"`
	CustomerID    string            `json:"customer_id"`
	CustomerEmail string            `json:"customer_email"`
	CustomData    map[string]string `json:"custom_data"`
}

func (h *billingHandler) checkout(c echo.Context) error {
	var req checkoutRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	var out billing.CheckoutData
	var err error
	switch {
	case (req.Tier == "") == (req.Pack == "") || (req.Pack != "" && req.PriceID != ""):
		return errTierOrPack
	case req.Pack != "":
		out, err = h.billing.CheckoutPack(c.Request().Context(), actorOf(c), req.Pack)
	default:
		out, err = h.billing.Checkout(c.Request().Context(), actorOf(c), req.Tier, req.PriceID)
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, checkoutResponse{PaddlePriceID: out.PaddlePriceID, CustomerID: out.CustomerID,
		CustomerEmail: out.CustomerEmail, CustomData: out.CustomData})
}

type subscriptionResponse struct {
	Tier         string            `json:"tier"`
	Subscription *subscriptionView `json:"subscription"`
}

type subscriptionView struct {
	ID               string     `json:"id"`
	Status           string     `json:"status"`
	Tier             string     `json:"tier"`
	CurrentPeriodEnd *time.Time `json:"current_period_end"`
	CanceledAt       *time.Time `json:"canceled_at"`
	ScheduledChange  any        `json:"scheduled_change"`
}

func toSubscriptionView(s models.Subscription) *subscriptionView {
	v := &subscriptionView{ID: s.PaddleSubscriptionID, Status: s.Status, Tier: s.Tier,
		CurrentPeriodEnd: s.CurrentPeriodEnd, CanceledAt: s.CanceledAt}
	if len(s.ScheduledChange) > 0 {
		v.ScheduledChange = s.ScheduledChange
	}
	return v
}

func (h *billingHandler) subscription(c echo.Context) error {
	u := currentUser(c)
	resp := subscriptionResponse{Tier: u.CurrentTier}
	sub, err := h.billing.Subscription(c.Request().Context(), u.ID)
	switch {
	case err == nil:
		resp.Subscription = toSubscriptionView(sub)
	case !errors.Is(err, billing.ErrNoSubscription):
		return err
	}
	return c.JSON(http.StatusOK, resp)
}

type cancelRequest struct {
	CancelImmediately bool `json:"cancel_immediately"`
}

type acceptedResponse struct {
	Status string `json:"status"`
}

// accepted answers 202: Paddle has the request; our tables follow when its webhook arrives.
func accepted(c echo.Context) error {
	return c.JSON(http.StatusAccepted, acceptedResponse{Status: "requested"})
}

func (h *billingHandler) cancel(c echo.Context) error {
	var req cancelRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if err := h.billing.Cancel(c.Request().Context(), actorOf(c), req.CancelImmediately); err != nil {
		return err
	}
	return accepted(c)
}

type changeRequest struct {
	TargetTier string `json:"target_tier"`
}

func (h *billingHandler) change(c echo.Context) error {
	var req changeRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if err := h.billing.Change(c.Request().Context(), actorOf(c), req.TargetTier); err != nil {
		return err
	}
	return accepted(c)
}

func (h *billingHandler) resume(c echo.Context) error {
	if err := h.billing.Resume(c.Request().Context(), actorOf(c)); err != nil {
		return err
	}
	return accepted(c)
}

func (h *billingHandler) portal(c echo.Context) error {
	url, err := h.billing.PortalURL(c.Request().Context(), actorOf(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"url": url})
}

type movementView struct {
	ID        uuid.UUID `json:"id"`
	Delta     int       `json:"delta"`
	Kind      string    `json:"kind"`
	JobID     string    `json:"job_id"`
	Reason    string    `json:"reason"`
	CreatedAt time.Time `json:"created_at"`
}

type creditsResponse struct {
	Balance int `json:"balance"`
	// Buckets are where the balance sits, in burn order: what a spend takes first comes first.
	Buckets    []bucketView   `json:"buckets,omitempty"`
	Items      []movementView `json:"items"`
	NextCursor string         `json:"next_cursor,omitempty"`
}

type bucketView struct {
	ID        uuid.UUID  `json:"id"`
	Category  string     `json:"category"`
	Priority  int        `json:"priority"`
	Amount    int        `json:"amount"`
	Remaining int        `json:"remaining"`
	ExpiresAt *time.Time `json:"expires_at"`
	CreatedAt time.Time  `json:"created_at"`
}

func toBucketView(b credits.Bucket) bucketView {
	return bucketView{ID: b.ID, Category: b.Category, Priority: b.Priority, Amount: b.Amount, Remaining: b.Remaining,
		ExpiresAt: b.ExpiresAt, CreatedAt: b.CreatedAt}
}

func (h *billingHandler) credits(c echo.Context) error {
	u := currentUser(c)
	p, _, err := listParams(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	items, next, err := h.ledger.List(ctx, u.ID, p.Limit, p.Cursor)
	if err != nil {
		return err
	}
	balance, err := h.ledger.Balance(ctx, u.ID)
	if err != nil {
		return err
	}
	buckets, err := h.ledger.Buckets(ctx, u.ID, false)
	if err != nil {
		return err
	}
	views := make([]bucketView, 0, len(buckets))
	for _, b := range buckets {
		if !b.Expired(h.now()) {
			views = append(views, toBucketView(b))
		}
	}
	return c.JSON(http.StatusOK, creditsResponse{Balance: balance, Buckets: views, NextCursor: next,
		Items: toPage(items, "", toMovementView).Items})
}
