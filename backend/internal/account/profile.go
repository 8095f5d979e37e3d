package account

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// UpdateProfile applies the allow-listed fields of patch (display_name, locale; see parsePatch) and audits
// the names of the fields that actually changed. A patch that changes nothing writes nothing.
func (s *Service) UpdateProfile(ctx context.Context, a audit.Actor, patch Patch) (models.User, error) {
	want, err := parsePatch(patch)
	if err != nil {
		return models.User{}, fmt.Errorf("update profile: %w", err)
	}
	var u models.User
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// The row lock orders concurrent PATCHes, so each audit row lists what its own request changed.
		if u, err = lockLiveUser(tx, a.UserID); err != nil {
			return err
		}
		changed := diff(u, want)
		if len(changed) == 0 {
			return nil
		}
		set := map[string]any{"updated_at": gorm.Expr("now()")}
		for _, f := range changed {
			set[f] = want[f]
		}
		if err := tx.Model(&u).Clauses(clause.Returning{}).Updates(set).Error; err != nil {
			return err
		}
		return audit.Write(ctx, tx, a.Entry(ActionUpdated, "user", a.ClerkUserID, map[string]any{"fields_changed": changed}))
	})
	if err != nil {
		return models.User{}, fmt.Errorf("update profile: %w", err)
	}
	return u, nil
}

// lockLiveUser reads the user FOR UPDATE, answering ErrDeleted for a row deleted since the request began.
func lockLiveUser(tx *gorm.DB, id uuid.UUID) (models.User, error) {
	var rows []models.User
	if err := tx.Raw(`SELECT * FROM users WHERE id = ? FOR UPDATE`, id).Scan(&rows).Error; err != nil {
		return models.User{}, err
	}
	if len(rows) == 0 || rows[0].DeletedAt != nil {
		return models.User{}, ErrDeleted
	}
	return rows[0], nil
}

// diff returns, sorted, the fields of want whose value differs from u's.
func diff(u models.User, want map[string]*string) []string {
	current := map[string]*string{fieldDisplayName: u.DisplayName, fieldLocale: u.Locale}
	var changed []string
	for _, f := range slices.Sorted(maps.Keys(want)) {
		if !equalPtr(current[f], want[f]) {
			changed = append(changed, f)
		}
	}
	return changed
}

func equalPtr(a, b *string) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}
