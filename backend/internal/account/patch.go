package account

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Patch is a partial profile update as the client sent it: field name to raw JSON value. The service, not
// the HTTP layer, decides which fields exist, so the allow-list lives in one place.
type Patch map[string]json.RawMessage

// The profile fields a user may change. Everything else (email, current_tier, credits, consent, ids) is
// server-controlled or has its own endpoint.
const (
	fieldDisplayName = "display_name"
	fieldLocale      = "locale"
)

// Limits of the allowed fields; the columns are VARCHAR(100) and VARCHAR(16).
const (
	maxDisplayName = 100
	maxLocale      = 16
)

// locale is BCP-47-ish: a 2-3 letter language, then subtags of 1-8 letters or digits ("en", "pt-BR",
// "zh-Hant-TW", "es-419").
var localeRe = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$`)

var validators = map[string]func(string) bool{
	fieldDisplayName: validDisplayName,
	fieldLocale:      func(v string) bool { return len(v) <= maxLocale && localeRe.MatchString(v) },
}

// parsePatch checks every field against the allow-list and its rule. Each value is a string (trimmed) or
// null; null or "" clears the field. The result maps column name to the new value (nil = NULL).
func parsePatch(p Patch) (map[string]*string, error) {
	var forbidden, invalid []string
	want := make(map[string]*string, len(p))
	for name, raw := range p {
		valid, ok := validators[name]
		if !ok {
			forbidden = append(forbidden, name)
			continue
		}
		v, ok := decodeOptional(raw)
		if ok && v != nil && !valid(*v) {
			ok = false
		}
		if !ok {
			invalid = append(invalid, name)
			continue
		}
		want[name] = v
	}
	slices.Sort(forbidden)
	slices.Sort(invalid)
	if len(forbidden) > 0 {
		return nil, &FieldError{Err: ErrFieldNotAllowed, Fields: forbidden}
	}
	if len(invalid) > 0 {
		return nil, &FieldError{Err: ErrInvalidField, Fields: invalid}
	}
	return want, nil
}

// decodeOptional reads a JSON string or null; ok is false for any other JSON type.
func decodeOptional(raw json.RawMessage) (v *string, ok bool) {
	var s *string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, false
	}
	if s == nil {
		return nil, true
	}
	if t := strings.TrimSpace(*s); t != "" {
		return &t, true
	}
	return nil, true
}

// validDisplayName bounds the length in characters (as VARCHAR counts) and refuses control characters:
// the name ends up in emails and admin screens.
func validDisplayName(v string) bool {
	if utf8.RuneCountInString(v) > maxDisplayName {
		return false
	}
	return !strings.ContainsFunc(v, unicode.IsControl)
}
