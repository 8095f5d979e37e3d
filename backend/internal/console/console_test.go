package console

import (
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func key(prefix, host string) string {
	return prefix + base64.RawStdEncoding.EncodeToString([]byte(host+"$"))
}

func TestFrontendAPI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ key, want string }{
		{key("pk_test_", "clerk.example.com"), "https://clerk.example.com"},
		{key("pk_live_", "clerk.fabrica-saas.dev"), "https://clerk.fabrica-saas.dev"},
		{"pk_test_" + base64.StdEncoding.EncodeToString([]byte("a-b.accounts.dev$")), "https://a-b.accounts.dev"}, // padded
	} {
		got, err := FrontendAPI(tc.key)
		require.NoError(t, err, tc.key)
		require.Equal(t, tc.want, got)
	}
	// Anything that is not a plain host would land in the Content-Security-Policy: refused.
	for _, bad := range []string{"", "sk_test_abc", "pk_test_", "pk_test_!!!", key("pk_test_", "clerk.example.com; script-src *"),
		key("pk_test_", "localhost"), key("pk_test_", "Clerk.Example.com"), key("pk_test_", "clerk.example.com/x"),
		"pk_test_" + base64.RawStdEncoding.EncodeToString([]byte("clerk.example.com")), key("pk_test_", "-a.example.com")} {
		_, err := FrontendAPI(bad)
		require.ErrorIs(t, err, ErrPublishableKey, bad)
	}
}

func settingsOf(t *testing.T, p *Pages) map[string]any {
	t.Helper()
	f, ok := p.Open(SettingsFile)
	require.True(t, ok)
	var s map[string]any
	require.NoError(t, json.Unmarshal(f.Body, &s))
	return s
}

// Without Clerk the policy names no origin but ours; with it, exactly the Frontend API, for scripts and
// connections only.
func TestPolicyAllowsClerkOnlyWhenConfigured(t *testing.T) {
	t.Parallel()
	plain, err := New(Config{})
	require.NoError(t, err)
	require.Equal(t, "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; "+
		"base-uri 'none'; form-action 'none'; frame-ancestors 'none'", plain.CSP())
	require.Nil(t, settingsOf(t, plain)["clerk"])

	k := key("pk_live_", "clerk.example.com")
	withClerk, err := New(Config{ClerkPublishableKey: k})
	require.NoError(t, err)
	require.Equal(t, "default-src 'none'; script-src 'self' https://clerk.example.com; connect-src 'self' https://clerk.example.com; "+
		"style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'", withClerk.CSP())
	require.Equal(t, map[string]any{"publishable_key": k, "script": "https://clerk.example.com" + ClerkScriptPath},
		settingsOf(t, withClerk)["clerk"])

	_, err = New(Config{ClerkPublishableKey: "pk_live_nonsense"})
	require.ErrorIs(t, err, ErrPublishableKey)
}

func TestDevSignInOnlyInDevelopment(t *testing.T) {
	t.Parallel()
	for _, dev := range []bool{false, true} {
		p, err := New(Config{Development: dev, Providers: []string{"clerk", "paddle"}, Statuses: []string{"failed"}})
		require.NoError(t, err)
		s := settingsOf(t, p)
		require.Equal(t, dev, s["dev_sign_in"])
		require.Equal(t, dev, s["dev_clock"], "the simulated-time banner is development's")
		require.Equal(t, []any{"clerk", "paddle"}, s["providers"])
	}
}

// The CSP has no 'unsafe-inline': no page may carry an inline script, an inline handler or a style
// attribute, and no script may write one (innerHTML, style=), or the console breaks in the browser.
func TestAssetsNeedNothingInline(t *testing.T) {
	t.Parallel()
	p, err := New(Config{})
	require.NoError(t, err)
	index, ok := p.Open("")
	require.True(t, ok)
	require.Equal(t, "text/html; charset=utf-8", index.ContentType)
	require.Regexp(t, `<script type="module" src="js/main.js"></script>`, string(index.Body))
	inline := regexp.MustCompile(`(?i)<script>|<script(\s+type="module")?\s*>|\son[a-z]+=|\sstyle=|<style`)
	code := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function|setAttribute\("style"|"style":`)
	sub, err := fs.Sub(assets, "assets")
	require.NoError(t, err)
	n := 0
	require.NoError(t, fs.WalkDir(sub, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, ok := p.Open(name)
		require.True(t, ok, name)
		require.NotEmpty(t, f.ETag)
		body := string(f.Body)
		switch {
		case strings.HasSuffix(name, ".html"):
			require.NotRegexp(t, inline, body, name)
		case strings.HasSuffix(name, ".js"):
			require.NotRegexp(t, code, body, name)
			require.Contains(t, f.ContentType, "javascript", name) // module scripts need a JavaScript type
			n++
		}
		return nil
	}))
	require.Greater(t, n, 5)
	_, ok = p.Open("nope.js")
	require.False(t, ok)
}
