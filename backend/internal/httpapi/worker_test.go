package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWorkerKeysMatch(t *testing.T) {
	t.Parallel()
	old, next := strings.Repeat("o", 32), strings.Repeat("n", 40)
	keys := newWorkerKeys([]string{old, next})
	sum := sha256.Sum256([]byte(next))
	for _, tc := range []struct {
		header, want string
		ok           bool
	}{
		{"Bearer " + old, "", true},
		{"Bearer " + next, hex.EncodeToString(sum[:4]), true},
		{"bearer  " + next + " ", hex.EncodeToString(sum[:4]), true},
		{"Bearer " + next[:39], "", false},
		{"Bearer " + next + "x", "", false},
		{next, "", false},
		{"Basic " + next, "", false},
		{"Bearer ", "", false},
		{"", "", false},
	} {
		fp, ok := keys.match(tc.header)
		require.Equal(t, tc.ok, ok, tc.header)
		if tc.want != "" {
			require.Equal(t, tc.want, fp, tc.header)
		}
		if ok {
			require.Len(t, fp, 8, "names the key without revealing it")
		}
	}
	_, ok := newWorkerKeys(nil).match("Bearer ")
	require.False(t, ok, "no keys: nothing matches")
	_, ok = newWorkerKeys(nil).match("Bearer anything")
	require.False(t, ok)
}
