package email

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/textproto"
	"strings"
	"sync"

	gomail "github.com/wneessen/go-mail"
)

// SMTPSender delivers through an SMTP relay with github.com/wneessen/go-mail. It dials a fresh connection
// per Send: mail volume is low, and no pooled connection can go stale between jobs.
type SMTPSender struct {
	smtpTarget
	from       string
	fromDomain string
	log        *slog.Logger
}

// NewSMTPSender parses cfg.SMTPURL (see parseSMTPURL for the TLS rule) and cfg.From.
func NewSMTPSender(cfg Config, log *slog.Logger) (*SMTPSender, error) {
	if cfg.SMTPURL == "" {
		return nil, configErr("SMTP_URL", "is required when EMAIL_DRIVER=smtp")
	}
	target, err := parseSMTPURL(cfg.SMTPURL)
	if err != nil {
		return nil, err
	}
	from, err := parseFrom(cfg.From)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	domain := from.Address[strings.LastIndexByte(from.Address, '@')+1:]
	return &SMTPSender{smtpTarget: target, from: cfg.From, fromDomain: domain, log: log}, nil
}

// Send builds a multipart/alternative message and delivers it over one connection. An SMTP 5xx reply is
// permanent; a 4xx reply, a dropped connection or a timeout is retryable.
func (s *SMTPSender) Send(ctx context.Context, m Message) error {
	if err := m.validate(); err != nil {
		return fmt.Errorf("smtp send: %w", err)
	}
	msg, err := s.build(m)
	if err != nil {
		return fmt.Errorf("smtp send: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()

	// go-mail applies ctx to the TCP dial only, and leaves the socket open when EHLO, STARTTLS or AUTH fail.
	// Closing the socket ourselves, when ctx ends and when we return, bounds every step and leaks nothing.
	var cc connCloser
	dial := func(dctx context.Context, network, addr string) (net.Conn, error) {
		c, err := s.dial(dctx, network, addr)
		if err != nil {
			return nil, err
		}
		return c, cc.hold(c)
	}
	defer cc.close()
	defer context.AfterFunc(ctx, cc.close)()
	client, err := gomail.NewClient(s.host, s.options(dial)...)
	if err != nil {
		return fmt.Errorf("smtp send: new client: %w", err)
	}

	sc, err := client.DialToSMTPClientWithContext(ctx)
	if err != nil {
		return classifySMTP(ctx, fmt.Errorf("dial %s: %w", client.ServerAddr(), err))
	}
	sendErr := client.SendWithSMTPClient(sc, msg)
	quitErr := client.CloseWithSMTPClient(sc)
	if msg.IsDelivered() {
		// The server took responsibility at the end of DATA; a failed QUIT must not make the job send again.
		if quitErr != nil {
			s.log.DebugContext(ctx, "smtp quit after delivery failed", slog.Any("error", quitErr))
		}
		return nil
	}
	return classifySMTP(ctx, errors.Join(sendErr, quitErr))
}

func (s *SMTPSender) options(dial gomail.DialContextFunc) []gomail.Option {
	opts := []gomail.Option{
		gomail.WithPort(s.port),
		gomail.WithDialContextFunc(dial),
		gomail.WithTLSPolicy(s.policy),
		// One message per connection: NOOP before it and RSET after it are round-trips that buy nothing, and
		// a failed RSET would report an already delivered message as an error.
		gomail.WithoutNoop(),
		gomail.WithoutRset(),
	}
	if s.implicitTLS {
		// With a custom dial func go-mail does not wrap TLS itself; WithSSL only stops it trying STARTTLS.
		opts = append(opts, gomail.WithSSL())
	}
	if s.user != "" {
		mechs := []gomail.SMTPAuthType{gomail.SMTPAuthPlain, gomail.SMTPAuthLogin}
		if s.policy == gomail.NoTLS && !s.implicitTLS {
			// Only reachable for a loopback host (parseSMTPURL refuses credentials in clear elsewhere);
			// go-mail's own loopback exception does not cover every 127/8 address or a "localhost" alias.
			mechs = []gomail.SMTPAuthType{gomail.SMTPAuthPlainNoEnc, gomail.SMTPAuthLoginNoEnc}
		}
		opts = append(opts, gomail.WithOpportunisticSMTPAuth(mechs...),
			gomail.WithUsername(s.user), gomail.WithPassword(s.pass))
	}
	return opts
}

func (s *SMTPSender) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{}
	if !s.implicitTLS {
		return d.DialContext(ctx, network, addr)
	}
	// Returns the *tls.Conn itself: go-mail's smtp package type-asserts it to know the session is encrypted.
	td := &tls.Dialer{NetDialer: d, Config: &tls.Config{ServerName: s.host, MinVersion: tls.VersionTLS12}}
	return td.DialContext(ctx, network, addr)
}

func (s *SMTPSender) build(m Message) (*gomail.Msg, error) {
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	if err := msg.From(s.from); err != nil {
		return nil, configErr("EMAIL_FROM", "rejected by go-mail: %v", err)
	}
	if err := msg.To(m.To); err != nil {
		return nil, fmt.Errorf("%w: bad recipient address: %v", ErrPermanent, err)
	}
	msg.Subject(m.Subject)
	for k, v := range m.Headers {
		msg.SetGenHeader(gomail.Header(k), v)
	}
	if m.IdempotencyKey != "" {
		// SMTP has no idempotency key. A Message-ID derived from ours makes a job retry's duplicate carry the
		// same ID, which receiving mailboxes (Gmail among them) collapse into one.
		sum := sha256.Sum256([]byte(m.IdempotencyKey))
		msg.SetMessageIDWithValue(hex.EncodeToString(sum[:16]) + "@" + s.fromDomain)
	}
	switch {
	case m.Text != "" && m.HTML != "":
		msg.SetBodyString(gomail.TypeTextPlain, m.Text)
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML) // last alternative is the preferred one
	case m.HTML != "":
		msg.SetBodyString(gomail.TypeTextHTML, m.HTML)
	default:
		msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	}
	return msg, nil
}

// classifySMTP wraps ErrPermanent for a 5xx reply, the SMTP code for "never retry this as is".
func classifySMTP(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		// We closed the socket ourselves; say why rather than "use of closed network connection".
		return fmt.Errorf("smtp send: %w: %v", ctxErr, err)
	}
	if code := smtpReplyCode(err); code >= 500 && code < 600 {
		return fmt.Errorf("smtp send: %w: %v", ErrPermanent, err)
	}
	return fmt.Errorf("smtp send: %w", err)
}

// smtpReplyCode digs out the server's reply code. go-mail's SendError has no Unwrap, so errors.As cannot
// reach the *textproto.Error inside it; its ErrorCode method can.
func smtpReplyCode(err error) int {
	var se *gomail.SendError
	if errors.As(err, &se) {
		return se.ErrorCode()
	}
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return 0
}

// connCloser holds the one connection a Send dials, so that another goroutine (context.AfterFunc) can close it.
type connCloser struct {
	mu     sync.Mutex
	conn   net.Conn
	closed bool
}

// hold records conn, or closes it at once if ctx ended while it was being dialled.
func (c *connCloser) hold(conn net.Conn) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		_ = conn.Close()
		return net.ErrClosed
	}
	c.conn = conn
	return nil
}

func (c *connCloser) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.conn != nil {
		_ = c.conn.Close() // after QUIT it is already closed; the error says nothing new
	}
}
