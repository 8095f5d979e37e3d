// Package models holds the GORM row structs, one per table. No logic lives here: the schema is owned by
// the goose migrations and these structs only mirror it.
package models

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// ProcessedWebhookEvent is the dedup claim for one (provider, event_id); kept forever.
type ProcessedWebhookEvent struct {
	ID          uuid.UUID `gorm:"type:uuid;default:gen_random_uuid()"`
	Provider    string
	EventID     string
	EventType   string
	ProcessedAt time.Time `gorm:"default:now()"`
}

// WebhookEvent is the archive row of one verified delivery.
type WebhookEvent struct {
	ID               uuid.UUID `gorm:"type:uuid;default:gen_random_uuid()"`
	Provider         string
	EventID          string
	EventType        string
	Payload          json.RawMessage `gorm:"type:jsonb"`
	Signature        *string
	ProcessingStatus string
	ErrorMessage     *string
	ReplayOf         *uuid.UUID `gorm:"type:uuid"`
	CreatedAt        time.Time  `gorm:"default:now()"`
}

// User is an account, keyed by its Clerk id.
type User struct {
	ID                     uuid.UUID `gorm:"type:uuid;default:gen_random_uuid()"`
	ClerkUserID            string
	Email                  string
	EmailVerified          bool
	PaddleCustomerID       *string
	CurrentTier            string `gorm:"default:free"`
	MarketingConsentGiven  bool
	MarketingConsentAt     *time.Time
	MarketingConsentSource *string
	ClerkSyncedAt          *time.Time
	DisplayName            *string
	Locale                 *string
	// The first-touch attribution (POST /account/me/signup-metadata); SignupMetadataAt is when it was recorded.
	SignupUTMSource   *string `gorm:"column:signup_utm_source"`
	SignupUTMMedium   *string `gorm:"column:signup_utm_medium"`
	SignupUTMCampaign *string `gorm:"column:signup_utm_campaign"`
	SignupUTMTerm     *string `gorm:"column:signup_utm_term"`
	SignupUTMContent  *string `gorm:"column:signup_utm_content"`
	SignupReferrer    *string
	SignupLandingPage *string
	SignupMetadataAt  *time.Time
	// SignupCompletedAt is when user.created ran the sign-up hooks (once per user).
	SignupCompletedAt *time.Time
	// DisposableEmail: the verified address was on the disposable-email blocklist at sign-up (no signup credits).
	DisposableEmail bool
	// LastSeenAt is the last authenticated request, written at most once an hour.
	LastSeenAt *time.Time
	DeletedAt  *time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Subscription mirrors one Paddle subscription.
type Subscription struct {
	ID                   uuid.UUID `gorm:"type:uuid;default:gen_random_uuid()"`
	UserID               uuid.UUID `gorm:"type:uuid"`
	PaddleSubscriptionID string
	PaddleCustomerID     string
	PaddlePriceID        string
	Tier                 string
	Status               string
	CurrentPeriodStart   *time.Time
	CurrentPeriodEnd     *time.Time
	CanceledAt           *time.Time
	ScheduledChange      json.RawMessage `gorm:"type:jsonb"`
	LastEventAt          time.Time
	LastEventID          string
	LastTransactionID    *string
	AccessRevokedAt      *time.Time
	ExpiredAt            *time.Time
	CustomerMismatch     bool
	// DuplicateSubscription: live while another subscription of the user was live (flagged, never rejected).
	DuplicateSubscription bool
	// Quantity is the tiered item's quantity (seats).
	Quantity     int
	CurrencyCode string
	Discount     json.RawMessage `gorm:"type:jsonb"`
	// NextGrantAt is the next month start of the current period the monthly-grants job looks at.
	NextGrantAt *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// SubscriptionItem is one item of a subscription's newest applied snapshot.
type SubscriptionItem struct {
	ID             uuid.UUID `gorm:"type:uuid;default:gen_random_uuid()"`
	SubscriptionID uuid.UUID `gorm:"type:uuid"`
	Position       int
	PriceID        string
	ProductID      string
	Quantity       int
	// UnitAmount is in the currency's minor units; nil when the payload carried none.
	UnitAmount       *int64
	Currency         *string
	BillingInterval  *string
	BillingFrequency *int
	Recurring        bool
	Status           string
	Tiered           bool
	CreatedAt        time.Time
}

// CreditTransaction is one append-only ledger movement.
type CreditTransaction struct {
	ID        uuid.UUID `gorm:"type:uuid;default:gen_random_uuid()"`
	UserID    uuid.UUID `gorm:"type:uuid"`
	Delta     int
	Kind      string
	JobID     string
	Reason    string
	CreatedAt time.Time `gorm:"default:now()"`
}

// AuditLog records one privileged or state-changing action.
type AuditLog struct {
	ID           uuid.UUID `gorm:"type:uuid;default:gen_random_uuid()"`
	Actor        string
	Action       string
	UserID       *uuid.UUID `gorm:"type:uuid"`
	ResourceType string
	ResourceID   string
	Details      json.RawMessage `gorm:"type:jsonb"`
	IP           *string         `gorm:"type:inet"`
	CreatedAt    time.Time       `gorm:"default:now()"`
}

// Feedback is one in-app feedback message; UserID is nil once its author was erased.
type Feedback struct {
	ID        uuid.UUID  `gorm:"type:uuid;default:gen_random_uuid()"`
	UserID    *uuid.UUID `gorm:"type:uuid"`
	Message   string
	Page      *string
	Rating    *int
	CreatedAt time.Time `gorm:"default:now()"`
}

// TableName keeps GORM from pluralising feedback.
func (Feedback) TableName() string { return "feedback" }

// BroadcastRun is one admin-composed broadcast and its lifecycle.
type BroadcastRun struct {
	ID            uuid.UUID `gorm:"type:uuid;default:gen_random_uuid()"`
	Template      string
	Subject       string
	BodyMarkdown  string
	Audience      json.RawMessage `gorm:"type:jsonb"`
	Kind          string
	BypassConsent bool
	Status        string `gorm:"default:queued"`
	CreatedBy     string
	CreatedAt     time.Time `gorm:"default:now()"`
	StartedAt     *time.Time
	DispatchedAt  *time.Time
	FinishedAt    *time.Time
}

// BroadcastRecipient is one recipient of a broadcast run; UserID is nil once the user is erased.
type BroadcastRecipient struct {
	ID           uuid.UUID  `gorm:"type:uuid;default:gen_random_uuid()"`
	RunID        uuid.UUID  `gorm:"type:uuid"`
	UserID       *uuid.UUID `gorm:"type:uuid"`
	Status       string
	Reason       *string
	CreatedAt    time.Time
	SentAt       *time.Time
	ClaimedUntil *time.Time
	FinishedAt   *time.Time
}
