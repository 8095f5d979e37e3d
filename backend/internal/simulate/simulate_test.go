package simulate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Every scenario of the library parses (names, start, steps, known actions and arguments).
func TestTheLibraryParses(t *testing.T) {
	t.Parallel()
	list, err := Find(filepath.Join("..", "..", "..", "scenarios"), []string{"all"})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(list), 15)
	names := map[string]bool{}
	for _, sc := range list {
		require.False(t, names[sc.Name], "two scenarios named %s", sc.Name)
		names[sc.Name] = true
		require.Equal(t, sc.Name+".yaml", filepath.Base(sc.file), "a scenario's file is its name, so `simulate NAME` finds it")
		require.NotEmpty(t, sc.Rules, sc.Name)
	}
}

// A misspelt action, argument or expectation is an error naming it, never a step that silently checks
// nothing.
func TestAStepIsOneKnownActionWithKnownArguments(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		"- checkout: {tier: pro, seat: 3}":         `unknown argument "seat"`,
		"- chekout: {tier: pro}":                   `unknown action "chekout"`,
		"- signup:\n  advance: 1mo":                "one action per step",
		"- signup:\n  expect: {balanse: 25}":       "balanse",
		"- note: nothing":                          "a step needs an action",
		"- advance: {value: 1mo}":                  `unknown argument "value"`,
		"- spend: {amount: 5, outcome: complete}":  "",
		"- usage: {feature: api_calls, count: 10}": `unknown argument "count"`,
		"- usage: {feature: api_calls, quantity: 10, result: limit_exceeded}\n  expect: {usage: {api_calls: {used: 0}}}": "",
		"- signup:\n  expect: {usage: {api_calls: {usd: 1}}}":                                                            "usd",
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "s.yaml")
		require.NoError(t, os.WriteFile(path, []byte("name: s\nstart: 2027-01-01T00:00:00Z\nsteps:\n"+body+"\n"), 0o600))
		_, err := Load(path)
		if want == "" {
			require.NoError(t, err, body)
			continue
		}
		require.ErrorContains(t, err, want, body)
	}
}

// The same seed gives the same schedule, another seed another one; orderly sends each event once, in order.
func TestTheChaosScheduleFollowsTheSeed(t *testing.T) {
	t.Parallel()
	evs := []event{{typ: "transaction.completed"}, {typ: "subscription.created"}, {typ: "subscription.activated"}}
	plan := func(chaos bool, seed uint64) string {
		s := newScheduler(chaos, seed, "pro-monthly", 10)
		var out []string
		for step := range 4 {
			rounds, held := s.plan(step, evs)
			out = append(out, describe(rounds, held))
		}
		return strings.Join(out, "\n")
	}
	require.Equal(t, plan(true, 7), plan(true, 7))
	require.NotEqual(t, plan(true, 7), plan(true, 8))
	require.Equal(t, strings.Repeat("transaction.completed#1 | subscription.created#1 | subscription.activated#1\n", 4),
		plan(false, 7)+"\n")
}

// Month k of a period as billing counts it: the day clamped to the month's end, counted from the start.
func TestMonthStartClamps(t *testing.T) {
	t.Parallel()
	start := time.Date(2027, 1, 31, 12, 0, 0, 0, time.UTC)
	var got []string
	for k := range 5 {
		got = append(got, monthStart(start, k).Format("01-02"))
	}
	require.Equal(t, []string{"01-31", "02-28", "03-31", "04-30", "05-31"}, got)
}

// An outcome names the run's ids canonically, so two runs of a scenario compare.
func TestOutcomesNameIDsCanonically(t *testing.T) {
	t.Parallel()
	a, b := newIDs("s", "orderly"), newIDs("s", "chaos1")
	sa, sb := a.make("sub_", "sub:main"), b.make("sub_", "sub:main")
	require.NotEqual(t, sa, sb)
	require.Len(t, sa, len("sub_")+26)
	line := "movement grant +1000 grant:%s:2027-01-15T09:00:00Z expire:0b6f9a8e-3f2c-4c55-9d1e-2a1b3c4d5e6f"
	require.Equal(t, a.normalize(strings.ReplaceAll(line, "%s", sa)), b.normalize(strings.ReplaceAll(line, "%s", sb)))
}
