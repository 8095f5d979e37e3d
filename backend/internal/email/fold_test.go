package email_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

func TestFoldIsASCIIOnly(t *testing.T) {
	t.Parallel()
	require.Equal(t, "ada@example.com", email.Fold("  Ada@EXAMPLE.com "))
	require.Equal(t, "\u212aate@example.com", email.Fold("\u212aate@example.com"), "the Kelvin sign is not a k")
	require.NotEqual(t, email.Fold("kate@example.com"), email.Fold("\u212aATE@example.com"))
}
