package clock

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Advance is t moved forward by span: a sequence of whole numbers with units, calendar ones first (y
// years, mo months, w weeks, d days, then h, m, s), such as "31d", "1mo", "1y2mo", "36h" or "1d12h". Months
// and years are calendar months (AddDate: Jan 31 + 1mo is Mar 3, as Go normalises it; a billing period's
// months are clamped instead, and a scenario names the date it means). An empty, negative or unreadable
// span is an error.
func Advance(t time.Time, span string) (time.Time, error) {
	rest := strings.TrimSpace(span)
	if rest == "" {
		return t, fmt.Errorf("clock: empty span")
	}
	out := t
	for rest != "" {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		j := i
		for j < len(rest) && rest[j] >= 'a' && rest[j] <= 'z' {
			j++
		}
		n, err := strconv.Atoi(rest[:i])
		if i == 0 || err != nil || j == i {
			return t, fmt.Errorf("clock: span %q: want numbers with units y, mo, w, d, h, m, s (31d, 1mo, 36h)", span)
		}
		switch unit := rest[i:j]; unit {
		case "y":
			out = out.AddDate(n, 0, 0)
		case "mo":
			out = out.AddDate(0, n, 0)
		case "w":
			out = out.AddDate(0, 0, 7*n)
		case "d":
			out = out.AddDate(0, 0, n)
		case "h", "m", "s":
			d, _ := time.ParseDuration(strconv.Itoa(n) + unit)
			out = out.Add(d)
		default:
			return t, fmt.Errorf("clock: span %q: unknown unit %q (y, mo, w, d, h, m, s)", span, unit)
		}
		rest = rest[j:]
	}
	if !out.After(t) {
		return t, fmt.Errorf("clock: span %q does not move forward", span)
	}
	return out, nil
}
