package billing

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// The features a tier gives its users (docs/usage.md). A feature absent from a tier is disabled for it.
//
//	features:
//	  api_calls:   {limit: 100000, per: month, overage: block}   # a counter that resets every usage month
//	  generations: {credits: 5}                                 # each unit charges 5 credits
//	  projects:    {limit: 3}                                   # a gauge the app sets (projects in use)
//	  sso:         true                                         # a switch
//
// The usage package meters them; billing only reads and validates the file, so a typo fails the boot
// instead of metering nothing.

// Feature kinds.
const (
	FeatureCounter = "counter"
	FeatureCredits = "credits"
	FeatureGauge   = "gauge"
	FeatureSwitch  = "switch"
)

// Overage policies of a counter.
const (
	OverageBlock = "block"
	OverageAllow = "allow"
)

// Feature is one feature as a tier grants it.
type Feature struct {
	Name string
	Kind string
	// Limit of a counter (per usage month) or a gauge; 0 is a limit of zero (nothing allowed).
	Limit int64
	// Overage of a counter: block refuses an event that would pass the limit; allow records it and
	// reports the excess.
	Overage string
	// CreditsPerUnit of a credits feature: each unit recorded charges this many credits.
	CreditsPerUnit int
	// ClientReportable lets the user's own session report this feature's usage (or set its gauge); by
	// default only a worker key may.
	ClientReportable bool
}

// Blocks reports whether an event may be refused for passing the limit.
func (f Feature) Blocks() bool {
	return f.Kind == FeatureGauge || (f.Kind == FeatureCounter && f.Overage == OverageBlock)
}

// MaxFeatureLimit bounds limits and credits per unit, so sums of a month's usage stay exact.
const MaxFeatureLimit = 1 << 50

var featureName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)

// featureDoc is a feature's map form as the file spells it.
type featureDoc struct {
	Limit            *int64  `yaml:"limit"`
	Per              *string `yaml:"per"`
	Overage          *string `yaml:"overage"`
	Credits          *int64  `yaml:"credits"`
	ClientReportable bool    `yaml:"client_reportable"`
}

// features parses a tier's features node; errors name the feature and the key (the caller adds the tier).
func parseFeatures(node *yaml.Node) (map[string]Feature, error) {
	out := map[string]Feature{}
	if node == nil || node.Kind == 0 {
		return out, nil
	}
	if node.Kind != yaml.MappingNode {
		return nil, errors.New("features: want a map of feature name to its setting")
	}
	for i := 0; i+1 < len(node.Content); i += 2 {
		name, value := node.Content[i].Value, node.Content[i+1]
		if !featureName.MatchString(name) {
			return nil, fmt.Errorf("features.%s: a feature name is lower case letters, digits and _ (at most 63), starting with a letter", name)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("features.%s: listed twice", name)
		}
		f, enabled, err := parseFeature(name, value)
		if err != nil {
			return nil, fmt.Errorf("features.%s: %w", name, err)
		}
		if enabled {
			out[name] = f
		}
	}
	return out, nil
}

// parseFeature reads one feature: true (a switch), false (disabled, as if absent) or a map.
func parseFeature(name string, n *yaml.Node) (Feature, bool, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		on, _ := strconv.ParseBool(n.Value)
		return Feature{Name: name, Kind: FeatureSwitch}, on, nil
	}
	if n.Kind != yaml.MappingNode {
		return Feature{}, false, errors.New("want true (a switch), {limit, per, overage}, {limit} or {credits}")
	}
	var d featureDoc
	if err := n.Decode(&d); err != nil {
		return Feature{}, false, err
	}
	// yaml's KnownFields applies to the decoder, not to Node.Decode: unknown keys are checked here.
	for i := 0; i < len(n.Content); i += 2 {
		if k := n.Content[i].Value; !slices.Contains([]string{"limit", "per", "overage", "credits", "client_reportable"}, k) {
			return Feature{}, false, fmt.Errorf("unknown key %q (limit, per, overage, credits, client_reportable)", k)
		}
	}
	f := Feature{Name: name, ClientReportable: d.ClientReportable}
	switch {
	case d.Credits != nil:
		if d.Limit != nil || d.Per != nil || d.Overage != nil {
			return Feature{}, false, errors.New("credits: a credits feature is limited by the balance; it takes no limit, per or overage")
		}
		if *d.Credits < 1 || *d.Credits > math.MaxInt32 {
			return Feature{}, false, fmt.Errorf("credits: want 1..%d credits per unit", math.MaxInt32)
		}
		f.Kind, f.CreditsPerUnit = FeatureCredits, int(*d.Credits)
	case d.Limit == nil:
		return Feature{}, false, errors.New("limit: required (or credits, or write true for a switch)")
	case *d.Limit < 0 || *d.Limit > MaxFeatureLimit:
		return Feature{}, false, fmt.Errorf("limit: want 0..%d", int64(MaxFeatureLimit))
	case d.Per == nil:
		if d.Overage != nil {
			return Feature{}, false, errors.New("overage: a gauge (a limit without per) has no overage; add per: month for a counter")
		}
		f.Kind, f.Limit = FeatureGauge, *d.Limit
	default:
		if *d.Per != "month" {
			return Feature{}, false, fmt.Errorf("per: %q is not supported (month)", *d.Per)
		}
		f.Kind, f.Limit, f.Overage = FeatureCounter, *d.Limit, OverageBlock
		if d.Overage != nil {
			if *d.Overage != OverageBlock && *d.Overage != OverageAllow {
				return Feature{}, false, fmt.Errorf("overage: %q is not block or allow", *d.Overage)
			}
			f.Overage = *d.Overage
		}
	}
	return f, true, nil
}

// checkFeatures holds the tiers to one meaning per feature name: a feature that is a counter in one tier
// and a gauge in another would make its history unreadable. It records every name: tier by tier, each
// tier's new names alphabetically.
func (t *Tiers) checkFeatures() error {
	kinds := map[string]string{}
	for _, tier := range t.list {
		for _, name := range slices.Sorted(maps.Keys(tier.Features)) {
			f := tier.Features[name]
			if k, seen := kinds[name]; seen && k != f.Kind {
				return fmt.Errorf("%s: features.%s: is a %s here but a %s in another tier (one kind per feature)", tier.Name, name, f.Kind, k)
			}
			if _, seen := kinds[name]; !seen {
				t.features = append(t.features, name)
			}
			kinds[name] = f.Kind
		}
	}
	t.kinds = kinds
	return nil
}

// FeatureKind is the kind of a feature some tier declares ("" for a name no tier declares): one kind per
// name across tiers, so it is known before the user's tier is.
func (t *Tiers) FeatureKind(name string) string { return t.kinds[name] }

// FeatureNames lists every feature some tier declares (tier by tier, alphabetically within a tier).
func (t *Tiers) FeatureNames() []string { return append([]string(nil), t.features...) }

// Feature is tier's grant of the feature name; ok is false when the tier does not have it (disabled).
func (tier Tier) Feature(name string) (Feature, bool) {
	f, ok := tier.Features[name]
	return f, ok
}
