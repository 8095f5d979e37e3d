package main

import (
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/trigger"
)

// Every command and nested command answers --help with its usage on stdout and exit 0, does nothing else
// (no configuration is loaded: the environment here is empty, which is production), and a command that
// parses flags lists them.
func TestEveryCommandAnswersHelp(t *testing.T) {
	t.Parallel()
	flags := map[string]string{ // a flag each command's help must list
		"dev token": "-ttl", "dev clock": "-url", "dev clock set": "-url", "trigger": "-concurrency",
		"trigger usage": "-quantity", "simulate": "-chaos", "seed": "-url", "sync paddle": "with paddle: how far back",
		"purge-archive": "delete archive rows older than", "verify": "--user",
	}
	cases := [][]string{{"dev"}, {"dev", "token"}, {"dev", "clock"}, {"dev", "clock", "set"}, {"trigger"},
		{"trigger", "usage"}, {"sync"}, {"sync", "paddle"}, {"migrate"}, {"migrate", "down"}, {"jobs"}}
	for _, c := range commands() {
		if c.run != nil {
			cases = append(cases, []string{c.name})
		}
	}
	for _, args := range cases {
		for _, help := range []string{"--help", "-h"} {
			name := strings.Join(args, " ")
			out, errOut, err := runWith(t, map[string]string{}, append(slices.Clone(args), help)...)
			require.NoError(t, err, "%s %s: %s", name, help, errOut)
			require.Contains(t, out, "Usage: fabrica "+args[0]+" ", "%s %s", name, help)
			if f, ok := flags[name]; ok {
				require.Contains(t, out, f, "%s %s lists its flags", name, help)
			}
		}
	}
}

// A port in use says which variable moves the server.
func TestServeOnABusyPortNamesPORT(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer func() { _ = ln.Close() }()
	_, err = net.Listen("tcp", ln.Addr().String())
	require.Error(t, err)
	hint := listenHint(ln.Addr().String(), err)
	require.ErrorContains(t, hint, "PORT=8081")
	require.ErrorContains(t, hint, "address already in use")
}

// A development tool pointed at a stopped server asks whether `make run` is running.
func TestDevToolsAgainstAStoppedServerAskForMakeRun(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	dev := map[string]string{"APP_ENV": "development", "DEV_SESSION_KEY_FILE": t.TempDir() + "/key.pem",
		"DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"}
	for _, args := range [][]string{
		{"trigger", "clerk", "user.created", "--url", url},
		{"trigger", "paddle", "subscription.created", "--url", url},
		{"dev", "clock", "--url", url},
	} {
		_, _, err := runWith(t, dev, args...)
		require.ErrorContains(t, err, "is `make run` running?", strings.Join(args, " "))
	}
}

// fabrica trigger builds every event type a handler exists for, and nothing else.
func TestTriggerBuildsEveryHandledEvent(t *testing.T) {
	t.Parallel()
	paddle, clerk := (*billing.Service)(nil).PaddleHandlers(), (*account.Service)(nil).ClerkHandlers()
	for event := range paddle {
		if event == billing.EventSubscriptionCancelled {
			continue // the British spelling, handled in case; Paddle sends subscription.canceled
		}
		require.Contains(t, trigger.PaddleEvents, event, "fabrica trigger paddle cannot build %s", event)
	}
	for event := range clerk {
		require.Contains(t, trigger.ClerkEvents, event, "fabrica trigger clerk cannot build %s", event)
	}
	for _, event := range trigger.PaddleEvents {
		require.Contains(t, paddle, event, "fabrica trigger builds %s, which nothing handles", event)
	}
	for _, event := range trigger.ClerkEvents {
		require.Contains(t, clerk, event, "fabrica trigger builds %s, which nothing handles", event)
	}
}
