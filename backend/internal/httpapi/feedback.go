package httpapi

import (
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/feedback"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// Feedback is a free-text box anyone signed in can fill: its own body bound and budget, below the API's.
const (
	feedbackMaxBody = "16KB"
	feedbackPerHour = 10
)

var feedbackErrors = []ErrorCode{
	{feedback.ErrInvalid, http.StatusUnprocessableEntity, "validation_failed", "invalid value for these fields"},
}

type feedbackHandler struct {
	feedback *feedback.Service
}

type feedbackRequest struct {
	Message string  `json:"message"`
	Page    *string `json:"page"`
	Rating  *int    `json:"rating"`
}

type feedbackCreated struct {
	ID        uuid.UUID `json:"id"`
	CreatedAt time.Time `json:"created_at"`
}

func (h *feedbackHandler) submit(c echo.Context) error {
	var req feedbackRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	f, err := h.feedback.Submit(c.Request().Context(), actorOf(c), feedback.Input{Message: req.Message, Page: req.Page, Rating: req.Rating})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, feedbackCreated{ID: f.ID, CreatedAt: f.CreatedAt})
}

// feedbackView is one message in the admin's viewer; user_id is null once the author was erased.
type feedbackView struct {
	ID        uuid.UUID  `json:"id"`
	UserID    *uuid.UUID `json:"user_id"`
	Message   string     `json:"message"`
	Page      *string    `json:"page"`
	Rating    *int       `json:"rating"`
	CreatedAt time.Time  `json:"created_at"`
}

func toFeedbackView(f models.Feedback) feedbackView {
	return feedbackView{ID: f.ID, UserID: f.UserID, Message: f.Message, Page: f.Page, Rating: f.Rating, CreatedAt: f.CreatedAt}
}

func (h *adminHandler) feedback(c echo.Context) error {
	p, _, err := listParams(c)
	if err != nil {
		return err
	}
	items, next, err := h.admin.Feedback(c.Request().Context(), p)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toPage(items, next, toFeedbackView))
}
