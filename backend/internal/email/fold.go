package email

import "strings"

// Fold is the one normal form of an email address for storing and comparing: trimmed, with ASCII letters
// lower-cased and nothing else touched. strings.ToLower would apply Unicode case folding, under which the
// Kelvin sign "K" (U+212A) becomes "k": an address spelled with it would match someone else's.
func Fold(addr string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, strings.TrimSpace(addr))
}
