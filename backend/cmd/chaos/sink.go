package main

import (
	"bufio"
	"bytes"
	"net"
	"net/mail"
	"net/textproto"
	"strings"
	"sync"
	"time"
)

// sink is the SMTP server the fabrica processes send their welcome emails to (EMAIL_DRIVER=smtp,
// SMTP_URL=smtp://127.0.0.1:port). It waits delay before its greeting, as a real relay's round-trips and
// TLS do, so a kill -9 finds email jobs in flight; the log mailer finishes a job in microseconds and a
// kill would almost never strand one. A message counts as delivered when the sink answers 250 to its
// data, the moment a real relay takes responsibility for it.
type sink struct {
	ln    net.Listener
	delay time.Duration

	mu        sync.Mutex
	delivered []sunkMessage
	cut       int // sessions that ended before a message was delivered (the client died or gave up)
	wg        sync.WaitGroup
}

// sunkMessage is one accepted message.
type sunkMessage struct {
	at        time.Time
	to        string
	messageID string
}

func startSink(delay time.Duration) (*sink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &sink{ln: ln, delay: delay}
	s.wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Go(func() {
				defer conn.Close()
				s.serve(conn)
			})
		}
	})
	return s, nil
}

func (s *sink) addr() string { return s.ln.Addr().String() }

func (s *sink) close() {
	_ = s.ln.Close()
	s.wg.Wait()
}

// messages returns what was delivered so far and how many sessions were cut before delivering.
func (s *sink) messages() ([]sunkMessage, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sunkMessage(nil), s.delivered...), s.cut
}

// serve speaks just enough ESMTP for go-mail without TLS or AUTH: greeting, EHLO/HELO, MAIL, RCPT, DATA,
// RSET, NOOP, QUIT. Every session is bounded by a deadline.
func (s *sink) serve(conn net.Conn) {
	_ = conn.SetDeadline(time.Now().Add(s.delay + 30*time.Second))
	delivered := false
	defer func() {
		if !delivered {
			s.mu.Lock()
			s.cut++
			s.mu.Unlock()
		}
	}()
	time.Sleep(s.delay)
	tp := textproto.NewConn(conn)
	if tp.PrintfLine("220 chaos.test ESMTP") != nil {
		return
	}
	var rcpt string
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO":
			err = tp.PrintfLine("250-chaos.test\r\n250 8BITMIME")
		case "HELO", "MAIL", "RSET", "NOOP":
			err = tp.PrintfLine("250 OK")
		case "RCPT":
			_, addr, _ := strings.Cut(arg, ":") // TO:<a@example.com>
			rcpt = strings.Trim(addr, "<> ")
			err = tp.PrintfLine("250 OK")
		case "DATA":
			if err = tp.PrintfLine("354 end with <CRLF>.<CRLF>"); err != nil {
				return
			}
			var data []byte
			if data, err = tp.ReadDotBytes(); err != nil {
				return
			}
			s.record(rcpt, data)
			delivered = true
			err = tp.PrintfLine("250 OK queued")
		case "QUIT":
			_ = tp.PrintfLine("221 bye")
			return
		default:
			err = tp.PrintfLine("502 not implemented")
		}
		if err != nil {
			return
		}
	}
}

func (s *sink) record(rcpt string, data []byte) {
	m := sunkMessage{at: time.Now(), to: strings.ToLower(rcpt)}
	if msg, err := mail.ReadMessage(bufio.NewReader(bytes.NewReader(data))); err == nil {
		m.messageID = msg.Header.Get("Message-Id")
	}
	s.mu.Lock()
	s.delivered = append(s.delivered, m)
	s.mu.Unlock()
}
