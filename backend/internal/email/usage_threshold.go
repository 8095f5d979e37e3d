package email

import "time"

// TemplateUsageThreshold tells a user they reached 80 % or 100 % of a feature's limit this usage month,
// or that their credit balance fell below their tier's low_balance (usage's notifications).
const TemplateUsageThreshold = "usage_threshold"

var usageThresholdTmpl = mustParse("usage_threshold")

// UsageThresholdData fills the usage_threshold mail.
type UsageThresholdData struct {
	Email, AppName string
	// Feature is the feature's name ("" for the credit balance).
	Feature string
	// Threshold is limit_80, limit_100 or low_balance.
	Threshold string
	// Used and Limit: the usage and the limit; for low_balance the balance and the tier's low_balance.
	Used, Limit int64
	// Overage: usage past the limit is recorded (overage: allow), not refused.
	Overage bool
	// ResetsAt is the end of the usage month (nil for the balance).
	ResetsAt *time.Time
	// ManageURL is where the user changes their plan ("" leaves the link out).
	ManageURL string
}

// UsageThreshold renders the usage_threshold mail.
func UsageThreshold(d UsageThresholdData) (subject, text, html string, err error) {
	return usageThresholdTmpl.render(d)
}
