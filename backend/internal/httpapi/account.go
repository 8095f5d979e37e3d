package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// accountHandler composes GET /me from the account, billing and ledger services rather than teaching the
// account package about subscriptions.
type accountHandler struct {
	accounts *account.Service
	billing  *billing.Service
	ledger   *credits.Service
}

var accountErrors = []ErrorCode{
	{account.ErrDeleted, http.StatusGone, "account_deleted", "this account is deleted"},
	{account.ErrFieldNotAllowed, http.StatusUnprocessableEntity, "validation_failed", "these fields cannot be changed"},
	{account.ErrInvalidField, http.StatusUnprocessableEntity, "validation_failed", "invalid value for these fields"},
	{account.ErrBadUnsubscribeToken, http.StatusUnauthorized, "unauthorized", "invalid unsubscribe link"},
	// 400, not PATCH /me's 422: a tracking snippet's bad field is a client bug, not input for the user to fix.
	{account.ErrInvalidAttribution, http.StatusBadRequest, "bad_request", "invalid signup metadata"},
}

type consentView struct {
	Marketing bool       `json:"marketing"`
	UpdatedAt *time.Time `json:"updated_at"`
	Source    *string    `json:"source"`
}

type profileView struct {
	ID          uuid.UUID   `json:"id"`
	Email       string      `json:"email"`
	DisplayName *string     `json:"display_name"`
	Locale      *string     `json:"locale"`
	Tier        string      `json:"tier"`
	Consent     consentView `json:"consent"`
	CreatedAt   time.Time   `json:"created_at"`
}

type meResponse struct {
	profileView
	Subscription  *subscriptionView `json:"subscription"`
	CreditBalance int               `json:"credit_balance"`
}

func toConsentView(u models.User) consentView {
	return consentView{Marketing: u.MarketingConsentGiven, UpdatedAt: u.MarketingConsentAt, Source: u.MarketingConsentSource}
}

func toProfileView(u models.User) profileView {
	return profileView{ID: u.ID, Email: u.Email, DisplayName: u.DisplayName, Locale: u.Locale, Tier: u.CurrentTier,
		Consent: toConsentView(u), CreatedAt: u.CreatedAt}
}

func (h *accountHandler) me(c echo.Context) error {
	ctx, u := c.Request().Context(), currentUser(c)
	balance, err := h.ledger.Balance(ctx, u.ID)
	if err != nil {
		return err
	}
	resp := meResponse{profileView: toProfileView(u), CreditBalance: balance}
	switch sub, err := h.billing.Subscription(ctx, u.ID); {
	case err == nil:
		resp.Subscription = toSubscriptionView(sub)
	case !errors.Is(err, billing.ErrNoSubscription):
		return err
	}
	return c.JSON(http.StatusOK, resp)
}

func (h *accountHandler) updateMe(c echo.Context) error {
	var patch account.Patch
	if err := bind(c, &patch); err != nil {
		return err
	}
	u, err := h.accounts.UpdateProfile(c.Request().Context(), actorOf(c), patch)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toProfileView(u))
}

type deleteResponse struct {
	DeletedAt       time.Time `json:"deleted_at"`
	HardDeleteAfter time.Time `json:"hard_delete_after"`
}

func (h *accountHandler) deleteMe(c echo.Context) error {
	d, err := h.accounts.Delete(c.Request().Context(), actorOf(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, deleteResponse{DeletedAt: d.DeletedAt.UTC(), HardDeleteAfter: d.HardDeleteAfter.UTC()})
}

type consentRequest struct {
	Marketing *bool `json:"marketing"`
}

func (h *accountHandler) consent(c echo.Context) error {
	var req consentRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if req.Marketing == nil {
		return &account.FieldError{Err: account.ErrInvalidField, Fields: []string{"marketing"}}
	}
	u, err := h.accounts.SetMarketingConsent(c.Request().Context(), actorOf(c), *req.Marketing)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toConsentView(u))
}

type exportUser struct {
	ID              uuid.UUID          `json:"id"`
	ClerkUserID     string             `json:"clerk_user_id"`
	Email           string             `json:"email"`
	DisplayName     *string            `json:"display_name"`
	Locale          *string            `json:"locale"`
	Tier            string             `json:"tier"`
	Consent         consentView        `json:"consent"`
	SignupMetadata  signupMetadataView `json:"signup_metadata"`
	DisposableEmail bool               `json:"disposable_email"`
	CreatedAt       time.Time          `json:"created_at"`
	UpdatedAt       time.Time          `json:"updated_at"`
}

// signupMetadataView is the first-touch attribution; every field null until it is recorded.
type signupMetadataView struct {
	UTMSource   *string    `json:"utm_source"`
	UTMMedium   *string    `json:"utm_medium"`
	UTMCampaign *string    `json:"utm_campaign"`
	UTMTerm     *string    `json:"utm_term"`
	UTMContent  *string    `json:"utm_content"`
	Referrer    *string    `json:"referrer"`
	LandingPage *string    `json:"landing_page"`
	RecordedAt  *time.Time `json:"recorded_at"`
}

func toSignupMetadataView(u models.User) signupMetadataView {
	return signupMetadataView{UTMSource: u.SignupUTMSource, UTMMedium: u.SignupUTMMedium, UTMCampaign: u.SignupUTMCampaign,
		UTMTerm: u.SignupUTMTerm, UTMContent: u.SignupUTMContent, Referrer: u.SignupReferrer,
		LandingPage: u.SignupLandingPage, RecordedAt: u.SignupMetadataAt}
}

type signupMetadataResponse struct {
	Recorded bool `json:"recorded"`
}

// signupMetadata records the first-touch attribution; only the first call of a user writes.
func (h *accountHandler) signupMetadata(c echo.Context) error {
	var fields map[string]json.RawMessage
	if err := bind(c, &fields); err != nil {
		return err
	}
	recorded, err := h.accounts.RecordSignupMetadata(c.Request().Context(), actorOf(c), fields)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, signupMetadataResponse{Recorded: recorded})
}

type exportSubscription struct {
	subscriptionView
	PaddleCustomerID   string     `json:"paddle_customer_id"`
	PaddlePriceID      string     `json:"paddle_price_id"`
	CurrentPeriodStart *time.Time `json:"current_period_start"`
	AccessRevokedAt    *time.Time `json:"access_revoked_at"`
	CreatedAt          time.Time  `json:"created_at"`
	UpdatedAt          time.Time  `json:"updated_at"`
}

type exportAudit struct {
	Action       string          `json:"action"`
	Actor        string          `json:"actor"`
	ResourceType string          `json:"resource_type"`
	ResourceID   string          `json:"resource_id"`
	Details      json.RawMessage `json:"details"`
	IP           *string         `json:"ip"`
	CreatedAt    time.Time       `json:"created_at"`
}

type exportFeedback struct {
	Message   string    `json:"message"`
	Page      *string   `json:"page"`
	Rating    *int      `json:"rating"`
	CreatedAt time.Time `json:"created_at"`
}
