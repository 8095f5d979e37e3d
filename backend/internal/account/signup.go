package account

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

// NewUser is the user a sign-up hook runs for: the row user.created just created or found, seen for the
// first time by the sign-up.
type NewUser struct {
	ID          uuid.UUID
	ClerkUserID string
	// Email is the verified primary address, "" when Clerk has not verified one.
	Email string
	// EventID is the Clerk delivery (svix-id) that ran the hooks.
	EventID string
}

// SignupHook is what a SaaS does when a user appears: grant credits, send a welcome, create a workspace,
// tell a CRM. Hooks run in the order the composition root (app.New) lists them, inside the transaction of
// the user.created delivery, and only the first time a user.created is processed for the user (see
// signup_completed_at), so each runs exactly once per user, whatever the replays, duplicates and
// concurrent deliveries. Run must write only through tx (other packages' tables through their owners'
// ...Tx functions) and enqueue outside effects as jobs in tx (an email, a call to another service), never
// call out directly: the transaction may still roll back. An error rolls the whole delivery back (the
// claim too), so the provider's retry runs every hook again from a clean state; wrap webhook.ErrPermanent
// for an error no retry can heal.
type SignupHook struct {
	// Name identifies the hook in errors and logs ("signup-grant").
	Name string
	Run  func(ctx context.Context, tx *gorm.DB, u NewUser) error
}

// EmailScreen says whether an address is on the disposable-email blocklist (*disposable.Blocklist), with
// the blocklist entry it matched.
type EmailScreen interface {
	DisposableTx(ctx context.Context, tx *gorm.DB, addr string) (entry string, disposable bool, err error)
}

// ActionDisposableEmail is the audit action of a sign-up whose address is on the disposable blocklist.
const ActionDisposableEmail = "user.disposable_email"

// SignupGrant is the built-in hook that grants the free tier's one-time signup credits (ledger job
// signup:<clerk id>, idempotent on its own too). A verified address on the disposable-email blocklist
// gets no credits: the user is still ours (Clerk already made the account), flagged disposable_email for
// the operators and audited. An address Clerk has not verified is not screened (it says nothing about who
// signed up) and gets the credits, as before. screen may be nil (no blocklist); amount 0 grants nothing.
func SignupGrant(ledger *credits.Service, amount int, screen EmailScreen) SignupHook {
	return SignupHook{Name: "signup-grant", Run: func(ctx context.Context, tx *gorm.DB, u NewUser) error {
		if screen != nil && u.Email != "" {
			entry, disposable, err := screen.DisposableTx(ctx, tx, u.Email)
			if err != nil {
				return err
			}
			if disposable {
				return flagDisposable(ctx, tx, u, entry)
			}
		}
		if amount <= 0 {
			return nil
		}
		// Nothing reads the grant back: it rides with the delivery's next statement (credits.GrantLater).
		return ledger.WithTx(tx).GrantLater(ctx, credits.GrantSpec{UserID: u.ID, Amount: amount,
			Key: "signup:" + u.ClerkUserID, Reason: "signup credits", Category: credits.CategoryPromotional})
	}}
}

func flagDisposable(ctx context.Context, tx *gorm.DB, u NewUser, entry string) error {
	if err := tx.WithContext(ctx).Exec(`UPDATE users SET disposable_email = true, updated_at = now() WHERE id = ?`,
		u.ID).Error; err != nil {
		return fmt.Errorf("flag disposable email: %w", err)
	}
	// The blocklist entry is a public throwaway-mail domain, not the user's address.
	return audit.Write(ctx, tx, audit.Entry{Actor: audit.ActorClerk, Action: ActionDisposableEmail, UserID: &u.ID,
		ResourceType: "user", ResourceID: u.ClerkUserID,
		Details: map[string]any{"event_id": u.EventID, "blocklist_entry": entry, "signup_credits_granted": false}})
}

// WelcomeEmail is the built-in hook that enqueues the welcome email (key welcome/<clerk id>) in the
// delivery's transaction. A user without a verified address gets none.
func WelcomeEmail(jobs Jobs, appName, dashboardURL string) SignupHook {
	return SignupHook{Name: "welcome-email", Run: func(ctx context.Context, tx *gorm.DB, u NewUser) error {
		if u.Email == "" {
			return nil
		}
		return jobs.EnqueueEmailTx(ctx, tx, email.TemplateWelcome, u.Email, welcomeKey(u.ClerkUserID),
			email.WelcomeData{Email: u.Email, AppName: appName, DashboardURL: dashboardURL})
	}}
}

// runSignupHooks runs every hook in order; the first error stops them and fails the delivery.
func (s *Service) runSignupHooks(ctx context.Context, tx *gorm.DB, u NewUser) error {
	for _, h := range s.hooks {
		if err := h.Run(ctx, tx, u); err != nil {
			return fmt.Errorf("signup hook %s: %w", hookName(h), err)
		}
	}
	return nil
}

func hookName(h SignupHook) string {
	if n := strings.TrimSpace(h.Name); n != "" {
		return n
	}
	return "unnamed"
}
