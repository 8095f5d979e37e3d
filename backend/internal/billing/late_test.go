package billing_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// A checkout completed more than 6 hours after it was signed was rejected forever: paid, never provisioned.
// Now a genuine signature binds an existing user whatever its age; the window only guards creating a user
// we have never seen from signed data, and that refusal heals when the user's Clerk webhook arrives.
func TestALateCheckoutStillProvisionsAnExistingUser(t *testing.T) {
	t.Parallel()
	f := setup(t)
	late := f.created(t0, "evt_late")
	late.customData = f.signedCustomData("user_1", "ada@example.com", t0.Add(-7*time.Hour))

	_, err := f.deliver(t, late.payload())
	require.ErrorIs(t, err, webhook.ErrHandlerFailed, "not seen yet and too old to create: retried, not rejected for good")
	require.ErrorContains(t, err, billing.ErrCheckoutExpired.Error())

	require.NoError(t, f.db.Exec(`INSERT INTO users (clerk_user_id, email, email_verified) VALUES ('user_1', 'ada@example.com', true)`).Error)
	f.mustDeliver(t, late.payload()) // Paddle's retry, after the Clerk webhook created the user
	require.Equal(t, state{Status: "active", Tier: "pro", UserTier: "pro", Grants: 1, Balance: 1000}, f.state(t))
}
