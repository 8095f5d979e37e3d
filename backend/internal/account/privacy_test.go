package account_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// collected is an account.ExportWriter that keeps what it is handed, and the size of every page.
type collected struct {
	user     models.User
	ledger   []credits.Movement
	feedback []models.Feedback
	audit    []models.AuditLog
	pages    []int
}

func (c *collected) Start(_ time.Time, u models.User) error {
	c.user = u
	return nil
}

func (c *collected) Section(string) error { return nil }

func (c *collected) Rows(p []any) error {
	for _, row := range p {
		switch r := row.(type) {
		case credits.Movement:
			c.ledger = append(c.ledger, r)
		case models.Feedback:
			c.feedback = append(c.feedback, r)
		case models.AuditLog:
			c.audit = append(c.audit, r)
		}
	}
	c.pages = append(c.pages, len(p))
	return nil
}

// A user's export shows the IPs of the audit rows the user caused, and no other: a worker reporting their
// job, an operator acting on their account and the system write rows about the user from addresses that
// are not the user's (a worker's internal address above all).
func TestExportShowsOnlyTheUsersOwnIPs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, db := newService(t, account.Config{})
	u := seedUser(t, db, "user_ip", time.Time{})
	self := audit.Actor{UserID: u.ID, ClerkUserID: u.ClerkUserID, IP: "203.0.113.7"}
	worker := audit.Actor{UserID: u.ID, Worker: "wk_1a2b3c", IP: "10.0.0.5"}
	operator := audit.Actor{UserID: u.ID, Email: "boss@example.com", IP: "10.0.0.9"}.AsAdmin()
	for _, e := range []audit.Entry{
		self.Entry("account.updated", "user", u.ClerkUserID, nil),
		worker.Entry("credits.job_completed", "credit_job", "job_1", nil),
		operator.Entry("admin.credits_granted", "user", u.ClerkUserID, nil),
		{Actor: audit.ActorSystem, Action: "email.sent", UserID: &u.ID, IP: "10.0.0.1"},
	} {
		require.NoError(t, audit.Write(ctx, db, e))
	}

	var x collected
	_, err := svc.Export(ctx, self, &x)
	require.NoError(t, err)
	ips := map[string]string{}
	for _, row := range x.audit {
		ip := ""
		if row.IP != nil {
			ip = *row.IP
		}
		ips[row.Action] = ip
	}
	require.Equal(t, map[string]string{"account.updated": "203.0.113.7", "credits.job_completed": "",
		"admin.credits_granted": "", "email.sent": ""}, ips)
}

// The export reads a long history in pages of at most account.ExportPageSize rows, never in one
// statement: 1 201 ledger rows and 1 201 audit rows (many sharing a created_at, as the rows of one
// transaction do) come in three pages each, complete and oldest first across the page boundaries.
func TestExportReadsALongHistoryInPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, db := newService(t, account.Config{})
	u := seedUser(t, db, "user_long", time.Time{})
	const rows = 2*account.ExportPageSize + 201
	require.NoError(t, db.Exec(`INSERT INTO credit_transactions (user_id, delta, kind, job_id, created_at)
		SELECT ?, 1, 'grant', 'grant:' || i, now() - make_interval(secs => (? - i) / 7) FROM generate_series(1, ?) i`,
		u.ID, rows, rows).Error)
	require.NoError(t, db.Exec(`INSERT INTO audit_logs (actor, action, user_id, resource_id, created_at)
		SELECT 'system', 'step', ?, i::text, now() - make_interval(secs => (? - i) / 7) FROM generate_series(1, ?) i`,
		u.ID, rows, rows).Error)

	var x collected
	n, err := svc.Export(ctx, audit.Actor{UserID: u.ID, ClerkUserID: u.ClerkUserID}, &x)
	require.NoError(t, err)
	require.Equal(t, account.ExportCounts{"subscriptions": 0, "credit_transactions": rows, "feedback": 0, "audit_logs": rows}, n)
	require.Equal(t, []int{500, 500, 201, 500, 500, 201}, x.pages, "ledger pages, then audit pages")
	seen := map[string]bool{}
	for i, m := range x.ledger {
		require.False(t, seen[m.JobID], "a row twice: %s", m.JobID)
		seen[m.JobID] = true
		if i > 0 {
			prev := x.ledger[i-1]
			require.True(t, prev.CreatedAt.Before(m.CreatedAt) || (prev.CreatedAt.Equal(m.CreatedAt) && prev.ID.String() < m.ID.String()),
				"oldest first at row %d", i)
		}
	}
	seen = map[string]bool{}
	for _, a := range x.audit {
		seen[a.ResourceID] = true
	}
	require.Len(t, seen, rows)
}

// Setting consent to the value it already has changes nothing and writes nothing: no audit row, no new
// consent time. A client that sends its settings form on every save would otherwise grow the audit trail
// without bound. A real change is still recorded each time.
func TestConsentSetToItsCurrentValueWritesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, db := newService(t, account.Config{})
	u := seedUser(t, db, "user_same", time.Time{}) // consent given
	a := audit.Actor{UserID: u.ID, ClerkUserID: u.ClerkUserID}
	state := func() (int, string) {
		var n int
		var at string
		require.NoError(t, db.Raw(`SELECT (SELECT count(*) FROM audit_logs WHERE user_id = u.id),
			coalesce(u.marketing_consent_at::text, '') || '/' || u.updated_at::text FROM users u WHERE u.id = ?`, u.ID).
			Row().Scan(&n, &at))
		return n, at
	}
	before, at := state()
	for range 5 {
		got, err := svc.SetMarketingConsent(ctx, a, true)
		require.NoError(t, err)
		require.True(t, got.MarketingConsentGiven)
	}
	n, same := state()
	require.Equal(t, before, n, "no audit row for a choice already made")
	require.Equal(t, at, same, "no update either")

	for _, given := range []bool{false, false, true, true, false} {
		_, err := svc.SetMarketingConsent(ctx, a, given)
		require.NoError(t, err)
	}
	n, _ = state()
	require.Equal(t, before+3, n, "one row per real change")
}
