package verify_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/verify"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// rowsCheck is a check whose query finds n violations, subjects s001..sNNN.
func rowsCheck(name, area string, n int) verify.Check {
	return verify.Check{Name: name, Area: area, Doc: "finds " + fmt.Sprint(n),
		Run: func(ctx context.Context, tx *gorm.DB, _ verify.Scope) ([]verify.Violation, error) {
			return verify.Rows(ctx, tx, name, `SELECT 's' || lpad(i::text, 3, '0') AS subject, 'found ' || i AS detail
				FROM generate_series(1, @n) i`, map[string]any{"n": n})
		}}
}

// A check that finds many violations reports the first MaxReported by subject and counts them all, so a
// broken invariant on a large database moves a few rows, not millions.
func TestRowsKeepsTheFirstFewAndCountsAll(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	rep, err := verify.Run(context.Background(), d.Gorm, []verify.Check{rowsCheck("many", "a", 500), rowsCheck("few", "a", 2),
		rowsCheck("none", "b", 0)}, verify.Scope{})
	require.NoError(t, err)
	require.Len(t, rep.Results, 3)
	many := rep.Results[0]
	require.Equal(t, 500, many.Count)
	require.Len(t, many.Violations, verify.MaxReported)
	require.True(t, many.Truncated())
	require.Equal(t, verify.Violation{Check: "many", Subject: "s001", Detail: "found 1"}, many.Violations[0])
	require.Equal(t, fmt.Sprintf("s%03d", verify.MaxReported), many.Violations[verify.MaxReported-1].Subject)
	require.Equal(t, 2, rep.Results[1].Count)
	require.False(t, rep.Results[1].Truncated())
	require.Zero(t, rep.Results[2].Count)
	require.Empty(t, rep.Results[2].Violations)
	require.Equal(t, 502, rep.Violations())
	require.Contains(t, rep.String(), "many: ... 480 more")
}

// Checks run in one read-only snapshot: a check cannot write, and its error stops the run.
func TestRunIsReadOnly(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	writer := verify.Check{Name: "writer", Area: "a", Run: func(ctx context.Context, tx *gorm.DB, _ verify.Scope) ([]verify.Violation, error) {
		return nil, tx.Exec(`INSERT INTO verify_alerts (check_name, subject, detail, first_seen_at, last_seen_at)
			VALUES ('x', 'y', 'z', now(), now())`).Error
	}}
	_, err := verify.Run(context.Background(), d.Gorm, []verify.Check{writer}, verify.Scope{})
	require.ErrorContains(t, err, "verify writer")
	require.ErrorContains(t, err, "read-only transaction")
}

func TestSelectAreas(t *testing.T) {
	t.Parallel()
	checks := []verify.Check{rowsCheck("l1", "ledger", 0), rowsCheck("b1", "billing", 0), rowsCheck("l2", "ledger", 0)}
	require.Equal(t, []string{"ledger", "billing"}, verify.Areas(checks))
	got, err := verify.Select(checks, []string{"ledger"})
	require.NoError(t, err)
	require.Equal(t, []string{"l1", "l2"}, []string{got[0].Name, got[1].Name})
	all, err := verify.Select(checks, nil)
	require.NoError(t, err)
	require.Len(t, all, 3)
	_, err = verify.Select(checks, []string{"ledger", "usage"})
	require.EqualError(t, err, `unknown area "usage" (known: ledger, billing)`)
}

// report is a run's outcome with the given violations of one check, subject → detail.
func report(name string, found map[string]string, count int) verify.Report {
	r := verify.Result{Check: verify.Check{Name: name}, Count: max(count, len(found))}
	for s, d := range found {
		r.Violations = append(r.Violations, verify.Violation{Check: name, Subject: s, Detail: d})
	}
	return verify.Report{Results: []verify.Result{r}}
}

// The daily job's memory: a violation is alerted once, however many runs still find it (its detail may
// drift); a new one is alerted; one that went away is resolved, and alerted again if it comes back.
func TestAlertOncePerNewViolation(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	ctx := context.Background()
	var mailed [][]string
	notify := func(_ context.Context, tx *gorm.DB, fresh []verify.Violation) error {
		var subjects []string
		for _, v := range fresh {
			subjects = append(subjects, v.Subject)
		}
		mailed = append(mailed, subjects)
		return nil
	}
	alert := func(rep verify.Report) verify.Alerted {
		t.Helper()
		a, err := verify.Alert(ctx, d.Gorm, rep, time.Now(), notify)
		require.NoError(t, err)
		return a
	}
	a := alert(report("c", map[string]string{"u1": "off by 1"}, 0))
	require.Len(t, a.New, 1)
	a = alert(report("c", map[string]string{"u1": "off by 2"}, 0))
	require.Empty(t, a.New, "the same violation, drifting")
	require.Equal(t, [][]string{{"u1"}}, mailed)

	a = alert(report("c", map[string]string{"u1": "off by 2", "u2": "off by 5"}, 0))
	require.Equal(t, []string{"u2"}, []string{a.New[0].Subject})
	require.Equal(t, [][]string{{"u1"}, {"u2"}}, mailed)

	// A truncated check (more found than kept) resolves nothing it did not see.
	a = alert(report("c", map[string]string{"u2": "off by 5"}, 40))
	require.Zero(t, a.Resolved)
	a = alert(report("c", map[string]string{"u2": "off by 5"}, 0))
	require.Equal(t, 1, a.Resolved, "u1 went away")
	a = alert(report("c", map[string]string{"u1": "off by 9", "u2": "off by 5"}, 0))
	require.Equal(t, []string{"u1"}, []string{a.New[0].Subject}, "u1 came back: new again")
	require.Len(t, mailed, 3)

	var detail string
	require.NoError(t, d.Gorm.Raw(`SELECT detail FROM verify_alerts WHERE check_name = 'c' AND subject = 'u1'`).Scan(&detail).Error)
	require.Equal(t, "off by 9", detail, "what the run that alerted it said")

	// A failing notification records nothing: the next run alerts again.
	_, err := verify.Alert(ctx, d.Gorm, report("c", map[string]string{"u3": "x"}, 0), time.Now(),
		func(context.Context, *gorm.DB, []verify.Violation) error { return fmt.Errorf("mail down") })
	require.ErrorContains(t, err, "mail down")
	a = alert(report("c", map[string]string{"u1": "off by 9", "u2": "off by 5", "u3": "x"}, 0))
	require.Equal(t, []string{"u3"}, []string{a.New[0].Subject})
}
