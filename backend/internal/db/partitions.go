package db

import (
	"fmt"
	"regexp"
	"time"

	"gorm.io/gorm"
)

// MonthlyPartitions is a table range-partitioned by calendar month (UTC), its partitions named
// <table>_yYYYYmMM: the webhook archive and the usage events. Each owner decides which months to keep;
// this holds the naming, the listing and the creation they share.
type MonthlyPartitions string

var partitionSuffix = regexp.MustCompile(`_y(\d{4})m(\d{2})$`)

// MonthStart is the first instant of t's calendar month, in UTC.
func MonthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// Name is the partition that holds month.
func (p MonthlyPartitions) Name(month time.Time) string {
	return fmt.Sprintf("%s_y%04dm%02d", p, month.Year(), int(month.Month()))
}

// List maps each partition of the table named as ours to the month it holds; others are left alone.
func (p MonthlyPartitions) List(tx *gorm.DB) (map[string]time.Time, error) {
	var names []string
	if err := tx.Raw(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = ?::regclass`, string(p)).Scan(&names).Error; err != nil {
		return nil, fmt.Errorf("list %s partitions: %w", p, err)
	}
	out := make(map[string]time.Time, len(names))
	for _, n := range names {
		m := partitionSuffix.FindStringSubmatch(n)
		if m == nil || n != string(p)+m[0] {
			continue
		}
		if t, err := time.Parse("2006-01", m[1]+"-"+m[2]); err == nil {
			out[n] = t
		}
	}
	return out, nil
}

// Lock takes the table's partition lock for the rest of tx: whoever creates or drops its partitions
// holds it, so two never work on them at once.
func (p MonthlyPartitions) Lock(tx *gorm.DB) error {
	return tx.Exec(`SELECT pg_advisory_xact_lock(hashtextextended(?, 0))`, string(p)+" partitions").Error
}

// Ensure creates the partitions of the months from first through last (their month starts) that do not
// exist yet, in tx, and returns how many it created. It holds Lock, so concurrent runs (two instances'
// tasks) take turns and CREATE never races CREATE.
func (p MonthlyPartitions) Ensure(tx *gorm.DB, first, last time.Time) (int, error) {
	if err := p.Lock(tx); err != nil {
		return 0, err
	}
	existing, err := p.List(tx)
	if err != nil {
		return 0, err
	}
	created := 0
	for m := MonthStart(first); !m.After(MonthStart(last)); m = m.AddDate(0, 1, 0) {
		name := p.Name(m)
		if _, ok := existing[name]; ok {
			continue
		}
		// Names and bounds are ours (a formatted date), not input: fmt is safe here.
		if err := tx.Exec(fmt.Sprintf(`CREATE TABLE %s PARTITION OF %s FOR VALUES FROM ('%s') TO ('%s')`,
			name, p, m.Format(time.RFC3339), m.AddDate(0, 1, 0).Format(time.RFC3339))).Error; err != nil {
			return created, fmt.Errorf("create %s: %w", name, err)
		}
		created++
	}
	return created, nil
}

// DropBefore drops, in tx and under Lock, every partition whose whole month ends at or before before, and
// returns how many it dropped and the rows they held (counted first: retention's report).
func (p MonthlyPartitions) DropBefore(tx *gorm.DB, before time.Time) (dropped, rows int, err error) {
	if err := p.Lock(tx); err != nil {
		return 0, 0, err
	}
	parts, err := p.List(tx)
	if err != nil {
		return 0, 0, err
	}
	for name, month := range parts {
		if month.AddDate(0, 1, 0).After(before) {
			continue
		}
		var n int
		if err := tx.Raw(fmt.Sprintf(`SELECT count(*) FROM %s`, name)).Scan(&n).Error; err != nil {
			return dropped, rows, err
		}
		if err := tx.Exec(fmt.Sprintf(`DROP TABLE %s`, name)).Error; err != nil {
			return dropped, rows, fmt.Errorf("drop %s: %w", name, err)
		}
		dropped, rows = dropped+1, rows+n
	}
	return dropped, rows, nil
}
