package simulate

import (
	"crypto/sha256"
	"encoding/base32"
	"regexp"
	"sort"
	"strings"
)

// ids makes the run's identifiers: deterministic from the scenario, the run's label and a canonical name
// ("sub:main", "evt:12"), so a rerun with the same label sends the very same payloads, and another label
// (the chaos run beside the orderly one) gets ids of its own on the same database. Each id remembers its
// canonical name, which the outcome shows instead (a chaos run's outcome compares with the orderly one's).
type ids struct {
	scope     string
	canonical map[string]string
}

func newIDs(scenario, run string) *ids {
	return &ids{scope: scenario + "|" + run, canonical: map[string]string{}}
}

var idAlphabet = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// make is prefix + 26 characters of [a-z2-7], like Paddle's ids (evt_…, sub_…).
func (g *ids) make(prefix, name string) string {
	sum := sha256.Sum256([]byte(g.scope + "|" + name))
	id := prefix + idAlphabet.EncodeToString(sum[:])[:26]
	g.canonical[id] = "{" + name + "}"
	return id
}

// name registers an id made elsewhere (the user's email, its Clerk id) under a canonical name.
func (g *ids) name(id, name string) { g.canonical[id] = "{" + name + "}" }

var uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// normalize replaces every id of the run with its canonical name, and database uuids with "{uuid}".
func (g *ids) normalize(s string) string {
	keys := make([]string, 0, len(g.canonical))
	for k := range g.canonical {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, k := range keys {
		s = strings.ReplaceAll(s, k, g.canonical[k])
	}
	return uuidPattern.ReplaceAllString(s, "{uuid}")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
