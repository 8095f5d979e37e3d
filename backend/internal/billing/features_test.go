package billing

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestFeaturesOfEachKind(t *testing.T) {
	t.Parallel()
	tiers, err := ParseTiers([]byte(`tiers:
  - name: free
    low_balance: 5
    features:
      api_calls: {limit: 1000, per: month}
      generations: {credits: 5, client_reportable: true}
      projects: {limit: 3}
      sso: false
  - name: pro
    paddle_price_ids: [pri_pro]
    features:
      api_calls: {limit: 100000, per: month, overage: allow}
      generations: {credits: 3}
      projects: {limit: 50, client_reportable: true}
      sso: true
`))
	require.NoError(t, err)
	free, _ := tiers.ByName("free")
	pro, _ := tiers.ByName("pro")
	require.Equal(t, 5, free.LowBalance)
	require.Equal(t, Feature{Name: "api_calls", Kind: FeatureCounter, Limit: 1000, Overage: OverageBlock}, free.Features["api_calls"],
		"a counter blocks unless it says otherwise")
	require.Equal(t, Feature{Name: "generations", Kind: FeatureCredits, CreditsPerUnit: 5, ClientReportable: true}, free.Features["generations"])
	require.Equal(t, Feature{Name: "projects", Kind: FeatureGauge, Limit: 3}, free.Features["projects"])
	_, ok := free.Feature("sso")
	require.False(t, ok, "false is the same as absent: disabled")
	require.Equal(t, OverageAllow, pro.Features["api_calls"].Overage)
	require.Equal(t, Feature{Name: "sso", Kind: FeatureSwitch}, pro.Features["sso"])
	require.Equal(t, []string{"api_calls", "generations", "projects", "sso"}, tiers.FeatureNames())
	require.True(t, free.Features["api_calls"].Blocks())
	require.False(t, pro.Features["api_calls"].Blocks())
	require.True(t, free.Features["projects"].Blocks())
}

// Every mistake fails the boot naming the file, the tier and the key.
func TestFeatureMistakesFailTheBoot(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ features, want string }{
		{`{api_calls: {limit: 10, per: month, overage: blok}}`, `pro: features.api_calls: overage: "blok" is not block or allow`},
		{`{api_calls: {limt: 10}}`, `pro: features.api_calls: unknown key "limt"`},
		{`{api_calls: {limit: 10, per: week}}`, `pro: features.api_calls: per: "week" is not supported`},
		{`{api_calls: {limit: -1, per: month}}`, `pro: features.api_calls: limit: want 0..`},
		{`{generations: {credits: 5, limit: 10}}`, `pro: features.generations: credits: a credits feature is limited by the balance`},
		{`{generations: {credits: 0}}`, `pro: features.generations: credits: want 1..`},
		{`{projects: {limit: 3, overage: allow}}`, `pro: features.projects: overage: a gauge`},
		{`{projects: {per: month}}`, `pro: features.projects: limit: required`},
		{`{sso: yes please}`, `pro: features.sso: want true`},
		{`{Api-Calls: true}`, `pro: features.Api-Calls: a feature name is`},
		{`[sso]`, `pro: features: want a map`},
		{`{api_calls: {limit: 5}}`, `pro: features.api_calls: is a gauge here but a counter in another tier`},
	} {
		doc := "tiers:\n  - name: free\n    features: {api_calls: {limit: 1, per: month}}\n  - name: pro\n    paddle_price_ids: [p]\n    features: " + tc.features + "\n"
		path := filepath.Join(t.TempDir(), "tiers.yaml")
		require.NoError(t, os.WriteFile(path, []byte(doc), 0o600))
		_, err := LoadTiers(path)
		require.ErrorContains(t, err, tc.want, tc.features)
		require.ErrorContains(t, err, path, "the file is named")
	}
	_, err := ParseTiers([]byte("tiers:\n  - name: free\n    low_balance: -1\n"))
	require.ErrorContains(t, err, "free: low_balance: cannot be negative")
}

func TestDefaultTiersDeclareFeatures(t *testing.T) {
	t.Parallel()
	tiers, err := LoadTiers("")
	require.NoError(t, err)
	require.NotEmpty(t, tiers.FeatureNames(), "the shipped tiers file shows every kind")
}

// Subscribers' usage months are their grant months (before the anchor as after it); free users' are
// calendar months, UTC.
func TestUsageMonth(t *testing.T) {
	t.Parallel()
	d := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		require.NoError(t, err)
		return v
	}
	anchor := d("2026-01-31T10:00:00Z")
	for _, tc := range []struct {
		anchor     *time.Time
		at         string
		start, end string
	}{
		{nil, "2026-03-15T12:00:00Z", "2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z"},
		{nil, "2026-03-01T00:00:00Z", "2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z"},
		{nil, "2026-02-28T23:59:59Z", "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"},
		{&anchor, "2026-01-31T10:00:00Z", "2026-01-31T10:00:00Z", "2026-02-28T10:00:00Z"},
		{&anchor, "2026-02-28T09:59:59Z", "2026-01-31T10:00:00Z", "2026-02-28T10:00:00Z"},
		{&anchor, "2026-03-15T00:00:00Z", "2026-02-28T10:00:00Z", "2026-03-31T10:00:00Z"},
		{&anchor, "2027-02-10T00:00:00Z", "2027-01-31T10:00:00Z", "2027-02-28T10:00:00Z"},
		{&anchor, "2026-01-15T00:00:00Z", "2025-12-31T10:00:00Z", "2026-01-31T10:00:00Z"},
		{&anchor, "2025-12-01T00:00:00Z", "2025-11-30T10:00:00Z", "2025-12-31T10:00:00Z"},
	} {
		start, end := UsageMonth(tc.anchor, d(tc.at))
		require.Equal(t, d(tc.start), start, tc.at)
		require.Equal(t, d(tc.end), end, tc.at)
	}
	// Within a period, the usage month is the grant month.
	p := period{StartsAt: anchor, EndsAt: anchor.AddDate(1, 0, 0)}
	for at := anchor; at.Before(p.EndsAt); at = at.Add(37 * time.Hour) {
		m, ok := monthOf(p, at)
		require.True(t, ok)
		start, _ := UsageMonth(&anchor, at)
		require.Equal(t, m, start, at)
	}
}
