package email_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

func TestLogSenderLogsOneRecordWithoutHTML(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	s := email.NewLogSender(slog.New(slog.NewJSONHandler(&buf, nil)))
	require.NoError(t, s.Send(t.Context(), testMessage()))

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 1)
	var rec map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &rec))
	require.Equal(t, "INFO", rec["level"])
	require.Equal(t, "Ada <ada@example.com>", rec["to"])
	require.Equal(t, "Hello Ada", rec["subject"])
	require.Equal(t, "welcome/user_123", rec["idempotency_key"])
	require.Equal(t, "plain body", rec["text"])
	require.NotContains(t, lines[0], "html body")
}

func TestLogSenderNeverFails(t *testing.T) {
	t.Parallel()
	s := email.NewLogSender(slog.New(slog.DiscardHandler))
	require.NoError(t, s.Send(t.Context(), email.Message{}))
}
