package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func runWith(t *testing.T, env map[string]string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, func(k string) string { return env[k] }, &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestHelpListsCommands(t *testing.T) {
	t.Parallel()
	out, _, err := runWith(t, nil, "help")
	require.NoError(t, err)
	for _, c := range commands() {
		require.Contains(t, out, c.name)
	}
	_, stderr, err := runWith(t, nil, "frobnicate")
	require.ErrorIs(t, err, errUsage)
	require.Contains(t, stderr, `unknown command "frobnicate"`)
}

func TestVersion(t *testing.T) {
	t.Parallel()
	out, _, err := runWith(t, nil, "version")
	require.NoError(t, err)
	require.Equal(t, "fabrica dev\n", out)
}

// A platform may pass the binary's own name ahead of the subcommand (ENTRYPOINT ["/fabrica"] plus a command
// that says "fabrica serve" or "/fabrica worker"); it is skipped, once.
func TestLeadingBinaryNameIsSkipped(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"fabrica", "version"}, {"/fabrica", "version"}, {"/usr/local/bin/fabrica", "version"}} {
		out, _, err := runWith(t, nil, args...)
		require.NoError(t, err, args)
		require.Equal(t, "fabrica dev\n", out, args)
	}
	_, stderr, err := runWith(t, nil, "/fabrica", "fabrica", "version")
	require.ErrorIs(t, err, errUsage)
	require.Contains(t, stderr, `unknown command "fabrica"`)
}

func TestServeRefusesProductionWithoutSecrets(t *testing.T) {
	t.Parallel()
	_, _, err := runWith(t, map[string]string{
		"APP_ENV":      "production",
		"DATABASE_URL": "postgres://app@db.internal/fabrica",
	}, "serve")
	require.ErrorContains(t, err, "PADDLE_WEBHOOK_SECRET")
}

// A process started with APP_ENV=test and no secrets refuses to start, naming the first missing secret:
// the test environment's public development secrets exist only inside go test (config.LoadForTest), never
// in a binary, whatever its environment says. The same holds for every command that boots the service.
func TestTestEnvironmentRefusesToServeWithoutSecrets(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"serve"}, {"worker"}, {"replay", "00000000-0000-0000-0000-000000000000"},
		{"sync", "paddle"}, {"purge-archive"}, {"migrate", "up"}, {"jobs", "run", "purge-archive"}} {
		_, _, err := runWith(t, map[string]string{
			"APP_ENV":      "test",
			"DATABASE_URL": "postgres://app@127.0.0.1:1/fabrica",
		}, args...)
		require.ErrorContains(t, err, "PADDLE_WEBHOOK_SECRET is required in test", args)
	}
}
