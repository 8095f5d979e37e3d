package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDeployDocListsEverySecret: the secrets table of docs/deploy.md, plus fly.toml's [env], is a complete
// production environment. Each row's first cell names the variable(s) in backticks.
func TestDeployDocListsEverySecret(t *testing.T) {
	t.Parallel()
	doc := string(readRepoFile(t, "docs/deploy.md"))
	_, section, ok := strings.Cut(doc, "\n## Secrets")
	require.True(t, ok, "docs/deploy.md has no ## Secrets section")
	section, _, _ = strings.Cut(section, "\n## ")
	names := regexp.MustCompile("`([A-Z][A-Z0-9_]+)`")
	env := map[string]string{}
	for _, row := range strings.Split(section, "\n") {
		if !strings.HasPrefix(row, "| `") {
			continue
		}
		first := strings.Split(row, "|")[1]
		for _, m := range names.FindAllStringSubmatch(first, -1) {
			requireKnownKey(t, m[1])
			env[m[1]] = sampleValue(t, m[1])
		}
	}
	require.NotEmpty(t, env)
	for k, v := range readFly(t).Env {
		requireKnownKey(t, k)
		env[k] = v
	}
	// The table offers choices (CLERK_JWT_KEY or CLERK_SECRET_KEY, resend or smtp); all of them set at once
	// must boot, and so must each required one alone be needed.
	requireBoots(t, "docs/deploy.md secrets + fly.toml [env]", env)
	for _, k := range []string{"DATABASE_URL", "PADDLE_WEBHOOK_SECRET", "CLERK_WEBHOOK_SECRET", "PADDLE_API_KEY",
		"CHECKOUT_SIGNING_SECRET", "EMAIL_UNSUBSCRIBE_SECRET", "METRICS_TOKEN", "CLERK_AUTHORIZED_PARTIES"} {
		require.Contains(t, env, k)
	}
}

