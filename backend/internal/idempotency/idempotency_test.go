package idempotency_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/idempotency"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// Twenty copies of one keyed request at once: the handler runs once, its write commits once, and every
// copy answers the first one's response.
func TestConcurrentCopiesRunTheHandlerOnce(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	require.NoError(t, d.Gorm.Exec(`CREATE TABLE effects (n int)`).Error)
	store := idempotency.New(d.Gorm, nil)
	req := idempotency.Request{Scope: "worker:abc", Key: "k-1", Hash: idempotency.Hash("POST", "/x", []byte(`{"a":1}`))}
	var runs atomic.Int32
	const n = 20
	start := make(chan struct{})
	var wg sync.WaitGroup
	replays := atomic.Int32{}
	for range n {
		wg.Go(func() {
			<-start
			resp, replayed, err := store.Run(context.Background(), req, func(ctx context.Context) (idempotency.Response, error) {
				runs.Add(1)
				err := idempotency.Transaction(ctx, d.Gorm, func(tx *gorm.DB) error {
					time.Sleep(20 * time.Millisecond) // hold the key while the copies arrive
					return tx.Exec(`INSERT INTO effects VALUES (1)`).Error
				})
				return idempotency.Response{Status: 201, ContentType: "application/json", Body: []byte(`{"id":1}`)}, err
			})
			require.NoError(t, err)
			require.Equal(t, 201, resp.Status)
			require.Equal(t, `{"id":1}`, string(resp.Body))
			if replayed {
				replays.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	require.Equal(t, int32(1), runs.Load())
	require.Equal(t, int32(n-1), replays.Load())
	var effects int
	require.NoError(t, d.Gorm.Raw(`SELECT count(*) FROM effects`).Scan(&effects).Error)
	require.Equal(t, 1, effects)

	_, _, err := store.Run(context.Background(), idempotency.Request{Scope: "worker:abc", Key: "k-1",
		Hash: idempotency.Hash("POST", "/x", []byte(`{"a":2}`))}, nil)
	require.ErrorIs(t, err, idempotency.ErrKeyReused)
	_, replayed, err := store.Run(context.Background(), idempotency.Request{Scope: "worker:other", Key: "k-1", Hash: req.Hash},
		func(context.Context) (idempotency.Response, error) { return idempotency.Response{Status: 200}, nil })
	require.NoError(t, err)
	require.False(t, replayed, "another caller's key of the same name is another key")
}

// A failure (an error or a 4xx) keeps nothing: the handler's writes roll back and the key can be retried.
func TestAFailedRequestLeavesTheKeyFree(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	require.NoError(t, d.Gorm.Exec(`CREATE TABLE effects (n int)`).Error)
	store := idempotency.New(d.Gorm, nil)
	req := idempotency.Request{Scope: "user:u", Key: "k", Hash: []byte("h")}
	write := func(ctx context.Context) error {
		return idempotency.Transaction(ctx, d.Gorm, func(tx *gorm.DB) error { return tx.Exec(`INSERT INTO effects VALUES (1)`).Error })
	}
	boom := errors.New("boom")
	_, _, err := store.Run(context.Background(), req, func(ctx context.Context) (idempotency.Response, error) {
		return idempotency.Response{}, errors.Join(write(ctx), boom)
	})
	require.ErrorIs(t, err, boom)
	resp, _, err := store.Run(context.Background(), req, func(ctx context.Context) (idempotency.Response, error) {
		return idempotency.Response{Status: 402}, write(ctx)
	})
	require.NoError(t, err)
	require.Equal(t, 402, resp.Status)
	resp, replayed, err := store.Run(context.Background(), req, func(ctx context.Context) (idempotency.Response, error) {
		return idempotency.Response{Status: 200}, write(ctx)
	})
	require.NoError(t, err)
	require.False(t, replayed)
	require.Equal(t, 200, resp.Status)
	var effects int
	require.NoError(t, d.Gorm.Raw(`SELECT count(*) FROM effects`).Scan(&effects).Error)
	require.Equal(t, 1, effects, "only the success kept its write")

	n, err := store.Purge(context.Background(), time.Now().Add(time.Hour), 100)
	require.NoError(t, err)
	require.Equal(t, 1, n)
}
