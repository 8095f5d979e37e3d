package paddleapi

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// retryDoer is the http.Client wrapper handed to the SDK (paddle.WithClient).
// It retries 429, 5xx and network failures with capped exponential backoff
// and jitter. Every call we make is safe to repeat: cancel, update and resume
// converge on the same subscription state, and a second portal session is
// harmless. That is why even a POST whose response was lost is retried.
type retryDoer struct {
	http       *http.Client // Timeout bounds one attempt
	maxRetries int
	baseDelay  time.Duration
	maxDelay   time.Duration
	sleep      func(ctx context.Context, d time.Duration) error // injectable for tests
}

// Do sends req, retrying as described on retryDoer. It returns the last
// response so the SDK can decode Paddle's error body from it.
func (d *retryDoer) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	body, err := snapshotBody(req)
	if err != nil {
		return nil, err
	}
	rec := recorderFrom(ctx)
	for attempt := 0; ; attempt++ {
		try := req.Clone(ctx)
		if body != nil {
			// The SDK's GetBody returns the same, already drained buffer, so
			// each attempt gets a fresh reader over our own copy.
			try.Body = io.NopCloser(bytes.NewReader(body))
			try.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
			try.ContentLength = int64(len(body))
		}
		res, err := d.http.Do(try)
		rec.record(res)
		if !retryable(res, err) || attempt >= d.maxRetries || ctx.Err() != nil {
			return res, err
		}
		wait := d.backoff(attempt, res)
		if res != nil {
			// Drain a little so the connection can be reused, then let it go.
			_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
			_ = res.Body.Close()
		}
		if err := d.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// retryable reports whether a failed attempt may succeed if repeated.
func retryable(res *http.Response, err error) bool {
	if err != nil {
		return true // network error or per-attempt timeout
	}
	return res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500
}

// backoff returns the wait before retry number attempt+1: the server's
// Retry-After when given, else base*2^attempt with jitter; both capped.
func (d *retryDoer) backoff(attempt int, res *http.Response) time.Duration {
	if res != nil {
		if ra, ok := retryAfter(res.Header.Get("Retry-After"), time.Now()); ok {
			return min(ra, d.maxDelay)
		}
	}
	exp := min(d.baseDelay<<min(attempt, 16), d.maxDelay)
	// Equal jitter: at least half the delay, so clients spread out but never
	// hammer Paddle back-to-back.
	return exp/2 + rand.N(exp/2+1)
}

// retryAfter parses a Retry-After header: delay-seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(v); err == nil {
		return max(time.Duration(secs)*time.Second, 0), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// snapshotBody reads the request body once so every attempt can resend it.
func snapshotBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	return io.ReadAll(req.Body)
}

// sleepCtx waits for d or until ctx is done, whichever comes first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// attempts records, for one Client call, what the retrying doer saw. The SDK
// drops the HTTP status of API errors (paddleerr.Error.Status is never set),
// so the doer reports it through the call's context.
type attempts struct {
	count  int
	status int // of the last response; 0 if it failed at the network level
}

type attemptsKey struct{}

func withAttempts(ctx context.Context) (context.Context, *attempts) {
	a := &attempts{}
	return context.WithValue(ctx, attemptsKey{}, a), a
}

// recorderFrom returns the call's recorder, or a throwaway one.
func recorderFrom(ctx context.Context) *attempts {
	if a, ok := ctx.Value(attemptsKey{}).(*attempts); ok {
		return a
	}
	return &attempts{}
}

func (a *attempts) record(res *http.Response) {
	a.count++
	a.status = 0
	if res != nil {
		a.status = res.StatusCode
	}
}
