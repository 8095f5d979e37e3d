// Package simulate plays a customer's whole billing lifecycle against a running development server, in
// simulated time (`fabrica simulate`, docs/simulate.md): a scenario file lists steps (sign up, check out,
// renewals, plan and seat changes, refunds, pauses, cancellations, spends, clock moves) and what must hold
// after them. The package plays Paddle and Clerk — it keeps a model of the customer's subscriptions and sends
// the signed webhooks the real providers would send, built by trigger — and the user, through the API with
// development session tokens. It moves the server's development clock to each step's time, so the server's
// own jobs (monthly grants, expiry, cancellations, erasure) run as time passes. With chaos it delivers every
// webhook several times, concurrently, reordered and late, and the outcome must not change.
package simulate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Scenario is one lifecycle: a start time, a user and the steps.
type Scenario struct {
	Name string `yaml:"name"`
	// Description says what the scenario shows, in a sentence or two.
	Description string `yaml:"description"`
	// Rules are the rules of docs/billing.md it exercises (documentation, listed by `fabrica simulate --list`).
	Rules []string  `yaml:"rules"`
	Start time.Time `yaml:"start"`
	// User is the user's email (the local part gets the run's label: pro+orderly@simulate.test); default
	// <name>@simulate.test.
	User  string `yaml:"user"`
	Steps []Step `yaml:"steps"`

	file string
}

// Step is one action, what must hold after it (Expect) and an optional note for the timeline.
type Step struct {
	Action string
	Args   Args
	Expect *Expect
	Note   string
	Line   int
}

// Args are an action's arguments; each action reads the fields it knows (Known says which).
type Args struct {
	Tier       string `yaml:"tier"`
	Price      string `yaml:"price"`
	Seats      int    `yaml:"seats"`
	Trial      string `yaml:"trial"`
	Pay        string `yaml:"pay"`
	Sub        string `yaml:"sub"`
	As         string `yaml:"as"`
	Quantity   int    `yaml:"quantity"`
	Of         string `yaml:"of"`
	Type       string `yaml:"type"`
	Status     string `yaml:"status"`
	Kind       string `yaml:"action"`
	At         string `yaml:"at"`
	KeepPeriod bool   `yaml:"keep_period"`
	Amount     int    `yaml:"amount"`
	Job        string `yaml:"job"`
	Error      string `yaml:"expect_error"`
	// Outcome is how a spend's job ends, reported by the worker: complete (default), fail (refunded) or
	// none (left running: the reconciler refunds it at its deadline).
	Outcome string `yaml:"outcome"`
	// Feature, Key and Result are a usage event's: the tiers file's feature, its idempotency key (default
	// one per step) and the result it must get (recorded by default; limit_exceeded, insufficient_credits,
	// disabled).
	Feature string `yaml:"feature"`
	Key     string `yaml:"key"`
	Result  string `yaml:"result"`
	// Value is a scalar argument: `advance: 1mo`, `spend: 400`, `seats: 5`, `payment: fails`.
	Value string `yaml:"-"`
}

// Expect is what must hold after a step; only the fields given are checked.
type Expect struct {
	Tier    *string  `yaml:"tier"`
	Balance *int     `yaml:"balance"`
	Buckets []Bucket `yaml:"buckets"`
	// Status and Seats are the subscription's (the only one, or Sub's).
	Status *string `yaml:"status"`
	Seats  *int    `yaml:"seats"`
	// Flags are the subscription's flags (duplicate_subscription, customer_mismatch), all of them.
	Flags *[]string `yaml:"flags"`
	Sub   string    `yaml:"sub"`
	// Ledger sums the user's movements per kind (grant, deduct, refund, expire, rollover, ...).
	Ledger map[string]int `yaml:"ledger"`
	// Emails counts the transactional emails queued for the user per template; templates not named are
	// not checked.
	Emails map[string]int `yaml:"emails"`
	// Account is active, deleted (within the grace period) or erased.
	Account *string `yaml:"account"`
	// Usage is the user's entitlements per feature, as GET /api/v1/entitlements answers them.
	Usage map[string]UsageExpect `yaml:"usage"`
	// bucketsSet: `buckets: []` expects none.
	bucketsSet bool
}

// UsageExpect is what a feature's entitlement must show; only the fields given are checked.
type UsageExpect struct {
	Enabled   *bool  `yaml:"enabled"`
	Used      *int64 `yaml:"used"`
	Remaining *int64 `yaml:"remaining"`
}

// Bucket is one expected credit bucket, in burn order: its category and what remains; Expires is an RFC
// 3339 time, "never", or empty for "not checked".
type Bucket struct {
	Category  string `yaml:"category"`
	Remaining int    `yaml:"remaining"`
	Expires   string `yaml:"expires"`
}

// actions and the arguments each takes (anything else in a step is an error, so a misspelt key fails).
var actions = map[string][]string{
	"signup":         {},
	"checkout":       {"tier", "price", "seats", "trial", "pay", "sub"},
	"pack":           {"price", "quantity", "as"},
	"change":         {"tier", "price", "seats", "pay", "sub", "as"},
	"seats":          {"value", "quantity", "pay", "sub", "as"},
	"payment":        {"value", "sub"},
	"refund":         {"of", "type", "status", "action", "as"},
	"approve":        {"value"},
	"cancel":         {"at", "keep_period", "sub"},
	"pause":          {"at", "sub"},
	"resume":         {"sub"},
	"spend":          {"value", "amount", "job", "expect_error", "outcome"},
	"advance":        {"value"},
	"until":          {"value"},
	"card_update":    {"sub"},
	"finish":         {"job", "outcome"},
	"delete_account": {},
	"sign_in":        {},
	"usage":          {"feature", "quantity", "key", "result"},
}

// UnmarshalYAML reads a step: exactly one action key, plus expect and note.
func (s *Step) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a step is a mapping (`- advance: 1mo`)", n.Line)
	}
	s.Line = n.Line
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i].Value, n.Content[i+1]
		switch key {
		case "expect":
			s.Expect = &Expect{}
			if err := strict(val, s.Expect); err != nil {
				return fmt.Errorf("line %d: expect: %w", val.Line, err)
			}
			s.Expect.bucketsSet = hasKey(val, "buckets")
		case "note":
			s.Note = val.Value
		default:
			known, ok := actions[key]
			if !ok {
				return fmt.Errorf("line %d: unknown action %q (%s)", n.Content[i].Line, key, strings.Join(actionNames(), ", "))
			}
			if s.Action != "" {
				return fmt.Errorf("line %d: one action per step (%s and %s)", n.Content[i].Line, s.Action, key)
			}
			s.Action = key
			if err := s.Args.read(key, known, val); err != nil {
				return fmt.Errorf("line %d: %s: %w", val.Line, key, err)
			}
		}
	}
	if s.Action == "" {
		return fmt.Errorf("line %d: a step needs an action (%s)", n.Line, strings.Join(actionNames(), ", "))
	}
	return nil
}

func (a *Args) read(action string, known []string, n *yaml.Node) error {
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return nil
	case n.Kind == yaml.ScalarNode:
		if !contains(known, "value") {
			return fmt.Errorf("takes a mapping of %v, not %q", known, n.Value)
		}
		a.Value = n.Value
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k == "value" || !contains(known, k) {
			return fmt.Errorf("unknown argument %q (%v)", k, known)
		}
	}
	return strict(n, a)
}

// strict decodes n into v refusing keys v does not have.
func strict(n *yaml.Node, v any) error {
	raw, err := yaml.Marshal(n)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	return dec.Decode(v)
}

func hasKey(n *yaml.Node, key string) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func actionNames() []string {
	out := make([]string, 0, len(actions))
	for k := range actions {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Load reads a scenario file.
func Load(path string) (*Scenario, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sc Scenario
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&sc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sc.file = path
	switch {
	case sc.Name == "":
		return nil, fmt.Errorf("%s: no name", path)
	case sc.Start.IsZero():
		return nil, fmt.Errorf("%s: no start (an RFC 3339 time: start: 2027-01-15T09:00:00Z)", path)
	case len(sc.Steps) == 0:
		return nil, fmt.Errorf("%s: no steps", path)
	}
	sc.Start = sc.Start.UTC()
	if sc.User == "" {
		sc.User = sc.Name + "@simulate.test"
	}
	return &sc, nil
}

// Find resolves what the command line names: a file, a scenario name in dir (dir/NAME.yaml), or "all" (every
// .yaml file in dir, by name).
func Find(dir string, names []string) ([]*Scenario, error) {
	var paths []string
	for _, n := range names {
		switch {
		case n == "all":
			all, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
			if err != nil {
				return nil, err
			}
			sort.Strings(all)
			paths = append(paths, all...)
		case strings.HasSuffix(n, ".yaml") || strings.Contains(n, "/"):
			paths = append(paths, n)
		default:
			paths = append(paths, filepath.Join(dir, n+".yaml"))
		}
	}
	if len(paths) == 0 {
		return nil, errors.New("simulate: no scenarios (name files, scenario names, or all)")
	}
	out := make([]*Scenario, 0, len(paths))
	for _, p := range paths {
		sc, err := Load(p)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// label is how the timeline names a step.
func (s Step) label() string {
	parts := []string{s.Action}
	a := s.Args
	for _, kv := range [][2]string{{"", a.Value}, {"tier ", a.Tier}, {"price ", a.Price}, {"of ", a.Of}, {"at ", a.At},
		{"pay ", a.Pay}, {"type ", a.Type}, {"status ", a.Status}, {"action ", a.Kind}, {"as ", a.As}, {"sub ", a.Sub},
		{"job ", a.Job}, {"outcome ", a.Outcome}, {"expect_error ", a.Error}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+kv[1])
		}
	}
	if a.Seats > 0 {
		parts = append(parts, fmt.Sprintf("seats %d", a.Seats))
	}
	if a.Amount > 0 {
		parts = append(parts, fmt.Sprint(a.Amount))
	}
	if a.Trial != "" {
		parts = append(parts, "trial "+a.Trial)
	}
	return strings.Join(parts, " ")
}
