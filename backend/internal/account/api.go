package account

import (
	"time"
)

// DefaultDeletionGrace is the restore window of a soft-deleted account when Config.DeletionGrace is unset.
const DefaultDeletionGrace = 30 * 24 * time.Hour

// Audit actions this package writes besides the Clerk event names.
const (
	ActionUpdated        = "account.updated"
	ActionDeleted        = "account.deleted"
	ActionRestored       = "account.restored"
	ActionExported       = "account.exported"
	ActionConsentUpdated = "account.consent_updated"
	ActionUnsubscribed   = "email.unsubscribed"
	ActionHardDeleted    = "user.hard_deleted"
)

// Sources recorded in users.marketing_consent_source.
const (
	ConsentSourceAPI         = "api"
	ConsentSourceUnsubscribe = "unsubscribe_link"
)

func (s *Service) grace() time.Duration {
	if s.cfg.DeletionGrace > 0 {
		return s.cfg.DeletionGrace
	}
	return DefaultDeletionGrace
}
