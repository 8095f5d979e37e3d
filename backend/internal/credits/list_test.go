package credits_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
)

func TestListPagination(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 0)
	newUser(t, svc, d, 3) // another user's grant, which List must not return
	for i := range 4 {
		_, _, err := svc.Grant(ctx, credits.GrantSpec{UserID: user, Amount: 1, Key: fmt.Sprintf("solo-%d", i)})
		require.NoError(t, err)
	}
	// Rows of one transaction share created_at (NOW() is the transaction's start), so only the id
	// orders them: the cursor must not skip or repeat any of them.
	require.NoError(t, d.Gorm.Transaction(func(tx *gorm.DB) error {
		for i := range 4 {
			if _, _, err := svc.WithTx(tx).Grant(ctx, credits.GrantSpec{UserID: user, Amount: 1, Key: fmt.Sprintf("batch-%d", i)}); err != nil {
				return err
			}
		}
		return nil
	}))

	all, next, err := svc.List(ctx, user, 100, "")
	require.NoError(t, err)
	require.Empty(t, next)
	require.Len(t, all, 8, "only this user's rows")

	var paged []credits.Movement
	cursor := ""
	for page := 1; ; page++ {
		items, next, err := svc.List(ctx, user, 3, cursor)
		require.NoError(t, err)
		require.LessOrEqual(t, page, 3)
		paged = append(paged, items...)
		if next == "" {
			require.Equal(t, 3, page)
			require.Len(t, items, 2)
			break
		}
		require.Len(t, items, 3)
		cursor = next
	}
	require.Equal(t, all, paged, "pages concatenate to the full list, in the same order")
	for i := 1; i < len(all); i++ {
		prev, cur := all[i-1], all[i]
		require.False(t, cur.CreatedAt.After(prev.CreatedAt), "newest first")
	}
}

func TestListEmptyAndExactPage(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 0)
	items, next, err := svc.List(ctx, user, 0, "")
	require.NoError(t, err)
	require.NotNil(t, items)
	require.Empty(t, items)
	require.Empty(t, next)

	for i := range 2 {
		_, _, err := svc.Grant(ctx, credits.GrantSpec{UserID: user, Amount: 1, Key: fmt.Sprintf("g-%d", i)})
		require.NoError(t, err)
	}
	// Exactly limit rows: a last page, so no cursor to a page that would be empty.
	items, next, err = svc.List(ctx, user, 2, "")
	require.NoError(t, err)
	require.Len(t, items, 2)
	require.Empty(t, next)
}

func TestListLimitClamp(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	user := newUser(t, svc, d, 0)
	require.NoError(t, d.Gorm.Exec(`INSERT INTO credit_transactions (user_id, delta, kind, job_id)
		SELECT ?, 1, 'grant', 'bulk-' || n FROM generate_series(1, 120) AS n`, user).Error)
	for limit, want := range map[int]int{0: 50, -4: 1, 1: 1, 100: 100, 500: 100} {
		items, next, err := svc.List(context.Background(), user, limit, "")
		require.NoError(t, err)
		require.Len(t, items, want, "limit %d", limit)
		require.NotEmpty(t, next, "limit %d", limit)
	}
}

func TestListBadCursor(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	user := newUser(t, svc, d, 1)
	for _, cursor := range []string{"not base64!", base64.RawURLEncoding.EncodeToString([]byte("short")), "AAAA"} {
		items, next, err := svc.List(context.Background(), user, 10, cursor)
		require.ErrorIs(t, err, credits.ErrBadCursor, cursor)
		require.Nil(t, items)
		require.Empty(t, next)
	}
}
