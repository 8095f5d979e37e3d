package billing

import (
	"encoding/hex"
	"strconv"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

// SignV1 is a checkout signature as issued before v2, "<issued>.<hex HMAC>" over
// v1|user|email|price|issued, for the tests of the signatures still in flight.
func SignV1(s *CheckoutSigner, clerkUserID, addr, priceID string, issued time.Time) string {
	ts := strconv.FormatInt(issued.Unix(), 10)
	return ts + "." + hex.EncodeToString(s.mac(ts, "v1", clerkUserID, email.Fold(addr), priceID))
}

// MonthlyBatch is the monthly-grants job's batch, for the tests that need more than one batch due.
const MonthlyBatch = monthlyBatch

// ExpiryBatch is the expiry job's batch, for the tests that need more than one batch due.
const ExpiryBatch = expiryBatch
