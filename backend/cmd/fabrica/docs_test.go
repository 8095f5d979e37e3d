package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
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

// TestProvidersSetupListsHandledEvents: the events docs/providers-setup.md tells you to subscribe to are the
// handler tables' (a nil receiver only builds the method values; no handler runs).
func TestProvidersSetupListsHandledEvents(t *testing.T) {
	t.Parallel()
	doc := string(readRepoFile(t, "docs/providers-setup.md"))
	paddle, clerk := (*billing.Service)(nil).PaddleHandlers(), (*account.Service)(nil).ClerkHandlers()
	for event := range paddle {
		if event == billing.EventSubscriptionCancelled {
			continue // the British spelling: handled in case, never sent by Paddle, not in its event list
		}
		require.True(t, strings.Contains(doc, "`"+event+"`"), "docs/providers-setup.md omits the Paddle event %s", event)
	}
	for event := range clerk {
		require.True(t, strings.Contains(doc, "`"+event+"`"), "docs/providers-setup.md omits the Clerk event %s", event)
	}
	listed := regexp.MustCompile("`((?:subscription|transaction|adjustment|user)\\.[a-z_]+)`").FindAllStringSubmatch(doc, -1)
	require.NotEmpty(t, listed)
	for _, m := range listed {
		_, p := paddle[m[1]]
		_, c := clerk[m[1]]
		require.True(t, p || c, "docs/providers-setup.md lists %s, which nothing handles", m[1])
	}
	for _, path := range []string{"/webhooks/paddle", "/webhooks/clerk"} {
		require.True(t, strings.Contains(doc, path), "docs/providers-setup.md omits %s", path)
	}
}

// TestFrontendDocMatchesTheAPI: every /api/v1 path docs/frontend.md calls is in the route table, and the
// checkout fields it reads are the ones the handler sends (read as text: httpapi is the app's to import).
func TestFrontendDocMatchesTheAPI(t *testing.T) {
	t.Parallel()
	doc := string(readRepoFile(t, "docs/frontend.md"))
	router := string(readRepoFile(t, "backend/internal/httpapi/router.go"))
	handler := string(readRepoFile(t, "backend/internal/httpapi/billing.go"))
	paths := regexp.MustCompile(`/api/v1(/[a-z/_]+)`).FindAllStringSubmatch(doc, -1)
	require.NotEmpty(t, paths)
	for _, m := range paths {
		require.True(t, strings.Contains(router, `"`+m[1]+`"`), "docs/frontend.md calls /api/v1%s, which router.go does not route", m[1])
	}
	for _, field := range []string{"paddle_price_id", "customer_id", "customer_email", "custom_data"} {
		require.Contains(t, handler, `json:"`+field+`"`)
	}
	for _, read := range []string{"c.paddle_price_id", "c.customer_id", "c.custom_data"} {
		require.True(t, strings.Contains(doc, read), "docs/frontend.md does not pass %s to Paddle.js", read)
	}
}

// TestProjectFiles: the licence, the changelog and the GitHub workflow exist, and the workflow runs the
// project's CI entry point rather than a copy of its steps.
func TestProjectFiles(t *testing.T) {
	t.Parallel()
	require.True(t, strings.HasPrefix(string(readRepoFile(t, "LICENSE")), "MIT License\n"))
	require.Contains(t, string(readRepoFile(t, "CHANGELOG.md")), "\n## [Unreleased]\n")
	require.Contains(t, string(readRepoFile(t, ".github/workflows/ci.yml")), "run: bash .ci/run\n")
}
