// Package imagegen is the worked example of a metered endpoint of your own (docs/usage.md): POST
// /api/v1/generations stores the app's own row (example_generations, migration 00032) and charges the
// credits feature `generations` (5 credits a unit in the shipped tiers file) in one transaction, once per
// Idempotency-Key. Ten identical requests charge once; a request the balance does not cover writes
// nothing and may be retried after a top-up. Its generations are in the user's export and go with the
// user's erasure (its userdata entry). Wiring it is one line in App.appModules.
//
// Copy it for your own feature: a package with a Module function (routes, error codes, tasks, tables of
// user data), its table's migration, its operation in docs/openapi.yaml, and a test like imagegen_test.go.
package imagegen

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/httpapi"
	"github.com/fabrica-saas/fabrica/backend/internal/idempotency"
	"github.com/fabrica-saas/fabrica/backend/internal/module"
	"github.com/fabrica-saas/fabrica/backend/internal/usage"
)

// Feature is the tiers file's credits feature an image generation charges.
const Feature = "generations"

// Deps are what the endpoint needs: the pool (its writes go through the request's transaction) and usage.
type Deps struct {
	DB    *gorm.DB
	Usage *usage.Service
}

// ErrPrompt refuses a prompt that is empty, longer than 1000 characters or not valid text.
var ErrPrompt = errors.New("prompt: 1 to 1000 characters")

// Module is everything the example adds to the service; App.appModules lists it.
func Module(d Deps) module.Module {
	h := &handler{db: d.DB, usage: d.Usage}
	return module.Module{
		Name: "imagegen",
		Routes: func(r httpapi.Routes) {
			// A session's route that opts into Idempotency-Key: the key's claim, the usage (and its credits)
			// and the row below commit together, and a retry replays the first answer.
			r.Session.POST("/generations", h.create, r.Idempotent)
		},
		Errors: []httpapi.ErrorCode{
			{Err: ErrPrompt, Status: http.StatusUnprocessableEntity, Code: "validation_failed", Message: ErrPrompt.Error()},
		},
		UserData: userData(),
	}
}

type handler struct {
	db    *gorm.DB
	usage *usage.Service
}

type createRequest struct {
	Prompt string `json:"prompt"`
}

type generationView struct {
	ID        uuid.UUID `json:"id"`
	Prompt    string    `json:"prompt"`
	Charged   int       `json:"charged"`
	Balance   int       `json:"balance"`
	CreatedAt time.Time `json:"created_at"`
}

var (
	errBroke = httpapi.NewError(http.StatusPaymentRequired, "insufficient_credits", "not enough credits")
	errTier  = httpapi.NewError(http.StatusForbidden, "forbidden", "your plan does not include image generation")
)

// create charges one generation and stores it: 201 with the row, 402 when the balance is short, 403 when
// the tier has no generations. The same Idempotency-Key again answers the first 201 without charging.
func (h *handler) create(c echo.Context) error {
	var req createRequest
	if err := httpapi.Bind(c, &req); err != nil {
		return err
	}
	req.Prompt = strings.TrimSpace(req.Prompt)
	if req.Prompt == "" || utf8.RuneCountInString(req.Prompt) > 1000 || !utf8.ValidString(req.Prompt) || strings.ContainsRune(req.Prompt, 0) {
		return ErrPrompt
	}
	ctx := c.Request().Context()
	user := httpapi.UserID(c)
	key := usageKey(c.Request().Header.Get(httpapi.HeaderIdempotencyKey))
	var out generationView
	err := idempotency.Transaction(ctx, h.db, func(tx *gorm.DB) error {
		r, err := h.usage.Record(ctx, tx, usage.Event{UserID: user, Feature: Feature, Quantity: 1, Key: key})
		if err != nil {
			return err
		}
		switch r.Status {
		case usage.StatusRecorded:
		case usage.StatusInsufficientCredits:
			return errBroke // nothing was written; the transaction rolls back and the key stays free
		case usage.StatusDisabled:
			return errTier
		default: // a duplicate here means the Idempotency-Key's answer is gone (older than the window)
			return httpapi.NewError(http.StatusConflict, "conflict", "this request was already charged ("+r.Status+")")
		}
		out = generationView{Prompt: req.Prompt, Charged: r.Charged, Balance: *r.Balance}
		return db.QueryRow(ctx, tx, `INSERT INTO example_generations (user_id, prompt, event_id) VALUES ($1, $2, $3)
			RETURNING id, created_at`, []any{user, req.Prompt, r.EventID}, &out.ID, &out.CreatedAt)
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// usageKey derives the usage event's key from the request's: the same request is the same event. A key
// too long for usage's (120 characters) is replaced by its SHA-256.
func usageKey(requestKey string) string {
	if len(requestKey) > 100 {
		sum := sha256.Sum256([]byte(requestKey))
		return "generation:sha256:" + hex.EncodeToString(sum[:])
	}
	return "generation:" + requestKey
}
