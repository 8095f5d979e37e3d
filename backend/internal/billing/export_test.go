package billing

// MonthlyBatch is the monthly-grants job's batch, for the tests that need more than one batch due.
const MonthlyBatch = monthlyBatch

// ExpiryBatch is the expiry job's batch, for the tests that need more than one batch due.
const ExpiryBatch = expiryBatch
