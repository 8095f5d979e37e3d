package billing

import "slices"

// LiveStatuses are the subscription statuses that grant access: the paid tier holds through a trial, the
// active period, dunning (past_due) and a pause. This is the one definition; SQL takes it as a parameter
// (`status IN ?`) rather than a retyped list. A canceled subscription keeps access until its period ends,
// which is a matter of dates, not of status (see syncTier and ExpireCanceled).
var LiveStatuses = []string{"trialing", "active", "past_due", "paused"}

// IsLive reports whether status grants access.
func IsLive(status string) bool { return slices.Contains(LiveStatuses, status) }
