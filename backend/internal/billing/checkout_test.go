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
	sig := s.Sign("user_1", "Ada@Example.com", "pri_pro_monthly", issued)

	require.NoError(t, s.Verify(sig, "user_1", "ada@example.com", "pri_pro_monthly", issued.Add(time.Hour)))
	require.NoError(t, s.Verify(sig, "user_1", "ada@example.com", "pri_pro_monthly", issued.Add(-time.Minute)), "small skew")

	for name, tc := range map[string]struct {
		sig, user, email, price string
		at                      time.Time
	}{
		"other user":     {sig, "user_2", "ada@example.com", "pri_pro_monthly", issued},
		"other email":    {sig, "user_1", "eve@example.com", "pri_pro_monthly", issued},
		"other price":    {sig, "user_1", "ada@example.com", "pri_pro_yearly", issued},
		"other key":      {NewCheckoutSigner("another-secret").Sign("user_1", "ada@example.com", "pri_pro_monthly", issued), "user_1", "ada@example.com", "pri_pro_monthly", issued},
		"tampered time":  {"1780000001" + sig[10:], "user_1", "ada@example.com", "pri_pro_monthly", issued},
		"garbage":        {"nonsense", "user_1", "ada@example.com", "pri_pro_monthly", issued},
		"non-hex mac":    {"1780000000.zz", "user_1", "ada@example.com", "pri_pro_monthly", issued},
		"field shifting": {s.Sign("user_1|ada@example.com", "pri_pro_monthly", "", issued), "user_1", "ada@example.com", "pri_pro_monthly", issued},
	} {
		require.ErrorIs(t, s.Verify(tc.sig, tc.user, tc.email, tc.price, tc.at), ErrCheckoutSignature, name)
	}
	// Outside the window the MAC is still genuine: ErrCheckoutExpired, which only refuses to create a new
	// user from it (resolveUser binds an existing one whatever the age).
	require.ErrorIs(t, s.Verify(sig, "user_1", "ada@example.com", "pri_pro_monthly", issued.Add(6*time.Hour+time.Second)), ErrCheckoutExpired)
	require.ErrorIs(t, s.Verify(sig, "user_1", "ada@example.com", "pri_pro_monthly", issued.Add(-10*time.Minute)), ErrCheckoutExpired)
	at, err := s.VerifyMAC(sig, "user_1", "ada@example.com", "pri_pro_monthly")
	require.NoError(t, err)
	require.Equal(t, issued.Unix(), at.Unix())
}
