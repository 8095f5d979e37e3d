package email

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// DefaultResendURL is Resend's API base URL.
const DefaultResendURL = "https://api.resend.com"

const (
	// maxIdempotencyKey is Resend's documented limit; longer keys are hashed rather than rejected.
	maxIdempotencyKey = 256
	// errorSnippet is how much of an error response body goes into the error: enough for Resend's
	// {"name":...,"message":...}, too little to flood a log.
	errorSnippet = 200
)

// ResendSender delivers through Resend's HTTP API, without the SDK: one endpoint, one JSON body.
type ResendSender struct {
	url    string
	key    string
	from   string
	client *http.Client
}

// NewResendSender checks cfg.ResendAPIKey and cfg.From and fills in the URL and client defaults.
func NewResendSender(cfg Config) (*ResendSender, error) {
	if cfg.ResendAPIKey == "" {
		return nil, configErr("RESEND_API_KEY", "is required when EMAIL_DRIVER=resend")
	}
	if _, err := parseFrom(cfg.From); err != nil {
		return nil, err
	}
	s := &ResendSender{url: DefaultResendURL, key: cfg.ResendAPIKey, from: cfg.From, client: cfg.HTTPClient}
	if cfg.ResendURL != "" {
		s.url = strings.TrimRight(cfg.ResendURL, "/")
	}
	if s.client == nil {
		s.client = &http.Client{Timeout: 15 * time.Second}
	}
	return s, nil
}

type resendEmail struct {
	From    string            `json:"from"`
	To      []string          `json:"to"`
	Subject string            `json:"subject"`
	Text    string            `json:"text,omitempty"`
	HTML    string            `json:"html,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Send POSTs the message to {ResendURL}/emails. 2xx is success; 408, 409, 429, 5xx and network errors are
// retryable; any other status wraps ErrPermanent.
func (s *ResendSender) Send(ctx context.Context, m Message) error {
	if err := m.validate(); err != nil {
		return fmt.Errorf("resend send: %w", err)
	}
	body, err := json.Marshal(resendEmail{
		From: s.from, To: []string{m.To}, Subject: m.Subject, Text: m.Text, HTML: m.HTML, Headers: m.Headers,
	})
	if err != nil {
		return fmt.Errorf("resend send: encode: %w", err)
	}
	// The client's own timeout may be zero if the caller supplied one; this keeps the send bounded anyway.
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url+"/emails", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("resend send: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Content-Type", "application/json")
	if key := idempotencyKey(m.IdempotencyKey); key != "" {
		// A job retried after a timeout may repeat a send Resend already accepted; the key makes it a no-op.
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("resend send: %w", err)
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, errorSnippet))
	// Drain a little more so the connection can be reused, but never read an unbounded body.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))

	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	detail := fmt.Sprintf("status %d: %s", resp.StatusCode, s.clean(snippet))
	if retryableStatus(resp.StatusCode) {
		return fmt.Errorf("resend send: %s", detail)
	}
	return fmt.Errorf("resend send: %w: %s", ErrPermanent, detail)
}

// retryableStatus: timeouts, rate limits, server faults, and 409, which Resend returns while a request with
// the same idempotency key is still in flight.
func retryableStatus(code int) bool {
	switch code {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooManyRequests:
		return true
	}
	return code >= 500 || code < 400 // 1xx/3xx are not expected from this API; retry rather than drop mail
}

// clean makes a body snippet safe for one log line and strips the API key should a proxy ever echo it.
func (s *ResendSender) clean(b []byte) string {
	out := strings.Join(strings.Fields(string(b)), " ")
	return strings.ReplaceAll(out, s.key, "[redacted]")
}

func idempotencyKey(k string) string {
	if len(k) <= maxIdempotencyKey {
		return k
	}
	sum := sha256.Sum256([]byte(k))
	return "sha256:" + hex.EncodeToString(sum[:])
}
