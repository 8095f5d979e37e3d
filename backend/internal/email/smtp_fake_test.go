package email_test

import (
	"encoding/base64"
	"io"
	"net"
	"net/textproto"
	"strings"
	"sync"
	"testing"
)

// fakeSMTP is a recording SMTP server on 127.0.0.1: just enough ESMTP for go-mail (greeting, EHLO, AUTH
// PLAIN/LOGIN, MAIL, RCPT, DATA, RSET, NOOP, QUIT) and no STARTTLS. It records one smtpSession per connection.
type fakeSMTP struct {
	Addr      string
	AuthMechs string // advertised in EHLO; "" advertises no AUTH
	RcptReply string // reply to RCPT TO, e.g. "550 5.1.1 no such user"; "" accepts
	DataReply string // reply after the message data; "" accepts
	HangupOn  string // command verb at which the server drops the connection without replying
	Stall     bool   // accept the connection but never greet

	mu       sync.Mutex
	sessions []smtpSession
	wg       sync.WaitGroup
}

type smtpSession struct {
	AuthMech, AuthUser, AuthPass string
	MailFrom                     string
	Rcpts                        []string
	Data                         string
}

// startFakeSMTP starts the server after configure has set its knobs; it stops when the test ends.
func startFakeSMTP(t *testing.T, configure func(*fakeSMTP)) *fakeSMTP {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeSMTP{Addr: ln.Addr().String(), AuthMechs: "PLAIN LOGIN"}
	if configure != nil {
		configure(f)
	}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				defer conn.Close()
				f.serve(conn)
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		f.wg.Wait()
	})
	return f
}

// Sessions returns what every finished or ongoing connection has recorded so far.
func (f *fakeSMTP) Sessions() []smtpSession {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]smtpSession(nil), f.sessions...)
}

func (f *fakeSMTP) serve(conn net.Conn) {
	if f.Stall {
		_, _ = io.Copy(io.Discard, conn) // until the client gives up and closes
		return
	}
	f.mu.Lock()
	f.sessions = append(f.sessions, smtpSession{})
	idx := len(f.sessions) - 1
	f.mu.Unlock()
	record := func(fn func(*smtpSession)) {
		f.mu.Lock()
		fn(&f.sessions[idx])
		f.mu.Unlock()
	}

	tp := textproto.NewConn(conn)
	reply := func(lines ...string) { _ = tp.PrintfLine("%s", strings.Join(lines, "\r\n")) }
	reply("220 fake.test ESMTP ready")
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		verb = strings.ToUpper(verb)
		if verb == f.HangupOn {
			return
		}
		switch verb {
		case "EHLO":
			if f.AuthMechs == "" {
				reply("250-fake.test", "250 8BITMIME")
			} else {
				reply("250-fake.test", "250-AUTH "+f.AuthMechs, "250 8BITMIME")
			}
		case "HELO", "RSET", "NOOP":
			reply("250 OK")
		case "AUTH":
			if !f.auth(tp, arg, record) {
				return
			}
		case "MAIL":
			record(func(s *smtpSession) { s.MailFrom = angle(arg) })
			reply("250 2.1.0 OK")
		case "RCPT":
			if f.RcptReply != "" {
				reply(f.RcptReply)
				continue
			}
			record(func(s *smtpSession) { s.Rcpts = append(s.Rcpts, angle(arg)) })
			reply("250 2.1.5 OK")
		case "DATA":
			reply("354 end with <CRLF>.<CRLF>")
			data, err := tp.ReadDotBytes()
			if err != nil {
				return
			}
			if f.DataReply != "" {
				reply(f.DataReply)
				continue
			}
			record(func(s *smtpSession) { s.Data = string(data) })
			reply("250 2.0.0 queued")
		case "QUIT":
			reply("221 2.0.0 bye")
			return
		default:
			reply("502 5.5.2 not implemented")
		}
	}
}

// auth handles AUTH PLAIN (with or without an initial response) and AUTH LOGIN and accepts any credentials.
func (f *fakeSMTP) auth(tp *textproto.Conn, arg string, record func(func(*smtpSession))) bool {
	mech, initial, _ := strings.Cut(arg, " ")
	read := func(challenge string) (string, bool) {
		_ = tp.PrintfLine("334 %s", base64.StdEncoding.EncodeToString([]byte(challenge)))
		line, err := tp.ReadLine()
		if err != nil {
			return "", false
		}
		b, _ := base64.StdEncoding.DecodeString(line)
		return string(b), true
	}
	var user, pass string
	switch strings.ToUpper(mech) {
	case "PLAIN":
		resp, _ := base64.StdEncoding.DecodeString(initial)
		if initial == "" {
			s, ok := read("")
			if !ok {
				return false
			}
			resp = []byte(s)
		}
		parts := strings.SplitN(string(resp), "\x00", 3)
		if len(parts) == 3 {
			user, pass = parts[1], parts[2]
		}
	case "LOGIN":
		var ok bool
		if user, ok = read("Username:"); !ok {
			return false
		}
		if pass, ok = read("Password:"); !ok {
			return false
		}
	default:
		_ = tp.PrintfLine("504 5.5.4 unrecognized mechanism")
		return true
	}
	record(func(s *smtpSession) { s.AuthMech, s.AuthUser, s.AuthPass = strings.ToUpper(mech), user, pass })
	_ = tp.PrintfLine("235 2.7.0 authenticated")
	return true
}

// angle extracts the address from "FROM:<a@b> BODY=8BITMIME".
func angle(arg string) string {
	_, rest, _ := strings.Cut(arg, "<")
	addr, _, _ := strings.Cut(rest, ">")
	return addr
}
