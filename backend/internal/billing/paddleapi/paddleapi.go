// Package paddleapi is the outbound Paddle Billing API client: it asks Paddle
// to cancel, reprice or resume a subscription and opens customer portal
// sessions. It never changes our tables: Paddle's webhooks drive state, so a
// successful call only means Paddle accepted the request.
package paddleapi

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	paddle "github.com/PaddleHQ/paddle-go-sdk/v4"
)

// Sentinel errors returned (wrapped) by every Client method. Use errors.Is.
var (
	// ErrNotFound means Paddle has no such entity (HTTP 404).
	ErrNotFound = errors.New("paddle: not found")
	// ErrConflict means the entity's current state forbids the action (HTTP
	// 409, or a 400 whose code is in conflictCodes).
	ErrConflict = errors.New("paddle: conflict")
	// ErrRejected means Paddle refused the request (other 4xx, including
	// 401/403). It is not retried: repeating it cannot help.
	ErrRejected = errors.New("paddle: request rejected")
	// ErrUnavailable means Paddle kept answering 429/5xx or could not be
	// reached until the retries were exhausted.
	ErrUnavailable = errors.New("paddle: unavailable")
)

const (
	defaultTimeout    = 10 * time.Second
	defaultMaxRetries = 3
	defaultBaseDelay  = 200 * time.Millisecond
	// maxDelay caps both the backoff and a server's Retry-After, so a call
	// lasts at most (MaxRetries+1)*Timeout + MaxRetries*maxDelay.
	maxDelay = 5 * time.Second
)

// Config configures a Client. app fills it from the environment.
type Config struct {
	// BaseURL is PADDLE_API_URL, e.g. https://sandbox-api.paddle.com.
	BaseURL string
	// APIKey is PADDLE_API_KEY. It is sent as a bearer token and never
	// appears in errors.
	APIKey string
	// Timeout bounds each attempt, response body included. Default 10s.
	Timeout time.Duration
	// MaxRetries is how many times a 429, 5xx or network failure is retried.
	// 0 means the default (3); a negative value disables retries.
	MaxRetries int
}

// Client calls the Paddle Billing API through the official SDK, with bounded
// retries. It is safe for concurrent use.
type Client struct {
	sdk     *paddle.SDK
	retry   *retryDoer
	apiKey  string
	baseURL string
}

// New validates cfg and builds a Client. It makes no network call.
func New(cfg Config) (*Client, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("paddleapi: PADDLE_API_URL is required")
	}
	if cfg.APIKey == "" {
		return nil, errors.New("paddleapi: PADDLE_API_KEY is required")
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("paddleapi: PADDLE_API_URL %q must be an absolute http(s) URL", cfg.BaseURL)
	}
	// The SDK keeps only the scheme and host of its base URL and silently drops
	// any path, so a prefix would be ignored: refuse it rather than surprise.
	if u.Path != "" && u.Path != "/" {
		return nil, fmt.Errorf("paddleapi: PADDLE_API_URL %q must not have a path", cfg.BaseURL)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = defaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	rd := &retryDoer{
		http:       &http.Client{Timeout: cfg.Timeout},
		maxRetries: cfg.MaxRetries,
		baseDelay:  defaultBaseDelay,
		maxDelay:   maxDelay,
		sleep:      sleepCtx,
	}
	sdk, err := paddle.New(cfg.APIKey, paddle.WithBaseURL(cfg.BaseURL), paddle.WithClient(rd))
	if err != nil {
		return nil, fmt.Errorf("paddleapi: build sdk: %w", err)
	}
	return &Client{sdk: sdk, retry: rd, apiKey: cfg.APIKey, baseURL: strings.TrimRight(cfg.BaseURL, "/")}, nil
}
