package broadcast

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// Limits of a draft.
const (
	MaxSubject = 200       // characters (broadcast_runs.subject)
	MaxBody    = 100 << 10 // bytes of Markdown
)

// Audience selects a run's recipients; the zero value is every live user with an address (for marketing,
// every one who consented).
type Audience struct {
	Tier string `json:"tier,omitempty"`
}

// Draft is a broadcast as an operator composes it.
type Draft struct {
	Template      string
	Subject       string
	BodyMarkdown  string
	Audience      Audience
	Kind          string
	BypassConsent bool
}

// Run is a broadcast with its recipients counted by status.
type Run struct {
	models.BroadcastRun
	Audience Audience
	Counts   Counts
}

// Counts are a run's recipients by status.
type Counts struct {
	Pending, Sent, Skipped, Failed int64
}

// gated reports whether the run's mail needs the recipient's marketing consent: always for marketing, and
// for transactional mail unless the run bypasses consent with a template of fixed wording. The template is
// checked here too, at send time, so a run stored before that rule (a free-form one marked bypass_consent)
// is sent on consent, with its unsubscribe link.
func gated(r models.BroadcastRun) bool {
	return r.Kind == KindMarketing || !r.BypassConsent || !email.MayBypassConsent(r.Template)
}

// Create validates a draft, stores it queued and audits broadcast.queued. Nothing is sent until Send.
func (s *Service) Create(ctx context.Context, a audit.Actor, d Draft) (Run, error) {
	if err := s.validate(&d); err != nil {
		return Run{}, fmt.Errorf("create broadcast: %w", err)
	}
	aud, err := json.Marshal(d.Audience)
	if err != nil {
		return Run{}, fmt.Errorf("create broadcast: %w", err)
	}
	run := models.BroadcastRun{Template: d.Template, Subject: d.Subject, BodyMarkdown: d.BodyMarkdown, Audience: aud,
		Kind: d.Kind, BypassConsent: d.BypassConsent, Status: StatusQueued, CreatedBy: a.Name()}
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&run).Error; err != nil {
			return err
		}
		return audit.Write(ctx, tx, a.Entry(ActionQueued, "broadcast_run", run.ID.String(), map[string]any{
			"template": run.Template, "kind": run.Kind, "bypass_consent": run.BypassConsent, "tier": d.Audience.Tier}))
	})
	if err != nil {
		return Run{}, fmt.Errorf("create broadcast: %w", err)
	}
	return Run{BroadcastRun: run, Audience: d.Audience}, nil
}

// validate checks a draft and trims its subject. The draft is also rendered once, so a template that
// cannot render it fails here rather than on every recipient.
func (s *Service) validate(d *Draft) error {
	if !email.IsBroadcastTemplate(d.Template) {
		return ErrUnknownTemplate
	}
	d.Subject = strings.TrimSpace(d.Subject)
	var bad []string
	if d.Subject == "" || utf8.RuneCountInString(d.Subject) > MaxSubject || strings.ContainsFunc(d.Subject, unicode.IsControl) {
		bad = append(bad, "subject")
	}
	if len(d.BodyMarkdown) > MaxBody || !utf8.ValidString(d.BodyMarkdown) || strings.ContainsRune(d.BodyMarkdown, 0) {
		bad = append(bad, "body_markdown")
	}
	if d.Kind != KindMarketing && d.Kind != KindTransactional {
		bad = append(bad, "kind")
	}
	if len(bad) > 0 {
		return &account.FieldError{Err: ErrInvalidDraft, Fields: bad}
	}
	if d.Kind == KindMarketing && d.BypassConsent {
		return ErrConsentRequired
	}
	if d.BypassConsent && !email.MayBypassConsent(d.Template) {
		return ErrBypassNeedsFixedWording
	}
	if d.Audience.Tier != "" {
		if _, ok := s.tiers.ByName(d.Audience.Tier); !ok {
			return billing.ErrUnknownTier
		}
	}
	_, err := s.render(models.BroadcastRun{Template: d.Template, Subject: d.Subject, BodyMarkdown: d.BodyMarkdown}, "")
	return err
}

// PreviewDraft validates a draft as Create would and renders it as its recipients would get it (a sample
// unsubscribe link where the run is gated by consent). It stores and audits nothing.
func (s *Service) PreviewDraft(d Draft) (email.Message, error) {
	if err := s.validate(&d); err != nil {
		return email.Message{}, fmt.Errorf("preview broadcast: %w", err)
	}
	run := models.BroadcastRun{Template: d.Template, Subject: d.Subject, BodyMarkdown: d.BodyMarkdown, Kind: d.Kind,
		BypassConsent: d.BypassConsent}
	unsubscribe := ""
	if gated(run) {
		unsubscribe = email.SampleUnsubscribeURL
	}
	return s.render(run, unsubscribe)
}

// Get returns a run with its counts; db.ErrNotFound when there is none.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (Run, error) {
	var r Run
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		if r.BroadcastRun, err = loadRun(ctx, tx, id, false); err != nil {
			return err
		}
		r.Counts, err = countRecipients(ctx, tx, id)
		return err
	}, snapshot)
	if err != nil {
		return Run{}, fmt.Errorf("broadcast %s: %w", id, err)
	}
	r.Audience = audienceOf(r.BroadcastRun)
	return r, nil
}

// List lists runs newest first (without counts: Get has them).
func (s *Service) List(ctx context.Context, p db.Page) ([]Run, string, error) {
	rows, next, err := db.Keyset(s.db.WithContext(ctx).Model(&models.BroadcastRun{}), p.Limit, p.Cursor,
		func(r models.BroadcastRun) (time.Time, uuid.UUID) { return r.CreatedAt, r.ID })
	if err != nil {
		return nil, "", fmt.Errorf("list broadcasts: %w", err)
	}
	out := make([]Run, len(rows))
	for i, r := range rows {
		out[i] = Run{BroadcastRun: r, Audience: audienceOf(r)}
	}
	return out, next, nil
}

// Send starts (or resumes) a run: a queued or failed run becomes sending and gets a dispatcher job, in one
// transaction with its broadcast.send_requested audit row. Sending a run that is already sending enqueues
// the dispatcher again, which River drops while the first one exists (unique by run); a finished run is
// left as it is. Either way nobody is mailed twice.
func (s *Service) Send(ctx context.Context, a audit.Actor, id uuid.UUID) (Run, error) {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		run, err := loadRun(ctx, tx, id, true)
		if err != nil {
			return err
		}
		switch run.Status {
		case StatusFinished:
			return nil
		case StatusQueued, StatusFailed:
			if err := tx.Exec(`UPDATE broadcast_runs SET status = ?, started_at = coalesce(started_at, now())
				WHERE id = ?`, StatusSending, id).Error; err != nil {
				return err
			}
			if err := audit.Write(ctx, tx, a.Entry(ActionSendRequested, "broadcast_run", id.String(),
				map[string]any{"from_status": run.Status})); err != nil {
				return err
			}
		}
		return s.jobs.EnqueueBroadcastDispatchTx(ctx, tx, id)
	})
	if err != nil {
		return Run{}, fmt.Errorf("send broadcast %s: %w", id, err)
	}
	return s.Get(ctx, id)
}

// loadRun reads a run, FOR UPDATE when lock is set; db.ErrNotFound when there is none.
func loadRun(ctx context.Context, tx *gorm.DB, id uuid.UUID, lock bool) (models.BroadcastRun, error) {
	sql := `SELECT * FROM broadcast_runs WHERE id = ?`
	if lock {
		sql += ` FOR UPDATE`
	}
	var rows []models.BroadcastRun
	if err := tx.WithContext(ctx).Raw(sql, id).Scan(&rows).Error; err != nil {
		return models.BroadcastRun{}, err
	}
	if len(rows) == 0 {
		return models.BroadcastRun{}, db.ErrNotFound
	}
	return rows[0], nil
}

func countRecipients(ctx context.Context, tx *gorm.DB, runID uuid.UUID) (Counts, error) {
	var c Counts
	err := tx.WithContext(ctx).Raw(`SELECT count(*) FILTER (WHERE status = 'pending'),
		count(*) FILTER (WHERE status = 'sent'), count(*) FILTER (WHERE status = 'skipped'),
		count(*) FILTER (WHERE status = 'failed') FROM broadcast_recipients WHERE run_id = ?`, runID).
		Row().Scan(&c.Pending, &c.Sent, &c.Skipped, &c.Failed)
	return c, err
}

// audienceOf decodes a stored audience; the column is only ever written from an Audience.
func audienceOf(r models.BroadcastRun) Audience {
	var a Audience
	_ = json.Unmarshal(r.Audience, &a)
	return a
}
