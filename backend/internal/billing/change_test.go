package billing_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// changeRecorder is a Paddle API fake that records item changes.
type changeRecorder struct {
	billing.PaddleAPI
	changes  []map[string]int
	upgrades []bool
}

func (c *changeRecorder) ChangeItems(_ context.Context, _ string, items map[string]int, upgrade bool) error {
	c.changes = append(c.changes, items)
	c.upgrades = append(c.upgrades, upgrade)
	return nil
}

// A tier change keeps what the customer has besides the plan: the yearly Team subscriber (10 seats, 2
// storage add-ons) who moves to Pro gets Pro's yearly price and keeps the add-ons (Paddle's items is the
// whole new list: an item left out would be removed). Pro is not per seat, so one unit of it; the one-time
// setup fee is not sent again.
func TestChangeKeepsSeatsAddOnsAndTheBillingInterval(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	tiersFile := sampleTiers + `    prices:
      ` + priTeamYear + `: {interval: year}
`
	tiersFile = replaceOnce(tiersFile, "    monthly_credits: 1000\n", `    monthly_credits: 1000
    prices:
      `+priProMonth+`: {amount: 1500, currency: USD, interval: month}
      `+priProYear+`: {amount: 15000, currency: USD, interval: year}
`)
	f := newFixture(t, d, tiersFile)
	f.mustDeliver(t, f.samples(t).yearly.body())

	tiers, err := billing.ParseTiers([]byte(tiersFile))
	require.NoError(t, err)
	api := &changeRecorder{}
	svc := billing.New(billing.Deps{DB: d.Gorm, Tiers: tiers, Ledger: credits.New(d.Gorm, credits.Config{}), Jobs: f.mailer, Signer: f.signer,
		API: api, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, billing.Config{})
	var userID uuid.UUID
	require.NoError(t, d.Gorm.Raw(`SELECT id FROM users WHERE clerk_user_id = 'user_1'`).Row().Scan(&userID))
	require.NoError(t, svc.Change(context.Background(), audit.Actor{UserID: userID, ClerkUserID: "user_1"}, "pro"))
	require.Equal(t, []map[string]int{{priStorageYear: 2, priProYear: 1}}, api.changes)
	require.Equal(t, []bool{false}, api.upgrades, "team to pro is a downgrade: billed nothing")
}
