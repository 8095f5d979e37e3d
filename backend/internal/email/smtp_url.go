package email

import (
	"net"
	"net/url"
	"strconv"

	gomail "github.com/wneessen/go-mail"
)

// smtpTarget is where and how an SMTPSender connects, parsed from SMTP_URL.
type smtpTarget struct {
	host        string
	port        int
	implicitTLS bool             // TLS from the first byte (RFC 8314)
	policy      gomail.TLSPolicy // STARTTLS policy when !implicitTLS
	user, pass  string
}

// parseSMTPURL reads SMTP_URL. The TLS rule, safe unless the URL says otherwise:
//
//	smtps://user:pass@host[:465]           implicit TLS; so is any URL on port 465
//	smtp://user:pass@host[:587]            STARTTLS mandatory: no TLS offered, no send
//	smtp://host:1025                       loopback host (localhost, 127.0.0.0/8, ::1): no TLS by default
//	...?starttls=mandatory|opportunistic|off   overrides the STARTTLS default
//
// Credentials are refused with starttls=off on a non-loopback host: they would cross the network in clear.
// With opportunistic, go-mail still refuses to send them if the server offers no STARTTLS.
func parseSMTPURL(raw string) (smtpTarget, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		// Never echo raw or url's error: both carry the password.
		return smtpTarget{}, configErr("SMTP_URL", "is not a URL like smtp://user:pass@host:587")
	}
	t := smtpTarget{host: u.Hostname(), port: 587, policy: gomail.TLSMandatory}
	switch u.Scheme {
	case "smtp":
	case "smtps":
		t.implicitTLS, t.port = true, 465
	default:
		return smtpTarget{}, configErr("SMTP_URL", "has scheme %q (want smtp or smtps)", u.Scheme)
	}
	if p := u.Port(); p != "" {
		if t.port, err = strconv.Atoi(p); err != nil || t.port < 1 || t.port > 65535 {
			return smtpTarget{}, configErr("SMTP_URL", "has an invalid port %q", p)
		}
	}
	if t.port == 465 {
		t.implicitTLS = true
	}
	loopback := isLoopback(t.host)
	if loopback {
		t.policy = gomail.NoTLS
	}
	q := u.Query()
	if q.Has("starttls") {
		if t.implicitTLS {
			return smtpTarget{}, configErr("SMTP_URL", "sets starttls on an implicit TLS (smtps or port 465) URL")
		}
		switch q.Get("starttls") {
		case "mandatory":
			t.policy = gomail.TLSMandatory
		case "opportunistic":
			t.policy = gomail.TLSOpportunistic
		case "off":
			t.policy = gomail.NoTLS
		default:
			return smtpTarget{}, configErr("SMTP_URL", "has starttls=%q (want mandatory, opportunistic or off)",
				q.Get("starttls"))
		}
	}
	if u.User != nil {
		t.user = u.User.Username()
		t.pass, _ = u.User.Password()
	}
	if t.user != "" && !t.implicitTLS && t.policy == gomail.NoTLS && !loopback {
		return smtpTarget{}, configErr("SMTP_URL", "has credentials but starttls=off on a non-loopback host")
	}
	return t, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
