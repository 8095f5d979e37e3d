package console

import (
	"encoding/base64"
	"errors"
	"strings"
)

// ClerkScriptPath is clerk-js below an instance's Frontend API, pinned to its major version as Clerk
// documents for script-tag use (Clerk serves and updates it; it is Clerk's own origin, not a CDN of ours).
const ClerkScriptPath = "/npm/@clerk/clerk-js@5/dist/clerk.browser.js"

// ErrPublishableKey means CLERK_PUBLISHABLE_KEY is not a Clerk publishable key.
var ErrPublishableKey = errors.New(`not a Clerk publishable key ("pk_test_..." or "pk_live_...")`)

// FrontendAPI returns the https origin of the Clerk Frontend API a publishable key names. Clerk's key is
// "pk_test_" or "pk_live_" followed by the base64 of the host and a "$". The host goes into the console's
// Content-Security-Policy, so it must be a plain DNS name: anything else is refused, never passed through.
func FrontendAPI(key string) (string, error) {
	rest, ok := strings.CutPrefix(key, "pk_test_")
	if !ok {
		if rest, ok = strings.CutPrefix(key, "pk_live_"); !ok {
			return "", ErrPublishableKey
		}
	}
	raw, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(rest, "="))
	if err != nil {
		return "", ErrPublishableKey
	}
	host, ok := strings.CutSuffix(string(raw), "$")
	if !ok || !isHostname(host) {
		return "", ErrPublishableKey
	}
	return "https://" + host, nil
}

// isHostname accepts lower-case DNS names of two labels or more: letters, digits and inner hyphens.
func isHostname(h string) bool {
	labels := strings.Split(h, ".")
	if len(h) > 253 || len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, r := range l {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}
