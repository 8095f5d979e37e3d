package feedback

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	ptr := func(s string) *string { return &s }
	rating := func(n int) *int { return &n }
	for _, tc := range []struct {
		name string
		in   Input
		bad  []string
	}{
		{"ok with line breaks", Input{Message: " line one\n\tline two \r\n", Page: ptr(" /p "), Rating: rating(5)}, nil},
		{"4000 multibyte characters", Input{Message: strings.Repeat("é", MaxMessage)}, nil},
		{"blank page is none", Input{Message: "x", Page: ptr("  ")}, nil},
		{"empty", Input{Message: " \n "}, []string{"message"}},
		{"too long", Input{Message: strings.Repeat("é", MaxMessage+1)}, []string{"message"}},
		{"control character", Input{Message: "a\x00b"}, []string{"message"}},
		{"page and rating", Input{Message: "x", Page: ptr("/a\nb"), Rating: rating(0)}, []string{"page", "rating"}},
	} {
		f, err := validate(tc.in)
		if tc.bad == nil {
			require.NoError(t, err, tc.name)
			require.Equal(t, strings.TrimSpace(tc.in.Message), f.Message, tc.name)
			continue
		}
		var fe *FieldError
		require.True(t, errors.As(err, &fe), tc.name)
		require.ErrorIs(t, err, ErrInvalid, tc.name)
		require.Equal(t, tc.bad, fe.FieldNames(), tc.name)
	}
	f, err := validate(Input{Message: "x", Page: ptr("  ")})
	require.NoError(t, err)
	require.Nil(t, f.Page)
}
