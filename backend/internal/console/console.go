// Package console is the operator console: static pages (HTML, CSS and JavaScript modules, no build step)
// embedded in the binary and served at /console/. The pages hold no data: they sign the operator in, then
// call the admin API, and render nothing until it answers, so who may see what stays the admin API's
// decision (requireAdmin). This package knows no HTTP framework; httpapi serves its files.
package console

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"mime"
	"path"
	"strings"
)

//go:embed assets
var assets embed.FS

// Config is what the console needs from the service configuration.
type Config struct {
	// Development offers the paste-a-dev-token sign-in: only there does the server accept the tokens of
	// `fabrica dev token` (devauth). Elsewhere the box is not even shown.
	Development bool
	// ClerkPublishableKey turns on the Clerk sign-in (CLERK_PUBLISHABLE_KEY); "" leaves it off.
	ClerkPublishableKey string
	// Providers and Statuses are the webhook pipeline's provider names and the archive's processing
	// statuses, which the deliveries filter offers (one definition: the webhook package's).
	Providers, Statuses []string
	// Templates are the broadcast templates and Tiers the tier names, which the compose form offers;
	// BypassTemplates are the templates that may bypass consent (email.BypassTemplates).
	Templates, BypassTemplates, Tiers []string
}

// File is one servable file: its bytes, type and a strong ETag (the hash of the bytes).
type File struct {
	Body        []byte
	ContentType string
	ETag        string
}

// Pages are the console's files and the policy they are served under.
type Pages struct {
	files map[string]File
	csp   string
}

// SettingsFile is the name of the generated settings the pages read first: which sign-ins are offered.
const SettingsFile = "settings.json"

// settings is SettingsFile's shape.
type settings struct {
	DevSignIn bool `json:"dev_sign_in"`
	// DevClock: development, where the clock can be moved; the pages show the simulated time in a banner.
	DevClock bool `json:"dev_clock"`
	// Clerk is null without a publishable key.
	Clerk     *clerkSettings `json:"clerk"`
	Providers []string       `json:"providers"`
	Statuses  []string       `json:"statuses"`
	Templates []string       `json:"broadcast_templates"`
	// Bypass are the templates with fixed wording, the only ones that may bypass consent; never null.
	Bypass []string `json:"bypass_templates"`
	Tiers  []string `json:"tiers"`
}

type clerkSettings struct {
	PublishableKey string `json:"publishable_key"`
	// Script is clerk-js on the instance's own Frontend API (Clerk's origin, not a CDN of ours).
	Script string `json:"script"`
}

// New reads the embedded files and builds the settings; a malformed publishable key is an error.
func New(cfg Config) (*Pages, error) {
	p := &Pages{files: map[string]File{}}
	s := settings{DevSignIn: cfg.Development, DevClock: cfg.Development, Providers: cfg.Providers, Statuses: cfg.Statuses,
		Templates: cfg.Templates, Bypass: append([]string{}, cfg.BypassTemplates...), Tiers: cfg.Tiers}
	var clerkOrigin string
	if cfg.ClerkPublishableKey != "" {
		var err error
		if clerkOrigin, err = FrontendAPI(cfg.ClerkPublishableKey); err != nil {
			return nil, err
		}
		s.Clerk = &clerkSettings{PublishableKey: cfg.ClerkPublishableKey, Script: clerkOrigin + ClerkScriptPath}
	}
	p.csp = policy(clerkOrigin)
	root, err := fs.Sub(assets, "assets")
	if err != nil {
		return nil, err
	}
	err = fs.WalkDir(root, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(root, name)
		if err != nil {
			return err
		}
		p.add(name, body)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("console assets: %w", err)
	}
	body, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	p.add(SettingsFile, body)
	return p, nil
}

func (p *Pages) add(name string, body []byte) {
	sum := sha256.Sum256(body)
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	p.files[name] = File{Body: body, ContentType: ctype, ETag: `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`}
}

// Open returns the file at name, a path below /console/ ("" is the page itself, index.html).
func (p *Pages) Open(name string) (File, bool) {
	name = strings.TrimPrefix(name, "/")
	if name == "" {
		name = "index.html"
	}
	f, ok := p.files[name]
	return f, ok
}

// CSP is the Content-Security-Policy of every console response.
func (p *Pages) CSP() string { return p.csp }

// policy allows our own origin only: scripts, styles and icons from the files above, requests to the API
// beside them, no inline script or style, no frames, no forms posting anywhere. With Clerk sign-in the
// instance's Frontend API origin is added to script-src (clerk-js) and connect-src (the session it
// refreshes), and nothing else of Clerk's: the console mounts none of Clerk's UI components, which would
// need inline styles and Clerk's image host; sign-in happens on Clerk's hosted page instead.
func policy(clerkOrigin string) string {
	extra := ""
	if clerkOrigin != "" {
		extra = " " + clerkOrigin
	}
	return "default-src 'none'; script-src 'self'" + extra + "; connect-src 'self'" + extra +
		"; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}
