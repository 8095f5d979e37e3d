package main

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// exitCode is the process exit status run's error makes (main's rule): 0, 1, or an exitErr's own code.
func exitCode(err error) int {
	var ee *exitErr
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	}
	return 1
}

// `fabrica verify` prints the table of checks and exits 0 on a clean database, 1 with the violations
// listed when there are some, 2 when it cannot run; areas and --user narrow it; --json is the same report.
func TestVerifyCommand(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	env := map[string]string{"APP_ENV": "development", "DATABASE_URL": d.URL,
		"DEV_SESSION_KEY_FILE": filepath.Join(t.TempDir(), "dev-session-key.pem")} // not ./.data in the package

	out, _, err := runWith(t, env, "verify")
	require.NoError(t, err)
	require.Contains(t, out, "CHECK")
	for _, name := range []string{"ledger.balance_is_sum_of_movements", "billing.tier_follows_subscriptions",
		"webhooks.claim_is_archived", "sync.paddle_cursor", "account.welcome_email_once", "jobs.email_key_once", "usage.counter_is_sum_of_events"} {
		require.Contains(t, out, name)
	}
	require.Contains(t, out, " 0 violation(s) in 0 check(s)")

	var user, other string
	require.NoError(t, d.Gorm.Raw(`INSERT INTO users (clerk_user_id, email, current_tier) VALUES ('user_paid', 'p@example.com', 'pro') RETURNING id`).Scan(&user).Error)
	require.NoError(t, d.Gorm.Raw(`INSERT INTO users (clerk_user_id, email) VALUES ('user_free', 'f@example.com') RETURNING id`).Scan(&other).Error)
	out, _, err = runWith(t, env, "verify")
	require.Equal(t, exitViolations, exitCode(err))
	require.ErrorContains(t, err, "1 violation(s)")
	require.Contains(t, out, "billing.tier_follows_subscriptions: 1 violation(s)")
	require.Contains(t, out, user+"  on pro; the subscriptions say free (none)")

	_, _, err = runWith(t, env, "verify", "ledger", "webhooks")
	require.NoError(t, err, "other areas are clean")
	_, _, err = runWith(t, env, "verify", "billing", "--user", other)
	require.NoError(t, err, "another user's checks are clean")
	_, _, err = runWith(t, env, "verify", "--user="+user, "billing")
	require.Equal(t, exitViolations, exitCode(err))

	out, _, err = runWith(t, env, "verify", "--json", "billing")
	require.Equal(t, exitViolations, exitCode(err))
	var rep struct {
		Violations int `json:"violations"`
		Checks     []struct {
			Name       string `json:"name"`
			Area       string `json:"area"`
			Violations int    `json:"violations"`
			Found      []struct{ Subject, Detail string }
		} `json:"checks"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Equal(t, 1, rep.Violations)
	for _, c := range rep.Checks {
		require.Equal(t, "billing", c.Area)
		if c.Name == "billing.tier_follows_subscriptions" {
			require.Equal(t, 1, c.Violations)
			require.Equal(t, user, c.Found[0].Subject)
		}
	}

	out, _, err = runWith(t, env, "verify", "--list", "sync")
	require.NoError(t, err)
	require.Contains(t, out, "sync.paddle_cursor  sync")
}

func TestVerifyCommandErrorsExitTwo(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	env := map[string]string{"APP_ENV": "development", "DATABASE_URL": d.URL,
		"DEV_SESSION_KEY_FILE": filepath.Join(t.TempDir(), "dev-session-key.pem")} // not ./.data in the package
	_, _, err := runWith(t, env, "verify", "nosuch")
	require.Equal(t, exitError, exitCode(err))
	require.ErrorContains(t, err, `unknown area "nosuch"`)

	_, stderr, err := runWith(t, env, "verify", "--user", "42")
	require.Equal(t, exitError, exitCode(err))
	require.Contains(t, stderr, `--user "42" is not a user id`)
	require.Contains(t, stderr, "Usage: fabrica verify")

	_, _, err = runWith(t, env, "verify", "--frobnicate")
	require.Equal(t, exitError, exitCode(err))

	pgtest.Drop(t, d)
	_, _, err = runWith(t, env, "verify")
	require.Equal(t, exitError, exitCode(err), "no database: the checks could not run")
}

func TestVerifyHelp(t *testing.T) {
	t.Parallel()
	out, _, err := runWith(t, nil, "verify", "--help")
	require.NoError(t, err)
	require.Contains(t, out, "Usage: fabrica verify [AREA...] [--user ID] [--json]")
	require.Contains(t, out, "Exit status: 0 no violation, 1 violations found, 2 the checks could not run.")
}
