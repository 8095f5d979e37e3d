package audit_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
)

func TestActorNames(t *testing.T) {
	t.Parallel()
	a := audit.Actor{UserID: uuid.New(), ClerkUserID: "user_1", Email: "ops@example.com", IP: "192.0.2.1"}
	require.Equal(t, "user:user_1", a.Name())
	require.Equal(t, "admin:ops@example.com", a.AsAdmin().Name())
	require.Equal(t, "user:user_1", a.Name(), "AsAdmin returns a copy")

	e := a.Entry("thing.done", "thing", "t_1", map[string]any{"k": 1})
	require.Equal(t, audit.Entry{Actor: "user:user_1", Action: "thing.done", UserID: &a.UserID, ResourceType: "thing",
		ResourceID: "t_1", Details: map[string]any{"k": 1}, IP: "192.0.2.1"}, e)

	require.Equal(t, "admin", audit.Exported(a.AsAdmin().Name()), "which staff member acted is not the user's data")
	require.Equal(t, "user:user_1", audit.Exported(a.Name()))
	require.Equal(t, audit.ActorPaddle, audit.Exported(audit.ActorPaddle))

	// A worker acts on a user's job: the row names the key's fingerprint and belongs to the job's user.
	w := audit.Actor{UserID: a.UserID, Worker: "1a2b3c4d", IP: "198.51.100.7"}
	require.Equal(t, "worker:1a2b3c4d", w.Name())
	require.Equal(t, "worker:1a2b3c4d", w.Entry("credits.job_completed", "credit_job", "job-1", nil).Actor)
	require.Equal(t, &a.UserID, w.Entry("credits.job_completed", "credit_job", "job-1", nil).UserID)
	require.Equal(t, "worker:1a2b3c4d", audit.Exported(w.Name()))
}
