package usage_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/usage"
)

// Every statement of an event's path and of the entitlements read settles on a generic plan, as pgx's
// cached statements allow: a statement Postgres keeps planning anew (a custom plan per execution, as it
// did for the users' context with `= ANY($1)`) cost a quarter of the single-event rate in the usage
// benchmark.
func TestRecordingStatementsSettleOnGenericPlans(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.user(t, "free", 100)
	ctx := context.Background()
	sqlDB, err := e.db.Gorm.DB()
	require.NoError(t, err)
	sqlDB.SetMaxOpenConns(1) // one connection: its prepared statements tell how each was planned
	for i := range 10 {
		require.NoError(t, e.db.Gorm.Transaction(func(tx *gorm.DB) error {
			_, err := e.svc.Record(ctx, tx, usage.Event{UserID: u, Feature: "api_calls", Quantity: 1, Key: fmt.Sprint("k", i)})
			return err
		}))
		_, err := e.svc.RecordEvents(ctx, []usage.Event{{UserID: u, Feature: "api_calls", Quantity: 1, Key: fmt.Sprint("r", i)}})
		require.NoError(t, err)
		_, err = e.svc.Entitlements(ctx, u)
		require.NoError(t, err)
	}
	var rows []struct {
		Statement    string
		GenericPlans int64
	}
	require.NoError(t, e.db.Gorm.Raw(`SELECT statement, generic_plans FROM pg_prepared_statements`).Scan(&rows).Error)
	checked := 0
	for _, r := range rows {
		for _, mark := range []string{"array_agg(u.current_tier)", "INSERT INTO usage_claims", "WITH mine AS", "FROM usage_gauges WHERE user_id = $1) x"} {
			if strings.Contains(r.Statement, mark) {
				checked++
				require.Positive(t, r.GenericPlans, "planned anew every time: %.80s", r.Statement)
			}
		}
	}
	require.Equal(t, 4, checked)
}
