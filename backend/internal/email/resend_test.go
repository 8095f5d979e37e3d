package email_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

const testResendKey = "re_test_5ecret"

// fakeResend records every request and answers with Status and Body; Block makes it wait until the client
// goes away instead.
type fakeResend struct {
	Status int
	Body   string
	Block  bool

	mu   sync.Mutex
	reqs []recordedRequest
}

type recordedRequest struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

func (f *fakeResend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.reqs = append(f.reqs, recordedRequest{r.Method, r.URL.Path, r.Header.Clone(), body})
	f.mu.Unlock()
	if f.Block {
		<-r.Context().Done()
		return
	}
	w.WriteHeader(f.Status)
	_, _ = io.WriteString(w, f.Body)
}

func (f *fakeResend) Requests() []recordedRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recordedRequest(nil), f.reqs...)
}

func startFakeResend(t *testing.T, f *fakeResend) *email.ResendSender {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	s, err := email.NewResendSender(email.Config{From: testFrom, ResendAPIKey: testResendKey, ResendURL: srv.URL + "/"})
	require.NoError(t, err)
	return s
}

func TestResendSenderPostsEmail(t *testing.T) {
	t.Parallel()
	f := &fakeResend{Status: http.StatusOK, Body: `{"id":"49a3999c-0ce1-4ea6-ab68-afcd6dc2e794"}`}
	require.NoError(t, startFakeResend(t, f).Send(t.Context(), testMessage()))

	reqs := f.Requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	require.Equal(t, http.MethodPost, r.Method)
	require.Equal(t, "/emails", r.Path)
	require.Equal(t, "Bearer "+testResendKey, r.Header.Get("Authorization"))
	require.Equal(t, "welcome/user_123", r.Header.Get("Idempotency-Key"))
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))

	var body struct {
		From    string            `json:"from"`
		To      []string          `json:"to"`
		Subject string            `json:"subject"`
		Text    string            `json:"text"`
		HTML    string            `json:"html"`
		Headers map[string]string `json:"headers"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &body))
	require.Equal(t, testFrom, body.From)
	require.Equal(t, []string{"Ada <ada@example.com>"}, body.To)
	require.Equal(t, "Hello Ada", body.Subject)
	require.Equal(t, "plain body", body.Text)
	require.Equal(t, "<p>html body</p>", body.HTML)
	require.Equal(t, "<https://app.test/u?t=abc>", body.Headers["List-Unsubscribe"])
	require.Equal(t, "List-Unsubscribe=One-Click", body.Headers["List-Unsubscribe-Post"])
	require.Equal(t, "spring", body.Headers["X-Campaign"])
}

func TestResendSenderClassifiesStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status    int
		body      string
		wantErr   bool
		permanent bool
	}{
		{200, `{"id":"x"}`, false, false},
		{500, `{"name":"internal_server_error"}`, true, false},
		{503, ``, true, false},
		{429, `{"name":"rate_limit_exceeded"}`, true, false},
		{408, ``, true, false},
		{409, `{"name":"concurrent_idempotent_requests"}`, true, false},
		{422, `{"name":"validation_error","message":"Invalid ` + "`to`" + ` field."}`, true, true},
		{401, `{"message":"bad key Bearer ` + testResendKey + `"}`, true, true},
		{403, `{"name":"invalid_from_address"}`, true, true},
	} {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			t.Parallel()
			err := startFakeResend(t, &fakeResend{Status: tc.status, Body: tc.body}).Send(t.Context(), testMessage())
			if !tc.wantErr {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			require.Equal(t, tc.permanent, errorsIsPermanent(err), "error: %v", err)
			require.Contains(t, err.Error(), "status "+strconv.Itoa(tc.status))
			require.NotContains(t, err.Error(), testResendKey)
		})
	}
}

func TestResendSenderPermanentErrorQuotesBody(t *testing.T) {
	t.Parallel()
	long := `{"name":"validation_error","message":"` + strings.Repeat("x", 5000) + `"}`
	err := startFakeResend(t, &fakeResend{Status: 422, Body: long}).Send(t.Context(), testMessage())
	require.ErrorIs(t, err, email.ErrPermanent)
	require.Contains(t, err.Error(), "validation_error")
	require.Less(t, len(err.Error()), 400, "only a short part of the body belongs in the error")
}

func TestResendSenderHonoursContext(t *testing.T) {
	t.Parallel()
	s := startFakeResend(t, &fakeResend{Block: true})
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := s.Send(ctx, testMessage())
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.False(t, errorsIsPermanent(err))
	require.Less(t, time.Since(start), 5*time.Second)
}

func TestResendSenderNetworkErrorIsRetryable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // nothing listens there any more
	s, err := email.NewResendSender(email.Config{From: testFrom, ResendAPIKey: testResendKey, ResendURL: srv.URL})
	require.NoError(t, err)
	err = s.Send(t.Context(), testMessage())
	require.Error(t, err)
	require.False(t, errorsIsPermanent(err))
}

func TestResendSenderIdempotencyKeyHandling(t *testing.T) {
	t.Parallel()
	f := &fakeResend{Status: http.StatusOK}
	s := startFakeResend(t, f)
	m := testMessage()
	m.IdempotencyKey = ""
	require.NoError(t, s.Send(t.Context(), m))
	m.IdempotencyKey = strings.Repeat("k", 300) // over Resend's 256-character limit
	require.NoError(t, s.Send(t.Context(), m))

	reqs := f.Requests()
	require.Empty(t, reqs[0].Header.Values("Idempotency-Key"))
	long := reqs[1].Header.Get("Idempotency-Key")
	require.LessOrEqual(t, len(long), 256)
	require.True(t, strings.HasPrefix(long, "sha256:"))
}

func TestResendSenderRejectsBadRecipientWithoutCalling(t *testing.T) {
	t.Parallel()
	f := &fakeResend{Status: http.StatusOK}
	m := testMessage()
	m.To = "ada at example"
	require.ErrorIs(t, startFakeResend(t, f).Send(t.Context(), m), email.ErrPermanent)
	require.Empty(t, f.Requests())
}
