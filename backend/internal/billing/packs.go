package billing

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// Credit packs are one-time Paddle prices listed under credit_packs in the tiers file. Checkout signs a
// purchase like a subscription's; the pack's transaction.completed grants its credits once per transaction
// and price as a purchased bucket (its source is the transaction, for the refund); an approved refund or
// chargeback of that transaction writes off what is still unspent of it.

// ErrUnknownPack is a checkout of a price that is not one of the tiers file's credit packs.
var ErrUnknownPack = errors.New("not a credit pack")

// packJobID keys the grant of one pack price of one transaction.
func packJobID(transactionID, priceID string) string { return "pack:" + transactionID + ":" + priceID }

// CheckoutPack prepares a signed one-time checkout of the credit pack priceID for the user's bound Paddle
// customer. Unlike a plan, a pack can be bought any number of times, with or without a subscription.
func (s *Service) CheckoutPack(ctx context.Context, a audit.Actor, priceID string) (CheckoutData, error) {
	if _, ok := s.tiers.Pack(priceID); !ok {
		return CheckoutData{}, fmt.Errorf("checkout %q: %w", priceID, ErrUnknownPack)
	}
	return s.signedCheckout(ctx, a, priceID)
}

// onPackPurchase grants the credit packs among a one-time transaction's items (pack credits × quantity
// each, expiring the pack's expires_in after the purchase) and audits the transaction. A transaction
// without a pack is audited only.
func (s *Service) onPackPurchase(ctx context.Context, tx *gorm.DB, ev webhook.Event, env envelope, t transactionData) error {
	if err := validItems(t.Items); err != nil {
		return err
	}
	type bought struct {
		pack  Pack
		count int
	}
	var packs []bought
	for _, it := range t.Items {
		if p, ok := s.tiers.Pack(it.Price.ID); ok && it.quantity() > 0 {
			packs = append(packs, bought{p, it.quantity()})
		}
	}
	if len(packs) == 0 {
		return s.auditTransaction(ctx, tx, ev, t, nil, 0)
	}
	customer := ""
	if t.CustomerID != nil {
		customer = *t.CustomerID
	}
	userID, err := s.resolveUser(ctx, tx, "", customer, t.CustomData, packs[0].pack.PriceID, env.OccurredAt)
	if err != nil {
		return err
	}
	granted := 0
	for _, b := range packs {
		amount := int64(b.pack.Credits) * int64(b.count)
		if amount > math.MaxInt32 {
			return fmt.Errorf("%w: %d × %d credits of pack %s", errBadPayload, b.count, b.pack.Credits, b.pack.PriceID)
		}
		spec := credits.GrantSpec{UserID: userID, Amount: int(amount), Key: packJobID(t.ID, b.pack.PriceID),
			Reason: "credit pack " + b.pack.PriceID, Category: credits.CategoryPurchased, Source: t.ID}
		if b.pack.ExpiresIn > 0 {
			exp := env.OccurredAt.Add(b.pack.ExpiresIn)
			spec.ExpiresAt = &exp
		}
		_, created, err := s.credits.WithTx(tx).Grant(ctx, spec)
		if err != nil {
			return err
		}
		if created {
			granted += spec.Amount
		}
	}
	return s.auditTransaction(ctx, tx, ev, t, &userID, granted)
}

// refundPack writes off what is unspent of the packs a refunded one-time transaction bought. A partial
// refund counts as a whole one for the credits: a pack is one line item, and an operator who meant to give
// some back grants them (POST /admin/users/{id}/credits). It returns the user and the credits written off.
func (s *Service) refundPack(ctx context.Context, tx *gorm.DB, transactionID string) (*uuid.UUID, int, error) {
	ledger := s.credits.WithTx(tx)
	users, err := ledger.SourceUsers(ctx, credits.CategoryPurchased, transactionID)
	if err != nil || len(users) != 1 {
		return nil, 0, err // not a pack of ours (or, impossibly, two users'): nothing to write off
	}
	n, err := ledger.ExpireSource(ctx, users[0], credits.CategoryPurchased, transactionID, "credit pack refunded")
	return &users[0], n, err
}
