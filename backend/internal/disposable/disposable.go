// Package disposable screens email addresses against a blocklist of disposable-email domains: the list
// embedded in the binary (data/README.md names its source, version and license), or the newer copy that the
// daily refresh stored from DISPOSABLE_DOMAINS_URL in the disposable_domains table, which every instance
// reads, so all of them agree. The package owns that table.
package disposable

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

//go:embed data/disposable_domains.json
var embeddedList []byte

// Config is what the blocklist needs from the service configuration.
type Config struct {
	// URL is DISPOSABLE_DOMAINS_URL: an https URL of a JSON array of domains or a text file of one domain
	// a line. Empty: no refresh, the embedded list applies.
	URL string
	// HTTPClient fetches URL; default a client with a 30 s timeout. Its redirect policy is replaced:
	// HTTPS only, at most five.
	HTTPClient *http.Client
	// MaxBytes bounds the download (default 16 MiB; the largest public list is about 2.5 MB).
	MaxBytes int64
	// MinDomains is the fewest domains a download must hold to replace the list (default 100): a
	// truncated or wrong file must not empty the blocklist.
	MinDomains int
}

// Defaults of Config.
const (
	DefaultMaxBytes   = 16 << 20
	DefaultMinDomains = 100
)

// Blocklist answers whether an address is disposable and refreshes the stored list.
type Blocklist struct {
	db       *gorm.DB
	embedded map[string]struct{}
	cfg      Config
	log      *slog.Logger
}

// New builds the blocklist on db. The embedded list is parsed once here.
func New(db *gorm.DB, cfg Config, log *slog.Logger) (*Blocklist, error) {
	var list []string
	if err := json.Unmarshal(embeddedList, &list); err != nil {
		return nil, fmt.Errorf("disposable: embedded list: %w", err)
	}
	embedded := make(map[string]struct{}, len(list))
	for _, d := range list {
		if d, ok := normalise(d); ok {
			embedded[d] = struct{}{}
		}
	}
	client := http.Client{Timeout: 30 * time.Second}
	if cfg.HTTPClient != nil {
		client = *cfg.HTTPClient
	}
	client.CheckRedirect = httpsOnly
	cfg.HTTPClient = &client
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.MinDomains <= 0 {
		cfg.MinDomains = DefaultMinDomains
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Blocklist{db: db, embedded: embedded, cfg: cfg, log: log}, nil
}

// EmbeddedSize is how many domains the embedded list holds.
func (b *Blocklist) EmbeddedSize() int { return len(b.embedded) }

// DisposableTx reports whether addr's domain, or one of its parent domains (sub.mailinator.com is
// mailinator.com's), is on the blocklist, and which entry matched. It reads the stored list through tx
// when a refresh has stored one, the embedded list otherwise.
func (b *Blocklist) DisposableTx(ctx context.Context, tx *gorm.DB, addr string) (string, bool, error) {
	candidates := domains(addr)
	if len(candidates) == 0 {
		return "", false, nil
	}
	var stored bool
	var hit *string
	// One round trip: whether any list is stored, and the longest stored entry among the candidates. It runs
	// on every sign-up's webhook, so it goes around GORM's reflection (db.QueryRow).
	err := db.QueryRow(ctx, tx, `SELECT EXISTS (SELECT 1 FROM disposable_domains),
		(SELECT domain FROM disposable_domains WHERE domain = ANY($1::text[]) ORDER BY length(domain) DESC LIMIT 1)`,
		[]any{candidates}, &stored, &hit)
	if err != nil {
		return "", false, fmt.Errorf("disposable email check: %w", err)
	}
	if stored {
		if hit == nil {
			return "", false, nil
		}
		return *hit, true, nil
	}
	for _, d := range candidates {
		if _, ok := b.embedded[d]; ok {
			return d, true, nil
		}
	}
	return "", false, nil
}

// domains is addr's domain and each parent that still has a dot, most specific first:
// a@x.sub.mailinator.com gives x.sub.mailinator.com, sub.mailinator.com, mailinator.com.
func domains(addr string) []string {
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return nil
	}
	d, ok := normalise(addr[at+1:])
	if !ok {
		return nil
	}
	var out []string
	for strings.Contains(d, ".") {
		out = append(out, d)
		_, d, _ = strings.Cut(d, ".")
	}
	return out
}

// normalise lower-cases d and drops a trailing dot; ok is false for anything that is not a host name with
// at least one dot (3-253 characters of letters, digits, '-' and '.').
func normalise(d string) (string, bool) {
	d = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")
	if len(d) < 3 || len(d) > 253 || !strings.Contains(d, ".") || strings.HasPrefix(d, ".") || strings.Contains(d, "..") {
		return "", false
	}
	for _, r := range d {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return "", false
		}
	}
	return d, true
}
