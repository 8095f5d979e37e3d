package account_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
)

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

	x, err := svc.Export(ctx, self)
	require.NoError(t, err)
	ips := map[string]string{}
	for _, row := range x.Audit {
		ip := ""
		if row.IP != nil {
			ip = *row.IP
		}
		ips[row.Action] = ip
	}
	require.Equal(t, map[string]string{"account.updated": "203.0.113.7", "credits.job_completed": "",
		"admin.credits_granted": "", "email.sent": ""}, ips)
}
