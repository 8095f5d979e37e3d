package paddleapi

import (
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
)

// The development customer is the same for an email on every machine and run, whatever its case.
func TestDevCustomerIsDeterministic(t *testing.T) {
	t.Parallel()
	d := NewDev(slog.New(slog.NewTextHandler(io.Discard, nil)))
	a, err := d.EnsureCustomer(t.Context(), "Dev@Example.com ")
	require.NoError(t, err)
	b, _ := d.EnsureCustomer(t.Context(), "dev@example.com")
	require.Equal(t, a, b)
	require.Regexp(t, `^ctm_dev_[0-9a-f]{20}$`, a)
	c, _ := d.EnsureCustomer(t.Context(), "other@example.com")
	require.NotEqual(t, a, c)
	url, err := d.PortalURL(t.Context(), a, nil)
	require.NoError(t, err)
	require.Equal(t, "https://paddle-portal.invalid/"+a, url)
	require.NoError(t, d.ChangeItems(t.Context(), "sub_1", map[string]int{"pri_team_monthly": 1}, true))
}
