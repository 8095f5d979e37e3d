package httpapi

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each sentinel has exactly one row in the error map: a second row would be dead (the first match wins)
// and would one day disagree with the first.
func TestErrorMapHasEachSentinelOnce(t *testing.T) {
	t.Parallel()
	seen := map[error]string{}
	for _, s := range errorMap {
		where := fmt.Sprintf("%d %s", s.status, s.code)
		if first, dup := seen[s.err]; dup {
			t.Errorf("sentinel %q is mapped twice: %s and %s", s.err, first, where)
		}
		seen[s.err] = where
		require.NotEmpty(t, s.code, s.err.Error())
		require.NotEmpty(t, s.message, s.err.Error())
	}
}
