package catchup

import (
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Every call to Clerk's Backend API is bounded: a Clerk that accepts the connection and never answers
// must fail the sync's call after 15 s, not hold the task until its own 10-minute bound. Waiting out a hung
// server would make this a 15-second test, so the bound is read from the client clerk-sdk-go was given
// (its backend keeps it in an exported field of an unexported type; if the SDK moves it, this fails).
func TestClerkCallsHaveATimeout(t *testing.T) {
	t.Parallel()
	api, ok := NewClerkUsers("sk_test_x", "").(*clerkAPI)
	require.True(t, ok)
	backend := reflect.ValueOf(api.client.Backend)
	require.Equal(t, reflect.Pointer, backend.Kind())
	field := backend.Elem().FieldByName("HTTPClient")
	require.True(t, field.IsValid(), "clerk-sdk-go's backend has no HTTPClient field any more")
	client, ok := field.Interface().(*http.Client)
	require.True(t, ok)
	require.Equal(t, 15*time.Second, client.Timeout)
}
