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

// ErrBadList means a download could not replace the stored list (an HTTP error, a body too large, a format
// we cannot read, too few domains). The list in use stays as it was.
var ErrBadList = errors.New("disposable domains list refused")

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

// download fetches and parses the list: sorted, de-duplicated, normalised domains.
func (b *Blocklist) download(ctx context.Context) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.cfg.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: DISPOSABLE_DOMAINS_URL: %v", ErrBadList, err)
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
