package account

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
)

// ErrInvalidAttribution means signup metadata named an unknown field or had a value of the wrong type or
// length (a FieldError names the fields).
var ErrInvalidAttribution = errors.New("invalid signup metadata")

// ActionSignupMetadata is the audit action of the first (and only) recorded attribution.
const ActionSignupMetadata = "account.signup_metadata_recorded"

// attributionFields are the accepted fields: their users column and their length limit in characters
// (the column is VARCHAR of that length).
var attributionFields = map[string]struct {
	column string
	max    int
}{
	"utm_source":   {"signup_utm_source", 255},
	"utm_medium":   {"signup_utm_medium", 255},
	"utm_campaign": {"signup_utm_campaign", 255},
	"utm_term":     {"signup_utm_term", 255},
	"utm_content":  {"signup_utm_content", 255},
	"referrer":     {"signup_referrer", 2048},
	"landing_page": {"signup_landing_page", 2048},
}

// RecordSignupMetadata records the caller's first-touch attribution and reports whether it did: the first
// call writes (recorded true), every later one writes nothing (false), whatever it sends. A touch with no
// field at all is recorded too: a direct visit is an answer. Fields are strings (trimmed; "" or null is
// absent) within their length, without control characters; anything else fails with a FieldError.
func (s *Service) RecordSignupMetadata(ctx context.Context, a audit.Actor, fields map[string]json.RawMessage) (bool, error) {
	set, err := parseAttribution(fields)
	if err != nil {
		return false, fmt.Errorf("record signup metadata: %w", err)
	}
	names := make([]string, 0, len(set))
	values := map[string]any{"signup_metadata_at": gorm.Expr("now()"), "updated_at": gorm.Expr("now()")}
	for name, v := range set {
		names = append(names, name)
		values[attributionFields[name].column] = v
	}
	slices.Sort(names)
	var recorded bool
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// The condition decides: of concurrent first writes one matches, the others wait on its row lock,
		// re-check signup_metadata_at and match nothing.
		res := tx.Table("users").Where("id = ? AND signup_metadata_at IS NULL AND deleted_at IS NULL", a.UserID).
			Updates(values)
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		recorded = true
		// Field names only: a referrer or landing page URL may carry personal data.
		return audit.Write(ctx, tx, a.Entry(ActionSignupMetadata, "user", a.ClerkUserID, map[string]any{"fields": names}))
	})
	if err != nil {
		return false, fmt.Errorf("record signup metadata: %w", err)
	}
	return recorded, nil
}

func parseAttribution(fields map[string]json.RawMessage) (map[string]string, error) {
	var bad []string
	set := make(map[string]string, len(fields))
	for name, raw := range fields {
		f, ok := attributionFields[name]
		if !ok {
			bad = append(bad, name)
			continue
		}
		v, ok := decodeOptional(raw)
		if !ok || (v != nil && !validAttribution(*v, f.max)) {
			bad = append(bad, name)
			continue
		}
		if v != nil {
			set[name] = *v
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return nil, &FieldError{Err: ErrInvalidAttribution, Fields: bad}
	}
	return set, nil
}

func validAttribution(v string, max int) bool {
	return utf8.RuneCountInString(v) <= max && !strings.ContainsFunc(v, unicode.IsControl)
}
