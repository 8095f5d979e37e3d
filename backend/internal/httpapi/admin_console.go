package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/admin"
)

// The admin reads the operator console needs beyond the forensics API: who the operator is (the console's
// gate), a user's whole ledger and the deliveries that touched them, and deliveries per hour.

type operatorView struct {
	ID          uuid.UUID `json:"id"`
	ClerkUserID string    `json:"clerk_user_id"`
	Email       string    `json:"email"`
}

// me names the operator. Behind requireAdmin like every admin route, so it is the console's gate: a 403
// here is the refusal page, and is audited like any refused admin request.
func (h *adminHandler) me(c echo.Context) error {
	u := currentUser(c)
	return c.JSON(http.StatusOK, operatorView{ID: u.ID, ClerkUserID: u.ClerkUserID, Email: u.Email})
}

// userPage answers one page of a list about the user the path names (:id).
func userPage[T, V any](c echo.Context, list func(context.Context, uuid.UUID, admin.Page) ([]T, string, error), conv func(T) V) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	p, _, err := listParams(c)
	if err != nil {
		return err
	}
	items, next, err := list(c.Request().Context(), id, p)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toPage(items, next, conv))
}

func (h *adminHandler) userCredits(c echo.Context) error {
	return userPage(c, h.admin.UserLedger, toMovementView)
}

type userDeliveryView struct {
	At       time.Time `json:"at"`
	Action   string    `json:"action"`
	Provider string    `json:"provider"`
	EventID  string    `json:"event_id"`
	// Delivery is the event's newest archived delivery; null once the retention has purged it.
	Delivery *webhookEventView `json:"delivery"`
}

func toUserDeliveryView(d admin.UserDelivery) userDeliveryView {
	v := userDeliveryView{At: d.At, Action: d.Action, Provider: d.Provider, EventID: d.EventID}
	if d.Delivery != nil {
		w := toWebhookEventView(*d.Delivery)
		v.Delivery = &w
	}
	return v
}

func (h *adminHandler) userDeliveries(c echo.Context) error {
	return userPage(c, h.admin.UserDeliveries, toUserDeliveryView)
}

type deliveryHourView struct {
	Hour   time.Time        `json:"hour"`
	Total  int64            `json:"total"`
	Counts map[string]int64 `json:"counts"`
}

type deliveryHoursResponse struct {
	GeneratedAt time.Time          `json:"generated_at"`
	Since       time.Time          `json:"since"`
	Hours       []deliveryHourView `json:"hours"`
}

func (h *adminHandler) deliveriesPerHour(c echo.Context) error {
	hours := 0
	if s := c.QueryParam("hours"); s != "" {
		var err error
		if hours, err = strconv.Atoi(s); err != nil {
			return badQuery("hours must be an integer")
		}
	}
	d, err := h.admin.DeliveriesPerHour(c.Request().Context(), hours, c.QueryParam("provider"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, deliveryHoursResponse{GeneratedAt: d.GeneratedAt, Since: d.Since,
		Hours: toPage(d.Hours, "", func(h admin.DeliveryHour) deliveryHourView {
			v := deliveryHourView{Hour: h.Hour, Counts: h.Counts}
			for _, n := range h.Counts {
				v.Total += n
			}
			return v
		}).Items})
}
