package app

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/userdata"
)

// schemaUserTables is what the migrated schema says names a user: every table with a foreign key to
// users(id), with the key's ON DELETE action ('c' cascade, 'n' set null, 'a'/'r' refuse), and every
// table with a user_id column but no such key (on purpose: audit_logs), as "". Partitions are left out:
// their parent stands for them.
func schemaUserTables(t *testing.T, gdb *gorm.DB) map[string]string {
	t.Helper()
	var rows []struct {
		Name     string
		OnDelete string
	}
	require.NoError(t, gdb.Raw(`
		SELECT r.relname AS name, c.confdeltype::text AS on_delete
		FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid
		WHERE c.contype = 'f' AND c.confrelid = 'users'::regclass AND NOT r.relispartition
		UNION ALL
		SELECT r.relname, ''
		FROM pg_attribute a JOIN pg_class r ON r.oid = a.attrelid
		WHERE a.attname = 'user_id' AND NOT a.attisdropped AND r.relkind IN ('r', 'p') AND NOT r.relispartition
		  AND r.relnamespace = 'public'::regnamespace`).Scan(&rows).Error)
	out := map[string]string{}
	for _, r := range rows {
		if _, seen := out[r.Name]; !seen || r.OnDelete != "" {
			out[r.Name] = r.OnDelete
		}
	}
	return out
}

// registryProblems compares the registry with the schema: a table naming a user that no owner registered
// (or excluded), a registered table the schema does not have, and an erasure the foreign key contradicts
// (the key would do otherwise, or refuse the users row's delete).
func registryProblems(t *testing.T, gdb *gorm.DB, tables []userdata.Table) []string {
	t.Helper()
	var problems []string
	registered := map[string]userdata.Table{}
	for _, tb := range tables {
		registered[tb.Name] = tb
		var exists bool
		require.NoError(t, gdb.Raw(`SELECT to_regclass(?) IS NOT NULL`, tb.Name).Scan(&exists).Error)
		if !exists {
			problems = append(problems, fmt.Sprintf("%s (registered by %s) is not a table of the schema", tb.Name, tb.Owner))
		}
	}
	schema := schemaUserTables(t, gdb)
	names := make([]string, 0, len(schema))
	for name := range schema {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		onDelete := schema[name]
		tb, ok := registered[name]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s names a user but is not in the user-data registry: its owner's "+
				"UserData (or its module's Module.UserData) must register it with an export and an erasure, or exclude it with a reason", name))
		case tb.Excluded != "":
		case onDelete == "" && tb.Erase.Policy != userdata.Keep && tb.Erase.Run == nil:
			problems = append(problems, fmt.Sprintf("%s has no foreign key to users, so its erasure (%s) needs a Run", name, tb.Erase.Policy))
		case onDelete == "a" || onDelete == "r":
			problems = append(problems, fmt.Sprintf("%s's foreign key to users refuses the erasure's delete: make it ON DELETE CASCADE or SET NULL", name))
		case tb.Erase.Run == nil && tb.Erase.Policy == userdata.Delete && onDelete != "c":
			problems = append(problems, fmt.Sprintf("%s is registered as deleted by its foreign key, which is not ON DELETE CASCADE", name))
		case tb.Erase.Run == nil && tb.Erase.Policy == userdata.Redact && onDelete != "n":
			problems = append(problems, fmt.Sprintf("%s is registered as redacted by its foreign key, which is not ON DELETE SET NULL", name))
		case tb.Erase.Policy == userdata.Keep && onDelete == "c":
			problems = append(problems, fmt.Sprintf("%s is registered as kept, but its foreign key deletes it (ON DELETE CASCADE)", name))
		}
	}
	return problems
}

// Every table of the migrated schema that names a user (a foreign key to users, or a user_id column) is
// in the registry a real App builds, with an erasure its foreign key agrees with: a new table of user data
// cannot be missing from the export and the erasure by oversight. The test proves it bites: a throwaway
// table with a user's foreign key, and the App's registry without one of its entries, are both refused.
func TestEveryUserTableIsRegistered(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	a := appOn(t, d, nil, Options{})
	tables := a.UserData()
	require.Empty(t, registryProblems(t, d.Gorm, tables))

	without := slices.DeleteFunc(slices.Clone(tables), func(tb userdata.Table) bool { return tb.Name == "idempotency_keys" })
	require.Equal(t, []string{"idempotency_keys names a user but is not in the user-data registry: its owner's " +
		"UserData (or its module's Module.UserData) must register it with an export and an erasure, or exclude it with a reason"},
		registryProblems(t, d.Gorm, without))

	require.NoError(t, d.Gorm.Exec(`CREATE TABLE scratch_notes (id UUID PRIMARY KEY, user_id UUID REFERENCES users (id) ON DELETE CASCADE)`).Error)
	require.NoError(t, d.Gorm.Exec(`CREATE TABLE scratch_log (id UUID PRIMARY KEY, user_id UUID)`).Error)
	problems := registryProblems(t, d.Gorm, tables)
	require.Len(t, problems, 2, problems)
	require.Contains(t, problems[0], "scratch_log names a user")
	require.Contains(t, problems[1], "scratch_notes names a user")
}
