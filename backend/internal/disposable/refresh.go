package disposable

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"

	"gorm.io/gorm"
)

// ErrBadList means a download could not replace the stored list (not HTTPS, an HTTP error, a body too
// large, a format we cannot read, too few domains, a major mailbox provider on it, or too different from
// the list in use). The list in use stays as it was.
var ErrBadList = errors.New("disposable domains list refused")

// majorMailboxProviders are domains no disposable-domains list names: a list that blocks one of them (or a
// parent domain of one, such as co.uk) is broken or tampered with, and storing it would turn away a large
// share of real sign-ups.
var majorMailboxProviders = []string{
	"gmail.com", "googlemail.com", "outlook.com", "hotmail.com", "hotmail.co.uk", "live.com", "msn.com",
	"yahoo.com", "yahoo.co.uk", "yahoo.co.jp", "ymail.com", "icloud.com", "me.com", "mac.com", "aol.com",
	"proton.me", "protonmail.com", "gmx.com", "gmx.de", "gmx.net", "web.de", "mail.ru", "yandex.ru",
	"qq.com", "163.com", "zoho.com", "fastmail.com", "comcast.net", "orange.fr", "free.fr", "t-online.de",
}

// maxRedirects bounds the redirects a download follows (each to HTTPS only).
const maxRedirects = 5

// Refresh downloads Config.URL and, when it is a usable list, replaces the stored list with it in one
// transaction, returning the number of domains stored. On any failure the list in use (the last good
// download, or the embedded one) stays. Without a URL it does nothing. Concurrent refreshes (a manual run
// beside the schedule, two instances) take turns on a transaction-scoped advisory lock, so the last one to
// commit wins whole.
func (b *Blocklist) Refresh(ctx context.Context) (int, error) {
	if b.cfg.URL == "" {
		return 0, nil
	}
	list, err := b.download(ctx)
	if err != nil {
		return 0, fmt.Errorf("refresh disposable domains: %w", err)
	}
	raw, err := json.Marshal(list)
	if err != nil {
		return 0, err
	}
	err = b.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`SELECT pg_advisory_xact_lock(hashtext('disposable_domains'))`).Error; err != nil {
			return err
		}
		current, err := b.currentTx(tx)
		if err != nil {
			return err
		}
		if err := tooDifferent(current, list); err != nil {
			return err
		}
		if err := tx.Exec(`DELETE FROM disposable_domains`).Error; err != nil {
			return err
		}
		// One JSON parameter, not a slice: GORM would spread a slice into one placeholder per domain.
		return tx.Exec(`INSERT INTO disposable_domains (domain)
			SELECT jsonb_array_elements_text(CAST(? AS jsonb)) ON CONFLICT DO NOTHING`, string(raw)).Error
	})
	if err != nil {
		return 0, fmt.Errorf("refresh disposable domains: store: %w", err)
	}
	return len(list), nil
}

// currentTx is the list in use: the stored one, or the embedded one when none is stored.
func (b *Blocklist) currentTx(tx *gorm.DB) (map[string]struct{}, error) {
	var stored []string
	if err := tx.Raw(`SELECT domain FROM disposable_domains`).Scan(&stored).Error; err != nil {
		return nil, err
	}
	if len(stored) == 0 {
		return b.embedded, nil
	}
	current := make(map[string]struct{}, len(stored))
	for _, d := range stored {
		current[d] = struct{}{}
	}
	return current, nil
}

// tooDifferent refuses a list that adds and removes, together, more than half as many domains as the list
// in use holds: an upstream that lost half its file, or a URL that now serves something else. A list
// that really moved that far is adopted by making it the embedded list first (data/, deployed), against
// which a refresh is judged while none is stored.
func tooDifferent(current map[string]struct{}, list []string) error {
	added, kept := 0, 0
	for _, d := range list {
		if _, ok := current[d]; ok {
			kept++
		} else {
			added++
		}
	}
	removed := len(current) - kept
	if 2*(added+removed) > len(current) {
		return fmt.Errorf("%w: it adds %d and removes %d of the %d domains in use, more than half", ErrBadList, added, removed, len(current))
	}
	return nil
}

// mailboxProvider returns a major mailbox provider the list would block (it names the provider or a
// parent domain of it), or "".
func mailboxProvider(list []string) string {
	for _, p := range majorMailboxProviders {
		for _, d := range domains("x@" + p) {
			if _, found := slices.BinarySearch(list, d); found {
				return p
			}
		}
	}
	return ""
}

// httpsOnly is the download client's redirect policy: a redirect must stay on HTTPS (no downgrade to
// plain HTTP, where anyone on the path could rewrite the list) and they are bounded.
func httpsOnly(req *http.Request, via []*http.Request) error {
	if req.URL.Scheme != "https" {
		return fmt.Errorf("%w: a redirect to %s: HTTPS only", ErrBadList, req.URL.Redacted())
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("%w: more than %d redirects", ErrBadList, maxRedirects)
	}
	return nil
}

// download fetches and parses the list: sorted, de-duplicated, normalised domains.
func (b *Blocklist) download(ctx context.Context) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.cfg.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: DISPOSABLE_DOMAINS_URL: %v", ErrBadList, err)
	}
	if req.URL.Scheme != "https" {
		return nil, fmt.Errorf("%w: DISPOSABLE_DOMAINS_URL must be an https URL", ErrBadList)
	}
	req.Header.Set("Accept", "application/json, text/plain")
	resp, err := b.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: HTTP %d", ErrBadList, resp.StatusCode)
	}
	if resp.ContentLength > b.cfg.MaxBytes {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrBadList, b.cfg.MaxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, b.cfg.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	if int64(len(body)) > b.cfg.MaxBytes {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrBadList, b.cfg.MaxBytes)
	}
	list, err := parse(body)
	if err != nil {
		return nil, err
	}
	if len(list) < b.cfg.MinDomains {
		return nil, fmt.Errorf("%w: %d domains, fewer than %d", ErrBadList, len(list), b.cfg.MinDomains)
	}
	if p := mailboxProvider(list); p != "" {
		return nil, fmt.Errorf("%w: it would block %s, a major mailbox provider", ErrBadList, p)
	}
	return list, nil
}

// parse reads a JSON array of strings (the npm package's format) or one domain a line (the upstream
// repository's .conf format; blank lines and # comments skipped). Entries that are not host names are
// dropped, not fatal: one odd line must not keep the rest of the list out.
func parse(body []byte) ([]string, error) {
	var raw []string
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &raw); err != nil {
			return nil, fmt.Errorf("%w: not a JSON array of strings: %v", ErrBadList, err)
		}
	} else {
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(make([]byte, 0, 4096), 64<<10)
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) > 0 && line[0] != '#' {
				raw = append(raw, string(line))
			}
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadList, err)
		}
	}
	out := make([]string, 0, len(raw))
	for _, d := range raw {
		if d, ok := normalise(d); ok {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
