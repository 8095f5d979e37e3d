package billing

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCheckoutSignature(t *testing.T) {
	t.Parallel()
	s := NewCheckoutSigner("a-checkout-secret-of-at-least-32-chars")
	issued := time.Unix(1_780_000_000, 0)
	sig := s.Sign("user_1", "Ada@Example.com", issued)
	require.Regexp(t, `^v2\.1780000000\.[0-9a-f]{64}$`, sig)

	require.NoError(t, s.Verify(sig, "user_1", "ada@example.com", issued.Add(time.Hour)))
	require.NoError(t, s.Verify(sig, "user_1", "ada@example.com", issued.Add(-time.Minute)), "small skew")

	for name, tc := range map[string]struct {
		sig, user, email string
		at               time.Time
	}{
		"other user":     {sig, "user_2", "ada@example.com", issued},
		"other email":    {sig, "user_1", "eve@example.com", issued},
		"other key":      {NewCheckoutSigner("another-secret").Sign("user_1", "ada@example.com", issued), "user_1", "ada@example.com", issued},
		"tampered time":  {"v2.1780000001" + sig[13:], "user_1", "ada@example.com", issued},
		"garbage":        {"nonsense", "user_1", "ada@example.com", issued},
		"non-hex mac":    {"v2.1780000000.zz", "user_1", "ada@example.com", issued},
		"field shifting": {s.Sign("user_1|ada@example.com", "", issued), "user_1", "ada@example.com", issued},
		"v2 as v1":       {sig[3:], "user_1", "ada@example.com", issued},
	} {
		require.ErrorIs(t, s.Verify(tc.sig, tc.user, tc.email, tc.at, "pri_pro_monthly"), ErrCheckoutSignature, name)
	}
	// Outside the window the MAC is still genuine: ErrCheckoutExpired, which only refuses to create a new
	// user from it (resolveUser binds an existing one whatever the age).
	require.ErrorIs(t, s.Verify(sig, "user_1", "ada@example.com", issued.Add(6*time.Hour+time.Second)), ErrCheckoutExpired)
	require.ErrorIs(t, s.Verify(sig, "user_1", "ada@example.com", issued.Add(-10*time.Minute)), ErrCheckoutExpired)
	at, err := s.VerifyMAC(sig, "user_1", "ada@example.com")
	require.NoError(t, err)
	require.Equal(t, issued.Unix(), at.Unix())
}

// A signature issued before v2 bound a price as well as the user: it still verifies for any of the prices
// it may have bound (resolveUser passes the event's plan price, then every price of the tiers file),
// whatever price the event now carries, and never for another user or a price it did not bind.
func TestV1CheckoutSignaturesStillVerify(t *testing.T) {
	t.Parallel()
	s := NewCheckoutSigner("a-checkout-secret-of-at-least-32-chars")
	issued := time.Unix(1_780_000_000, 0)
	v1 := SignV1(s, "user_1", "Ada@Example.com", "pri_pro_monthly", issued)

	at, err := s.VerifyMAC(v1, "user_1", "ada@example.com", "pri_pro_yearly", "pri_pro_monthly")
	require.NoError(t, err, "bound the monthly price; the event carries the yearly one")
	require.Equal(t, issued.Unix(), at.Unix())
	_, err = s.VerifyMAC(v1, "user_1", "ada@example.com", "pri_pro_yearly", "pri_team_monthly")
	require.ErrorIs(t, err, ErrCheckoutSignature, "a price it did not bind")
	_, err = s.VerifyMAC(v1, "user_2", "ada@example.com", "pri_pro_monthly")
	require.ErrorIs(t, err, ErrCheckoutSignature, "another user")
	_, err = s.VerifyMAC(v1, "user_1", "ada@example.com")
	require.ErrorIs(t, err, ErrCheckoutSignature, "no price to try")
}
