package billing

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDefaultTiers(t *testing.T) {
	t.Parallel()
	tiers, err := LoadTiers("")
	require.NoError(t, err)
	require.Equal(t, "free", tiers.Free().Name)
	require.Equal(t, 25, tiers.Free().SignupCredits)
	pro, err := tiers.ByPrice("pri_pro_yearly")
	require.NoError(t, err)
	require.Equal(t, 1000, pro.PeriodCredits)
	_, err = tiers.ByPrice("pri_nope")
	require.ErrorIs(t, err, ErrUnknownPrice)
}

func TestTiersValidation(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"no free tier":    "tiers:\n  - name: pro\n    paddle_price_ids: [a]\n",
		"two free tiers":  "tiers:\n  - name: free\n  - name: hobby\n",
		"duplicate name":  "tiers:\n  - name: free\n  - name: pro\n    paddle_price_ids: [a]\n  - name: pro\n    paddle_price_ids: [b]\n",
		"duplicate price": "tiers:\n  - name: free\n  - name: pro\n    paddle_price_ids: [a]\n  - name: team\n    paddle_price_ids: [a]\n",
		"negative":        "tiers:\n  - name: free\n    signup_credits: -1\n",
		"unnamed":         "tiers:\n  - name: free\n  - paddle_price_ids: [a]\n",
		"not yaml":        "tiers: [",
	} {
		_, err := ParseTiers([]byte(doc))
		require.Error(t, err, name)
	}
	_, err := LoadTiers("/nonexistent/tiers.yaml")
	require.Error(t, err)
}
