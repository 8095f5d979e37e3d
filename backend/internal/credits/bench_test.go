package credits_test

import (
	"context"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"strconv"
	"testing"
)

// BenchmarkGrant is one unbound grant: a single INSERT ... ON CONFLICT round trip in autocommit.
func BenchmarkGrant(b *testing.B) {
	svc, d := setup(b)
	user := newUser(b, svc, d, 0)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, _, err := svc.Grant(ctx, credits.GrantSpec{UserID: user, Amount: 1, Key: "bench-" + strconv.Itoa(i)}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDeduct is one unbound deduct: BEGIN, the user lock, the conditional insert (whose SUM grows
// with the user's history), COMMIT.
func BenchmarkDeduct(b *testing.B) {
	svc, d := setup(b)
	user := newUser(b, svc, d, 1<<30)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, _, err := svc.Deduct(ctx, user, 1, "bench-"+strconv.Itoa(i), ""); err != nil {
			b.Fatal(err)
		}
	}
}
