package account_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/feedback"
	"github.com/fabrica-saas/fabrica/backend/internal/jobs/jobstest"
	"github.com/fabrica-saas/fabrica/backend/internal/userdata"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

const testErasureKey = "account-test-erasure-tombstone-key-0123456789"

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testSignupCredits is the free tier's signup grant in these tests.
const testSignupCredits = 25

// hookSet is what newAccountsWith adds to the built-in sign-up hooks.
type hookSet struct {
	screen account.EmailScreen
	extra  []account.SignupHook
}

// newAccounts builds the account service on db the way app does, with the real billing package answering
// its subscription questions (the subscriptions table is billing's) and the built-in sign-up hooks.
func newAccounts(t *testing.T, db *gorm.DB, m *jobstest.Mailer, cfg account.Config) *account.Service {
	t.Helper()
	return newAccountsWith(t, db, m, cfg, hookSet{})
}

func newAccountsWith(t *testing.T, db *gorm.DB, m *jobstest.Mailer, cfg account.Config, hs hookSet) *account.Service {
	t.Helper()
	tiers, err := billing.LoadTiers("")
	require.NoError(t, err)
	ledger := credits.New(db, credits.Config{})
	erasures := account.NewErasures(testErasureKey)
	bill := billing.New(billing.Deps{DB: db, Tiers: tiers, Ledger: ledger, Jobs: m,
		Signer: billing.NewCheckoutSigner("account-test-checkout-secret-0123456789"), Erasures: erasures, Log: discardLog()}, billing.Config{})
	hooks := append([]account.SignupHook{account.SignupGrant(ledger, testSignupCredits, hs.screen),
		account.WelcomeEmail(m, cfg.AppName, cfg.DashboardURL)}, hs.extra...)
	return account.New(account.Deps{DB: db, Ledger: ledger, Jobs: m, Billing: bill, Erasures: erasures,
		SignupHooks: hooks, UserData: builtInUserData(t), Log: discardLog()}, cfg)
}

// builtInUserData is the user-data registry of the built-in owners, in app's order.
func builtInUserData(t *testing.T) *userdata.Registry {
	t.Helper()
	r, err := userdata.New(account.UserData(), billing.UserData(), credits.UserData(), feedback.UserData(),
		audit.UserData(), webhook.UserData())
	require.NoError(t, err)
	return r
}

// verified is the verification object Clerk puts on an address it has verified.
var verified = map[string]any{"status": "verified", "strategy": "email_code"}
