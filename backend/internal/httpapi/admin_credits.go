package httpapi

import (
	"math"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
)

// An operator's side of the ledger: a user's buckets, and the one write, granting credits or taking them
// back (docs/api.md, *Operator credit adjustments*).

// adminBucketView is a bucket as operators see it: the user's own view plus where it came from and when
// it was written off.
type adminBucketView struct {
	bucketView
	Source    string     `json:"source"`
	ExpiredAt *time.Time `json:"expired_at"`
}

func toAdminBucketView(b credits.Bucket) adminBucketView {
	return adminBucketView{bucketView: toBucketView(b), Source: b.Source, ExpiredAt: b.ExpiredAt}
}

// adminLedgerView is GET /admin/users/{id}'s ledger: the balance, the buckets it sits in (burn order) and
// the newest movements, from one snapshot.
type adminLedgerView struct {
	Balance int               `json:"balance"`
	Buckets []adminBucketView `json:"buckets"`
	Items   []movementView    `json:"items"`
}

func (h *adminHandler) userBuckets(c echo.Context) error {
	return userPage(c, h.admin.UserBuckets, toAdminBucketView)
}

// maxIdempotencyKeyLen bounds the header; with credits.OperatorKeyPrefix it fits the ledger's key column.
const maxIdempotencyKeyLen = 100

var errIdempotencyKey = NewError(http.StatusBadRequest, "bad_request",
	"the Idempotency-Key header is required: 1-100 visible ASCII characters, new for each adjustment and the same on its retries")

var errAdjustAmount = NewError(http.StatusUnprocessableEntity, "validation_failed",
	"amount must be a non-zero integer from -2147483647 to 2147483647: positive grants, negative takes back")

type adjustRequest struct {
	Amount int    `json:"amount"`
	Reason string `json:"reason"`
	// ExpiresIn (seconds) is when a grant's unspent credits are written off; absent: never.
	ExpiresIn *int64 `json:"expires_in"`
	Category  string `json:"category"`
	Priority  int    `json:"priority"`
}

type adjustResponse struct {
	Movement   movementView `json:"movement"`
	Balance    int          `json:"balance"`
	Idempotent bool         `json:"idempotent"`
}

// adjustCredits answers 201 for a new grant or correction and 200 (idempotent) for a repeated key, which
// writes nothing.
func (h *adminHandler) adjustCredits(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	key := c.Request().Header.Get(HeaderIdempotencyKey)
	if !validIdempotencyKey(key, maxIdempotencyKeyLen) {
		return errIdempotencyKey
	}
	var req adjustRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if req.Amount == 0 || req.Amount > math.MaxInt32 || req.Amount < -math.MaxInt32 {
		return errAdjustAmount
	}
	m, balance, created, err := h.ledger.Adjust(c.Request().Context(), actorOf(c), credits.Adjustment{UserID: id,
		Amount: req.Amount, Key: key, Reason: req.Reason, Category: req.Category, Priority: req.Priority,
		ExpiresIn: grantExpiresIn(req.ExpiresIn)})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return c.JSON(status, adjustResponse{Movement: toMovementView(m), Balance: balance, Idempotent: !created})
}

// grantExpiresIn turns the body's seconds into the grant's expiry: absent is 0 (never). Values outside the
// ledger's bounds map to one it refuses, an explicit 0 included, and the multiplication cannot overflow.
func grantExpiresIn(seconds *int64) time.Duration {
	switch {
	case seconds == nil:
		return 0
	case *seconds < 1:
		return -1
	case *seconds > int64(credits.MaxGrantExpiresIn/time.Second):
		return credits.MaxGrantExpiresIn + time.Second
	}
	return time.Duration(*seconds) * time.Second
}

// toAdminLedgerView builds the user detail's ledger.
func toAdminLedgerView(balance int, buckets []credits.Bucket, items []credits.Movement) adminLedgerView {
	return adminLedgerView{Balance: balance, Buckets: toPage(buckets, "", toAdminBucketView).Items,
		Items: toPage(items, "", toMovementView).Items}
}
