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
