package imagegen

import (
	"context"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/userdata"
)

// exportedGeneration is a generation as the user's export shows it.
type exportedGeneration struct {
	ID        uuid.UUID `json:"id"`
	Prompt    string    `json:"prompt"`
	CreatedAt time.Time `json:"created_at"`
}

// userData registers example_generations: the user's prompts are theirs, so the export has them
// (under example_generations) and the erasure deletes them (ON DELETE CASCADE on user_id).
func userData() []userdata.Table {
	return []userdata.Table{{
		Name: "example_generations", Owner: "examples/imagegen",
		Export: &userdata.Export{Key: "example_generations", Rows: userdata.Pages(
			func(ctx context.Context, tx *gorm.DB, u userdata.Subject, size int, page func([]exportedGeneration) error) error {
				return db.Walk(func() *gorm.DB {
					return tx.WithContext(ctx).Table("example_generations").Select("id, prompt, created_at").Where("user_id = ?", u.UserID)
				}, size, func(g exportedGeneration) (time.Time, uuid.UUID) { return g.CreatedAt, g.ID }, page)
			})},
		Erase: userdata.Erase{Policy: userdata.Delete},
	}}
}
