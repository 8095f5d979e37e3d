package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// Each sentinel has exactly one row in the error map: a second row would be dead (the first match wins)
// and would one day disagree with the first.
func TestErrorMapHasEachSentinelOnce(t *testing.T) {
	t.Parallel()
	seen := map[error]string{}
	for _, s := range errorMap {
		where := fmt.Sprintf("%d %s", s.Status, s.Code)
		if first, dup := seen[s.Err]; dup {
			t.Errorf("sentinel %q is mapped twice: %s and %s", s.Err, first, where)
		}
		seen[s.Err] = where
		require.NotEmpty(t, s.Code, s.Err.Error())
		require.NotEmpty(t, s.Message, s.Err.Error())
	}
}

// A module's rows may not map a sentinel the table already maps, nor one twice among themselves.
func TestCheckErrorsRefusesASecondRow(t *testing.T) {
	t.Parallel()
	mine := errors.New("mine")
	require.NoError(t, CheckErrors([]ErrorCode{{mine, http.StatusConflict, "mine", "mine"}}))
	require.Error(t, CheckErrors([]ErrorCode{{mine, http.StatusConflict, "mine", "mine"}, {mine, http.StatusGone, "gone", "gone"}}))
	require.Error(t, CheckErrors([]ErrorCode{{db.ErrNotFound, http.StatusNotFound, "nope", "nope"}}))
	require.Error(t, CheckErrors([]ErrorCode{{Err: mine, Status: http.StatusConflict}}), "a row without code or message")
	status, detail, _ := resolve(fmt.Errorf("op: %w", mine), append(errorMap, ErrorCode{mine, http.StatusConflict, "mine", "my message"}))
	require.Equal(t, http.StatusConflict, status)
	require.Equal(t, ErrorDetail{Code: "mine", Message: "my message"}, detail)
}
