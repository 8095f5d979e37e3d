package httpapi

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/fabrica-saas/fabrica/backend/internal/admin"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// Views: the admin API's JSON. Operators see more than a user's own endpoints show (internal ids, Paddle
// ids, consent), but never a webhook signature.

type adminUserView struct {
	ID                     uuid.UUID  `json:"id"`
	ClerkUserID            string     `json:"clerk_user_id"`
	Email                  string     `json:"email"`
	EmailVerified          bool       `json:"email_verified"`
	PaddleCustomerID       *string    `json:"paddle_customer_id"`
	DisplayName            *string    `json:"display_name"`
	Locale                 *string    `json:"locale"`
	CurrentTier            string     `json:"current_tier"`
	MarketingConsentGiven  bool       `json:"marketing_consent_given"`
	MarketingConsentAt     *time.Time `json:"marketing_consent_at"`
	MarketingConsentSource *string    `json:"marketing_consent_source"`
	// DisposableEmail: signed up with an address on the disposable-email blocklist (no signup credits).
	DisposableEmail bool               `json:"disposable_email"`
	SignupMetadata  signupMetadataView `json:"signup_metadata"`
	DeletedAt       *time.Time         `json:"deleted_at"`
	CreatedAt       time.Time          `json:"created_at"`
	UpdatedAt       time.Time          `json:"updated_at"`
}

func toAdminUserView(u models.User) adminUserView {
	return adminUserView{ID: u.ID, ClerkUserID: u.ClerkUserID, Email: u.Email, EmailVerified: u.EmailVerified,
		PaddleCustomerID: u.PaddleCustomerID, DisplayName: u.DisplayName, Locale: u.Locale,
		CurrentTier: u.CurrentTier, MarketingConsentGiven: u.MarketingConsentGiven, MarketingConsentAt: u.MarketingConsentAt,
		MarketingConsentSource: u.MarketingConsentSource, DisposableEmail: u.DisposableEmail,
		SignupMetadata: toSignupMetadataView(u), DeletedAt: u.DeletedAt, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt}
}

// adminSubscriptionView is the user's own subscription view plus the Paddle ids and bookkeeping times.
type adminSubscriptionView struct {
	subscriptionView
	PaddleCustomerID   string     `json:"paddle_customer_id"`
	PaddlePriceID      string     `json:"paddle_price_id"`
	CurrentPeriodStart *time.Time `json:"current_period_start"`
	AccessRevokedAt    *time.Time `json:"access_revoked_at"`
	// Flags are what an operator must look at: customer_mismatch (paid under another customer than the
	// user's bound one).
	Flags     []string               `json:"flags"`
	Quantity  int                    `json:"quantity"`
	Currency  string                 `json:"currency_code"`
	Discount  any                    `json:"discount"`
	Items     []subscriptionItemView `json:"items"`
	CreatedAt time.Time              `json:"created_at"`
	UpdatedAt time.Time              `json:"updated_at"`
}

// subscriptionItemView is one item of a subscription as its newest snapshot had it: the plan (tiered),
// add-ons and one-time charges, with the unit amount the payload carried (minor units; null when none).
type subscriptionItemView struct {
	PriceID          string  `json:"price_id"`
	ProductID        string  `json:"product_id"`
	Quantity         int     `json:"quantity"`
	UnitAmount       *int64  `json:"unit_amount"`
	Currency         *string `json:"currency"`
	BillingInterval  *string `json:"billing_interval"`
	BillingFrequency *int    `json:"billing_frequency"`
	Recurring        bool    `json:"recurring"`
	Status           string  `json:"status"`
	Tiered           bool    `json:"tiered"`
}

func toSubscriptionItemView(i models.SubscriptionItem) subscriptionItemView {
	return subscriptionItemView{PriceID: i.PriceID, ProductID: i.ProductID, Quantity: i.Quantity, UnitAmount: i.UnitAmount,
		Currency: i.Currency, BillingInterval: i.BillingInterval, BillingFrequency: i.BillingFrequency,
		Recurring: i.Recurring, Status: i.Status, Tiered: i.Tiered}
}

// subscriptionFlags names a subscription's flags for the admin view.
func subscriptionFlags(s models.Subscription) []string {
	flags := []string{}
	if s.CustomerMismatch {
		flags = append(flags, "customer_mismatch")
	}
	if s.DuplicateSubscription {
		flags = append(flags, "duplicate_subscription")
	}
	return flags
}

func toAdminSubscriptionView(s models.Subscription, items []models.SubscriptionItem) adminSubscriptionView {
	v := adminSubscriptionView{subscriptionView: *toSubscriptionView(s), PaddleCustomerID: s.PaddleCustomerID,
		PaddlePriceID: s.PaddlePriceID, CurrentPeriodStart: s.CurrentPeriodStart, AccessRevokedAt: s.AccessRevokedAt,
		Flags: subscriptionFlags(s), Quantity: s.Quantity, Currency: s.CurrencyCode,
		Items: toPage(items, "", toSubscriptionItemView).Items, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
	if len(s.Discount) > 0 {
		v.Discount = s.Discount
	}
	return v
}

type adminUserDetail struct {
	User          adminUserView           `json:"user"`
	Subscriptions []adminSubscriptionView `json:"subscriptions"`
	Ledger        adminLedgerView         `json:"ledger"`
}

func toAdminUserDetail(d admin.UserDetail) adminUserDetail {
	return adminUserDetail{User: toAdminUserView(d.User),
		Subscriptions: toPage(d.Subscriptions, "", func(s models.Subscription) adminSubscriptionView {
			return toAdminSubscriptionView(s, d.Items[s.ID])
		}).Items,
		Ledger: toAdminLedgerView(d.Balance, d.Buckets, d.Movements)}
}

type auditView struct {
	ID           uuid.UUID       `json:"id"`
	Actor        string          `json:"actor"`
	Action       string          `json:"action"`
	UserID       *uuid.UUID      `json:"user_id"`
	ResourceType string          `json:"resource_type"`
	ResourceID   string          `json:"resource_id"`
	Details      json.RawMessage `json:"details"`
	IP           *string         `json:"ip"`
	CreatedAt    time.Time       `json:"created_at"`
}

func toAuditView(a models.AuditLog) auditView {
	return auditView{ID: a.ID, Actor: a.Actor, Action: a.Action, UserID: a.UserID, ResourceType: a.ResourceType,
		ResourceID: a.ResourceID, Details: a.Details, IP: a.IP, CreatedAt: a.CreatedAt}
}

type webhookEventView struct {
	ID               uuid.UUID  `json:"id"`
	Provider         string     `json:"provider"`
	EventID          string     `json:"event_id"`
	EventType        string     `json:"event_type"`
	Source           string     `json:"source"`
	ProcessingStatus string     `json:"processing_status"`
	ErrorMessage     *string    `json:"error_message"`
	ReplayOf         *uuid.UUID `json:"replay_of"`
	CreatedAt        time.Time  `json:"created_at"`
}

// webhookEventDetail adds the stored body — as JSON in payload when it is JSON, else as text in body_text —,
// whether a signature was stored (never its value), when the body was redacted at an erasure (null while it
// is the delivery), every attempt of the event and its claim.
type webhookEventDetail struct {
	webhookEventView
	HasSignature bool               `json:"has_signature"`
	RedactedAt   *time.Time         `json:"redacted_at"`
	Payload      json.RawMessage    `json:"payload"`
	BodyText     *string            `json:"body_text,omitempty"`
	Attempts     []webhookEventView `json:"attempts"`
	Claim        *claimView         `json:"claim"`
}

type claimView struct {
	EventType   string    `json:"event_type"`
	ProcessedAt time.Time `json:"processed_at"`
}

func toWebhookEventDetail(d admin.WebhookEventDetail) webhookEventDetail {
	out := webhookEventDetail{webhookEventView: toWebhookEventView(d.WebhookEvent), HasSignature: d.HasSignature,
		RedactedAt: d.RedactedAt, Payload: d.Payload(), Attempts: toPage(d.Attempts, "", toWebhookEventView).Items}
	if out.Payload == nil {
		text := d.BodyText()
		out.BodyText = &text
	}
	if d.Claim != nil {
		out.Claim = &claimView{EventType: d.Claim.EventType, ProcessedAt: d.Claim.ProcessedAt}
	}
	return out
}

func toWebhookEventView(w admin.WebhookEvent) webhookEventView {
	return webhookEventView{ID: w.ID, Provider: w.Provider, EventID: w.EventID, EventType: w.EventType, Source: w.Source,
		ProcessingStatus: w.ProcessingStatus, ErrorMessage: w.ErrorMessage, ReplayOf: w.ReplayOf, CreatedAt: w.CreatedAt}
}

type countView struct {
	Provider string `json:"provider,omitempty"`
	Tier     string `json:"tier,omitempty"`
	Status   string `json:"status"`
	Count    int64  `json:"count"`
}

type statsResponse struct {
	GeneratedAt time.Time `json:"generated_at"`
	Users       struct {
		Total   int64 `json:"total"`
		Deleted int64 `json:"deleted"`
	} `json:"users"`
	Subscriptions []countView `json:"subscriptions"`
	Deliveries    []countView `json:"webhook_deliveries_24h"`
}

func toStatsResponse(s admin.Stats) statsResponse {
	out := statsResponse{GeneratedAt: s.GeneratedAt}
	out.Users.Total, out.Users.Deleted = s.Users.Total, s.Users.Deleted
	out.Subscriptions = toPage(s.Subscriptions, "", func(c admin.SubscriptionCount) countView {
		return countView{Tier: c.Tier, Status: c.Status, Count: c.Count}
	}).Items
	out.Deliveries = toPage(s.Deliveries, "", func(c admin.DeliveryCount) countView {
		return countView{Provider: c.Provider, Status: c.Status, Count: c.Count}
	}).Items
	return out
}
