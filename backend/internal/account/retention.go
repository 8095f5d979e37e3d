package account

import (
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
)

// ConsentActions are the audit actions that record a change of a user's marketing consent: the one
// definition of the consent records the audit retention keeps longer than the rest. (A consent given at
// sign-up is recorded on the user row itself: marketing_consent_at and _source.)
var ConsentActions = []string{ActionConsentUpdated, ActionUnsubscribed}

// AuditRetention is the audit trail's retention policy at now, which the purge-audit task applies:
//   - every row older than keep (AUDIT_RETENTION) is deleted, except:
//   - consent records (ConsentActions) are kept for the life of the account, whatever their age: while we
//     may mail a user on their consent we must be able to show when and how it was given or withdrawn
//     (GDPR Art. 7(1));
//   - after the account is erased they are kept consentAfterErasure (AUDIT_CONSENT_RETENTION) longer, so a
//     complaint or claim about mail sent on that consent can still be answered within the limitation
//     period; the user.hard_deleted row, which dates the erasure, is kept as long, then both go.
func AuditRetention(now time.Time, keep, consentAfterErasure time.Duration) audit.Retention {
	return audit.Retention{Before: now.Add(-keep), Kept: ConsentActions, Erased: ActionHardDeleted,
		ErasedBefore: now.Add(-consentAfterErasure)}
}
