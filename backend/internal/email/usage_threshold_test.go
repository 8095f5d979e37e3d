package email

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestUsageThresholdSaysWhichThreshold(t *testing.T) {
	t.Parallel()
	resets := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		d               UsageThresholdData
		subject, inText string
	}{
		{UsageThresholdData{Feature: "api_calls", Threshold: "limit_80", Used: 800, Limit: 1000, ResetsAt: &resets},
			"You have used 80% of your api_calls on Fabrica", "used 800 of 1000 api_calls this month"},
		{UsageThresholdData{Feature: "api_calls", Threshold: "limit_100", Used: 1000, Limit: 1000, ResetsAt: &resets},
			"You have reached your api_calls limit on Fabrica", "refused until the limit resets"},
		{UsageThresholdData{Feature: "api_calls", Threshold: "limit_100", Used: 1000, Limit: 1000, Overage: true},
			"You have reached your api_calls limit on Fabrica", "still recorded and may be billed"},
		{UsageThresholdData{Threshold: "low_balance", Used: 3, Limit: 5},
			"Your Fabrica credit balance is low", "has 3 credits left, below 5"},
	} {
		tc.d.AppName, tc.d.Email = "Fabrica", "ada@example.com"
		subject, text, html, err := UsageThreshold(tc.d)
		require.NoError(t, err)
		require.Equal(t, tc.subject, subject)
		require.Contains(t, text, tc.inText)
		require.Contains(t, html, "ada@example.com")
	}
}
