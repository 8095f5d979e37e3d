// Package userdata is the registry of the tables that hold a user's data. Each package that owns such a
// table registers it with what the account export writes of it and what the account erasure does to it
// (delete, redact, or keep with a stated reason); app collects every owner's entries into one Registry,
// which the account package walks for the export and the erasure. A test in app compares the registry
// with the migrated schema, so a new table with a user id cannot be forgotten by either.
package userdata

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// Policy is what the erasure of an account does to a table's rows.
type Policy string

// The erasure policies.
const (
	// Delete removes the user's rows: by the foreign key's ON DELETE CASCADE when Erase.Run is nil.
	Delete Policy = "delete"
	// Redact keeps the rows without the person: by Erase.Run, or by ON DELETE SET NULL when Run is nil.
	Redact Policy = "redact"
	// Keep leaves the rows as they are; Erase.Reason says why (a legal duty, say).
	Keep Policy = "keep"
)

// Subject is the user an export or an erasure is about: what identifies them in the rows of each table
// (some name the user by their Clerk id, address or Paddle customer rather than by users.id).
type Subject struct {
	UserID           uuid.UUID
	ClerkUserID      string
	Email            string
	PaddleCustomerID *string
	// StandIn stands for the Clerk id in the records that are kept ("erased:" and the tombstone hash).
	StandIn string
}

// Erase is a table's erasure: the policy, why, and the work when the foreign key does not do it.
type Erase struct {
	Policy Policy
	// Reason says why the rows are redacted or kept; required for Redact and Keep.
	Reason string
	// Run erases the subjects' rows in the erasure's transaction, before their users rows are deleted
	// (now is the erasure's time). Nil: the foreign key's ON DELETE action does it.
	Run func(ctx context.Context, tx *gorm.DB, subjects []Subject, now time.Time) error
}

// Export writes a table's rows of one user into the export document under Key.
type Export struct {
	// Key is the document's member holding the rows (an array, [] when the user has none).
	Key string
	// Rows hands the user's rows to page, oldest first, at most pageSize at a time, read through tx (the
	// export's one snapshot) and filtered by user.UserID in SQL. A row is written as json.Marshal renders
	// it: give it an export view of its own (the built-in owners' row types get the API's views).
	Rows func(ctx context.Context, tx *gorm.DB, user Subject, pageSize int, page func([]any) error) error
}

// Table is one owner's entry: a table that holds a user's data, or one that names a user without
// holding their data (Excluded).
type Table struct {
	Name  string // the SQL table
	Owner string // the owning package, as docs/architecture.md's table-owners list names it
	// Export is nil when the table is not in the export document; NotExported then says why.
	Export      *Export
	NotExported string
	Erase       Erase
	// Excluded, when set, says why the table is neither exported nor erased: it names a user without
	// holding their data. Export and Erase stay empty.
	Excluded string
}

// Pages adapts a typed page reader to Export.Rows.
func Pages[T any](read func(ctx context.Context, tx *gorm.DB, user Subject, pageSize int, page func([]T) error) error) func(context.Context, *gorm.DB, Subject, int, func([]any) error) error {
	return func(ctx context.Context, tx *gorm.DB, user Subject, pageSize int, page func([]any) error) error {
		return read(ctx, tx, user, pageSize, func(rows []T) error {
			out := make([]any, len(rows))
			for i, r := range rows {
				out[i] = r
			}
			return page(out)
		})
	}
}

// Registry is every owner's tables, in the order they were registered: the export writes its sections
// in that order, and the erasure runs the tables' Run in that order.
type Registry struct {
	tables []Table
}

// New collects the owners' entries and refuses a table registered twice, an export key used twice, and
// an entry that does not say what it does.
func New(owners ...[]Table) (*Registry, error) {
	r := &Registry{}
	names, keys := map[string]string{}, map[string]string{}
	var errs []error
	for _, tables := range owners {
		for _, t := range tables {
			if err := t.check(); err != nil {
				errs = append(errs, err)
				continue
			}
			if owner, dup := names[t.Name]; dup {
				errs = append(errs, fmt.Errorf("userdata: table %s registered by %s and %s: one table, one owner", t.Name, owner, t.Owner))
				continue
			}
			names[t.Name] = t.Owner
			if t.Export != nil {
				if other, dup := keys[t.Export.Key]; dup {
					errs = append(errs, fmt.Errorf("userdata: export key %q used by %s and %s", t.Export.Key, other, t.Name))
					continue
				}
				keys[t.Export.Key] = t.Name
			}
			r.tables = append(r.tables, t)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return r, nil
}

func (t Table) check() error {
	switch {
	case t.Name == "" || t.Owner == "":
		return fmt.Errorf("userdata: an entry without a table name or owner (%q, %q)", t.Name, t.Owner)
	case t.Excluded != "":
		if t.Export != nil || t.Erase.Policy != "" {
			return fmt.Errorf("userdata: %s is excluded but has an export or an erasure", t.Name)
		}
		return nil
	case t.Export == nil && t.NotExported == "":
		return fmt.Errorf("userdata: %s has no export and no NotExported reason", t.Name)
	case t.Export != nil && (t.Export.Key == "" || t.Export.Rows == nil):
		return fmt.Errorf("userdata: %s's export needs a key and a Rows function", t.Name)
	}
	switch t.Erase.Policy {
	case Delete:
	case Redact, Keep:
		if t.Erase.Reason == "" {
			return fmt.Errorf("userdata: %s's erasure (%s) needs a reason", t.Name, t.Erase.Policy)
		}
	default:
		return fmt.Errorf("userdata: %s has no erasure policy (delete, redact or keep)", t.Name)
	}
	if t.Erase.Policy == Keep && t.Erase.Run != nil {
		return fmt.Errorf("userdata: %s keeps its rows, so it has nothing to run", t.Name)
	}
	return nil
}

// Tables lists every entry, in registration order.
func (r *Registry) Tables() []Table {
	if r == nil {
		return nil
	}
	return append([]Table(nil), r.tables...)
}

// Exports lists the tables in the export document, in its order.
func (r *Registry) Exports() []Export {
	var out []Export
	for _, t := range r.Tables() {
		if t.Export != nil {
			out = append(out, *t.Export)
		}
	}
	return out
}

// EraseTx runs every table's erasure work for subjects in tx, in registration order. The caller deletes
// the users rows afterwards, which does the foreign keys' part.
func (r *Registry) EraseTx(ctx context.Context, tx *gorm.DB, subjects []Subject, now time.Time) error {
	for _, t := range r.Tables() {
		if t.Erase.Run == nil {
			continue
		}
		if err := t.Erase.Run(ctx, tx, subjects, now); err != nil {
			return fmt.Errorf("erase %s: %w", t.Name, err)
		}
	}
	return nil
}
