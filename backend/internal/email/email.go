// Package email sends outbound mail through one Sender interface with three drivers (log for development,
// SMTP, and Resend over HTTP) and renders the transactional templates. Sends run inside background jobs that
// retry ordinary errors with backoff; a driver wraps ErrPermanent when a retry can never succeed.
package email

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/mail"
	"strings"
	"time"
)

// Message is one email ready to send.
type Message struct {
	To             string
	Subject        string
	Text           string
	HTML           string
	Headers        map[string]string // extra headers, e.g. List-Unsubscribe for marketing mail
	IdempotencyKey string            // e.g. "welcome/user_123": the provider drops a repeat with the same key
}

// Sender delivers one Message. An error wrapping ErrPermanent must not be retried; any other error may be.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

var (
	// ErrPermanent marks a failure the provider will never accept (bad address, rejected content, a 4xx other
	// than 408/409/429, an SMTP 5xx reply): the job must stop retrying.
	ErrPermanent = errors.New("permanent email failure")
	// ErrConfig marks an unusable Config; the message names the environment variable to fix.
	ErrConfig = errors.New("invalid email configuration")
)

// Config selects and configures a driver. Each field maps to one environment variable, named in errors.
type Config struct {
	Driver       string       // EMAIL_DRIVER: log | smtp | resend
	From         string       // EMAIL_FROM: "Name <addr>"
	SMTPURL      string       // SMTP_URL: see NewSMTPSender for the TLS rule
	ResendAPIKey string       // RESEND_API_KEY
	ResendURL    string       // default https://api.resend.com; tests point it at httptest
	HTTPClient   *http.Client // optional; default with a 15s timeout
}

// sendTimeout bounds one whole send, whatever deadline the caller's context carries, so a stuck provider
// cannot pin a job worker.
const sendTimeout = 30 * time.Second

// New builds the driver named by cfg.Driver. A nil log discards.
func New(cfg Config, log *slog.Logger) (Sender, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	switch cfg.Driver {
	case "log":
		return NewLogSender(log), nil
	case "smtp":
		return NewSMTPSender(cfg, log)
	case "resend":
		return NewResendSender(cfg)
	default:
		return nil, configErr("EMAIL_DRIVER", "unknown driver %q (want log, smtp or resend)", cfg.Driver)
	}
}

func configErr(variable, format string, args ...any) error {
	return fmt.Errorf("%w: %s %s", ErrConfig, variable, fmt.Sprintf(format, args...))
}

func parseFrom(from string) (*mail.Address, error) {
	a, err := mail.ParseAddress(from)
	if err != nil {
		return nil, configErr("EMAIL_FROM", "is not an address like \"Name <addr>\": %v", err)
	}
	return a, nil
}

// structuralHeaders are set by the drivers from Message fields; letting Headers override them would
// produce two From lines or a Content-Type that does not match the body.
var structuralHeaders = map[string]bool{
	"from": true, "to": true, "cc": true, "bcc": true, "subject": true,
	"content-type": true, "content-transfer-encoding": true, "mime-version": true,
}

// validate rejects what no provider will ever accept, before the network round-trip. A retry cannot fix
// any of these, so they are permanent.
func (m Message) validate() error {
	if _, err := mail.ParseAddress(m.To); err != nil {
		return fmt.Errorf("%w: bad recipient address: %v", ErrPermanent, err)
	}
	if strings.ContainsAny(m.Subject, "\r\n") {
		return fmt.Errorf("%w: subject contains a line break", ErrPermanent)
	}
	if m.Text == "" && m.HTML == "" {
		return fmt.Errorf("%w: message has neither text nor html body", ErrPermanent)
	}
	for k, v := range m.Headers {
		// CR or LF in a name or value would let data start a new header (header injection).
		if k == "" || strings.ContainsAny(k, "\r\n: ") || strings.ContainsAny(v, "\r\n") {
			return fmt.Errorf("%w: malformed header %q", ErrPermanent, k)
		}
		if structuralHeaders[strings.ToLower(k)] {
			return fmt.Errorf("%w: header %q is set from the message fields", ErrPermanent, k)
		}
	}
	return nil
}
