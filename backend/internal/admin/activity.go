package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// A user's activity beyond UserDetail, page by page: the whole ledger, every credit bucket, and the
// webhook deliveries that touched them.

// UserLedger pages through a user's ledger, newest first; db.ErrNotFound when there is no such user.
func (s *Service) UserLedger(ctx context.Context, userID uuid.UUID, p Page) ([]credits.Movement, string, error) {
	var items []credits.Movement
	var next string
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if _, err := account.UserTx(ctx, tx, userID); err != nil {
			return err
		}
		var err error
		items, next, err = s.ledger.WithTx(tx).List(ctx, userID, p.Limit, p.Cursor)
		return err
	}, snapshot)
	if err != nil {
		return nil, "", fmt.Errorf("admin user ledger: %w", err)
	}
	return items, next, nil
}

// UserBuckets pages through every bucket the user ever had, newest first (spent and written-off ones
// too); db.ErrNotFound when there is no such user.
func (s *Service) UserBuckets(ctx context.Context, userID uuid.UUID, p Page) ([]credits.Bucket, string, error) {
	var items []credits.Bucket
	var next string
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if _, err := account.UserTx(ctx, tx, userID); err != nil {
			return err
		}
		var err error
		items, next, err = s.ledger.WithTx(tx).BucketHistory(ctx, userID, p.Limit, p.Cursor)
		return err
	}, snapshot)
	if err != nil {
		return nil, "", fmt.Errorf("admin user buckets: %w", err)
	}
	return items, next, nil
}

// webhookActors are the audit actors the providers' handlers write as, with their provider. The archive
// has no user column (a delivery names its user only inside the payload), so the audit trail is what ties
// a delivery to a user: every handler that changes a user audits it with the event id.
var webhookActors = map[string]string{audit.ActorClerk: webhook.ProviderClerk, audit.ActorPaddle: webhook.ProviderPaddle}

// UserDelivery is one webhook event that changed a user: its audit row and the newest archived delivery
// of the event (nil once the archive retention has purged it).
type UserDelivery struct {
	At       time.Time
	Action   string
	Provider string
	EventID  string
	Delivery *WebhookEvent
}

// UserDeliveries pages through the webhook events that changed a user, newest first, from the audit rows
// the handlers wrote (user_id's index bounds the walk to the user's rows). A delivery that failed before
// it reached a user wrote none: it is in the archive's list of failures, not here.
func (s *Service) UserDeliveries(ctx context.Context, userID uuid.UUID, p Page) ([]UserDelivery, string, error) {
	actors := make([]string, 0, len(webhookActors))
	for a := range webhookActors {
		actors = append(actors, a)
	}
	rows, next, err := audit.List(ctx, s.db, audit.Filter{UserID: &userID, Actors: actors}, p)
	if err != nil {
		return nil, "", fmt.Errorf("admin user deliveries: %w", err)
	}
	out := make([]UserDelivery, 0, len(rows))
	byProvider := map[string][]string{}
	for _, r := range rows {
		var d struct {
			EventID string `json:"event_id"`
		}
		_ = json.Unmarshal(r.Details, &d) // a row without an event id is listed without its delivery
		u := UserDelivery{At: r.CreatedAt, Action: r.Action, Provider: webhookActors[r.Actor], EventID: d.EventID}
		out = append(out, u)
		if u.EventID != "" {
			byProvider[u.Provider] = append(byProvider[u.Provider], u.EventID)
		}
	}
	for provider, ids := range byProvider {
		latest, err := webhook.LatestDeliveriesTx(ctx, s.db, provider, ids)
		if err != nil {
			return nil, "", fmt.Errorf("admin user deliveries: %w", err)
		}
		for i := range out {
			if d, ok := latest[out[i].EventID]; ok && out[i].Provider == provider {
				out[i].Delivery = &d
			}
		}
	}
	return out, next, nil
}
