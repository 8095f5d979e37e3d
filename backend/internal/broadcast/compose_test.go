package broadcast_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/broadcast"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

func TestCreateValidatesTheDraft(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{})
	with := func(f func(*broadcast.Draft)) broadcast.Draft { d := news; f(&d); return d }
	cases := []struct {
		name   string
		draft  broadcast.Draft
		want   error
		fields string
	}{
		{"unknown template", with(func(d *broadcast.Draft) { d.Template = "welcome" }), broadcast.ErrUnknownTemplate, ""},
		{"marketing bypassing consent", with(func(d *broadcast.Draft) { d.BypassConsent = true }), broadcast.ErrConsentRequired, ""},
		{"free-form announcement bypassing consent", with(func(d *broadcast.Draft) { d.Kind, d.BypassConsent = broadcast.KindTransactional, true }),
			broadcast.ErrBypassNeedsFixedWording, ""},
		{"no subject", with(func(d *broadcast.Draft) { d.Subject = "  " }), broadcast.ErrInvalidDraft, "subject"},
		{"subject with a line break", with(func(d *broadcast.Draft) { d.Subject = "a\r\nBcc: x@evil.test" }), broadcast.ErrInvalidDraft, "subject"},
		{"long subject", with(func(d *broadcast.Draft) { d.Subject = strings.Repeat("é", broadcast.MaxSubject+1) }), broadcast.ErrInvalidDraft, "subject"},
		{"huge body and bad kind", with(func(d *broadcast.Draft) { d.BodyMarkdown = strings.Repeat("x", broadcast.MaxBody+1); d.Kind = "spam" }),
			broadcast.ErrInvalidDraft, "body_markdown, kind"},
		{"unknown tier", with(func(d *broadcast.Draft) { d.Audience.Tier = "platinum" }), billing.ErrUnknownTier, ""},
	}
	for _, tc := range cases {
		_, err := svc.Create(context.Background(), operator, tc.draft)
		require.ErrorIs(t, err, tc.want, tc.name)
		if tc.fields != "" {
			var fe *account.FieldError
			require.ErrorAs(t, err, &fe, tc.name)
			require.Equal(t, tc.fields, strings.Join(fe.FieldNames(), ", "), tc.name)
		}
	}
	require.Zero(t, e.count(t, `SELECT count(*) FROM broadcast_runs`)+e.count(t, `SELECT count(*) FROM audit_logs`))

	r, err := svc.Create(context.Background(), operator, with(func(d *broadcast.Draft) { d.Audience.Tier = "pro" }))
	require.NoError(t, err)
	require.Equal(t, broadcast.StatusQueued, r.Status)
	require.Equal(t, "admin:op@example.com", r.CreatedBy)
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'broadcast.queued'
		AND actor = 'admin:op@example.com' AND resource_id = ? AND details->>'tier' = 'pro'`, r.ID.String()))
	require.Zero(t, e.count(t, `SELECT count(*) FROM river_job`), "creating sends nothing")
	_, err = svc.Get(context.Background(), uuid.New())
	require.ErrorIs(t, err, db.ErrNotFound)
}

// The database refuses a marketing run that bypasses consent even if the code were to let one through.
func TestMarketingBypassIsImpossibleInTheSchema(t *testing.T) {
	t.Parallel()
	e := setup(t)
	err := e.db.Exec(`INSERT INTO broadcast_runs (template, subject, kind, bypass_consent, created_by)
		VALUES ('announcement', 's', 'marketing', true, 'test')`).Error
	require.ErrorContains(t, err, "violates check constraint")
	require.NoError(t, e.db.Exec(`INSERT INTO broadcast_runs (template, subject, kind, bypass_consent, created_by)
		VALUES ('announcement', 's', 'transactional', true, 'test')`).Error)
}
