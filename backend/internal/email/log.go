package email

import (
	"context"
	"log/slog"
)

// LogSender is the development driver: it writes each message to the log instead of sending it.
type LogSender struct {
	log *slog.Logger
}

// NewLogSender returns a LogSender writing to log.
func NewLogSender(log *slog.Logger) *LogSender {
	return &LogSender{log: log}
}

// Send logs the recipient, subject, idempotency key and text body at info. It never fails, so development
// flows that send mail are never blocked by it. The HTML body is left out: it is long, and the text body
// carries the same links.
func (s *LogSender) Send(ctx context.Context, m Message) error {
	s.log.InfoContext(ctx, "email not sent (log driver)",
		slog.String("to", m.To),
		slog.String("subject", m.Subject),
		slog.String("idempotency_key", m.IdempotencyKey),
		slog.String("text", m.Text),
	)
	return nil
}
