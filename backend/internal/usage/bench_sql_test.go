package usage

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
)

// The usage benchmark (scripts/bench-usage.sh, docs/benchmarks.md U1-U3) runs pgbench on the statements
// the server sends, round trip for round trip. The scripts are generated from the statements themselves,
// so they cannot drift: this test fails when a script differs from what the statements make, and
// `go test ./backend/internal/usage -run TestBenchScripts -update` rewrites them.
var update = flag.Bool("update", false, "rewrite scripts/bench/usage_*.sql from the statements")

// A bench event's bind values as pgbench expressions: user and key from its pgbench variables, the
// month of a free user (the calendar month, UTC), a block limit no run reaches, now() for every time
// (the server passes one timestamp for all).
const (
	benchMonth    = `(date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`
	benchMonthEnd = `(date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month')`
	benchLimit    = `1000000000`
	benchStatuses = `ARRAY['trialing', 'active', 'past_due', 'paused']`
)

// Event i of a transaction: user 1 + i·:stride + (:ub + 37·i) mod :stride (each event in its own stratum of
// the users, as loadgen's batches pick them; :stride is the users over the batch size), or :hot; key
// pg-<client>-<:rb·1000 + i>. i is a number, or in the claim's arrays a generate_series column: pgbench
// makes every :variable a bind parameter (at most 255 a statement), so the arrays are built in SQL.
func benchUser(i string, hot bool) string {
	if hot {
		return `md5('bench-user-' || :hot)::uuid`
	}
	return fmt.Sprintf(`md5('bench-user-' || (1 + %[1]s * :stride + (:ub + 37 * %[1]s) %% :stride))::uuid`, i)
}
func benchKey(i string) string {
	return fmt.Sprintf(`('pg-' || :client_id || '-' || (:rb::bigint * 1000 + %s))`, i)
}
func benchEvent(i string) string {
	return fmt.Sprintf(`md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + %s))::uuid`, i)
}

// bind replaces $n with args[n-1], highest first ($11 before $1).
func bind(stmt string, args ...string) string {
	for n := len(args); n >= 1; n-- {
		stmt = strings.ReplaceAll(stmt, "$"+strconv.Itoa(n), args[n-1])
	}
	return stmt
}

// benchScript is one transaction of n events of feature, each of a random user (or of user :hot), in
// the server's round trips: BEGIN with the users' context (db.Pipelined holds BEGIN back for the first
// statement), then the claims, every counter upsert and the COMMIT (db.QueryRowsAndCommit).
func benchScript(title string, n int, feature string, hot bool) string {
	var b strings.Builder
	b.WriteString("-- " + title + "\n-- Generated from the server's statements by usage's TestBenchScripts (-update); do not edit.\n")
	b.WriteString("\\set ub random(0, :stride - 1)\n\\set rb random(1, 9000000000)\n")
	arr := func(expr, typ string) string {
		return fmt.Sprintf("ARRAY(SELECT %s FROM generate_series(0, %d) AS i ORDER BY i)::%s[]", expr, n-1, typ)
	}
	b.WriteString("\\startpipeline\nBEGIN;\n")
	if n == 1 { // one user: the server's one-user statement
		b.WriteString(bind(billing.UsageContextOneSQL, benchUser("0", hot), benchStatuses, "now()") + ";\n")
	} else {
		b.WriteString(bind(billing.UsageContextSQL, arr(benchUser("i", hot), "uuid"), benchStatuses, "now()") + ";\n")
	}
	b.WriteString("\\endpipeline\n\\startpipeline\n")
	b.WriteString(bind(claimSQL, arr(benchUser("i", hot), "uuid"), arr(benchKey("i"), "text"), arr(benchEvent("i"), "uuid"),
		arr("'"+feature+"'", "text"), arr("'usage'", "text"), arr("1", "bigint"), arr(benchMonth, "timestamptz"),
		arr("now()", "timestamptz"), "now()") + ";\n")
	for i := range n {
		k := strconv.Itoa(i)
		b.WriteString(bind(counterSQL, benchUser(k, hot), "'"+feature+"'", benchMonth, benchMonthEnd, "1", benchLimit, "true",
			benchKey(k), benchEvent(k), "now()", "now()") + ";\n")
	}
	b.WriteString("COMMIT;\n\\endpipeline\n")
	return b.String()
}

func TestBenchScripts(t *testing.T) {
	t.Parallel()
	for name, script := range map[string]string{
		"usage_single.sql": benchScript("U1's baseline: one usage event of a random bench user (docs/benchmarks.md).", 1, "api_calls", false),
		"usage_batch.sql":  benchScript("U2's baseline: a batch of 100 usage events of random bench users (docs/benchmarks.md).", 100, "api_calls", false),
		"usage_hot.sql":    benchScript("U3's baseline: one usage event of the one hot bench user :hot (docs/benchmarks.md).", 1, "hot_calls", true),
	} {
		path := filepath.Join("..", "..", "..", "scripts", "bench", name)
		if *update {
			require.NoError(t, os.WriteFile(path, []byte(script), 0o644))
			continue
		}
		have, err := os.ReadFile(path)
		require.NoError(t, err, "run with -update to write it")
		require.Equal(t, script, string(have), "%s differs from the server's statements: run with -update", name)
	}
}
