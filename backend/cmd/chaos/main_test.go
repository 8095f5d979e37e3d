package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

// The sink must speak enough SMTP for the real driver, and see a retried send as the same Message-ID.
func TestSinkTakesTheSMTPDriver(t *testing.T) {
	t.Parallel()
	s, err := startSink(0)
	require.NoError(t, err)
	t.Cleanup(s.close)
	sender, err := email.NewSMTPSender(email.Config{SMTPURL: "smtp://" + s.addr(), From: "Fabrica <hello@localhost>"}, nil)
	require.NoError(t, err)
	msg := email.Message{To: "Ada@Chaos.test", Subject: "Welcome", Text: "hi", IdempotencyKey: "welcome/user_1"}
	require.NoError(t, sender.Send(context.Background(), msg))
	require.NoError(t, sender.Send(context.Background(), msg))

	got, cut := s.messages()
	require.Len(t, got, 2)
	require.Zero(t, cut)
	require.Equal(t, "ada@chaos.test", got[0].to)
	require.NotEmpty(t, got[0].messageID)
	require.Equal(t, got[0].messageID, got[1].messageID, "the driver derives Message-ID from the idempotency key")
}

// A client that dies during the greeting delay delivers nothing: the session is counted as cut.
func TestSinkCountsCutSessions(t *testing.T) {
	t.Parallel()
	s, err := startSink(100 * time.Millisecond)
	require.NoError(t, err)
	t.Cleanup(s.close)
	conn, err := net.Dial("tcp", s.addr())
	require.NoError(t, err)
	require.NoError(t, conn.Close())
	require.Eventually(t, func() bool { _, cut := s.messages(); return cut == 1 }, 5*time.Second, 20*time.Millisecond)
	got, _ := s.messages()
	require.Empty(t, got)
}

func TestServerOfMapsRiverClientIDs(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := &server{slot: 0, gen: 1, started: base, readyAt: base.Add(time.Second)}
	b := &server{slot: 1, gen: 1, started: base.Add(2 * time.Second), readyAt: base.Add(3 * time.Second)}
	a2 := &server{slot: 0, gen: 2, started: base.Add(10 * time.Second)}
	servers := []*server{a, b, a2}
	id := func(t time.Time) string {
		return "host_name_" + strings.Replace(t.Format("2006_01_02T15_04_05.000000"), ".", "_", 1)
	}

	require.Equal(t, "A#1", serverOf(id(base.Add(300*time.Millisecond)), servers))
	require.Equal(t, "B#1", serverOf(id(base.Add(2500*time.Millisecond)), servers))
	require.Equal(t, "A#2", serverOf(id(base.Add(11*time.Second)), servers))
	require.Equal(t, "none", serverOf("", servers))
	require.Equal(t, "custom-id", serverOf("custom-id", servers))
}

func TestEventsAreDistinctUserCreated(t *testing.T) {
	t.Parallel()
	evs := newEvents("r1", 3)
	seen := map[string]bool{}
	for _, ev := range evs {
		var body struct {
			Type string `json:"type"`
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal(ev.body, &body))
		require.Equal(t, "user.created", body.Type)
		require.Equal(t, "msg_"+strings.TrimPrefix(body.Data.ID, "user_"), ev.id)
		require.False(t, seen[ev.id])
		seen[ev.id] = true
	}
}

func TestFlagsAreBounded(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-events", "10"}, {"-servers", "2"}, {"-load", "5s"}, {"-timeout", "1h"}, {"extra"}} {
		var out bytes.Buffer
		_, err := parseFlags(args, &out)
		require.ErrorIs(t, err, errUsage, args)
	}
	o, err := parseFlags(nil, &bytes.Buffer{})
	require.NoError(t, err)
	require.Equal(t, 600, o.events)
}
