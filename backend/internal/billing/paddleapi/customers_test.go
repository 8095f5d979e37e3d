package paddleapi

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	noCustomers  = `{"data":[],"meta":{"request_id":"r","pagination":{"per_page":50,"next":"","has_more":false,"estimated_total":0}}}`
	oneCustomer  = `{"data":[{"id":"ctm_found","email":"ada@example.com","status":"active"}],"meta":{"request_id":"r","pagination":{"per_page":50,"next":"","has_more":false,"estimated_total":1}}}`
	createdOne   = `{"data":{"id":"ctm_new","email":"ada@example.com","status":"active"},"meta":{"request_id":"r"}}`
	alreadyThere = `{"error":{"type":"request_error","code":"customer_already_exists","detail":"customer email conflicts with customer of id ctm_found"},"meta":{"request_id":"r"}}`
)

func TestEnsureCustomer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		replies []reply
		want    string
		paths   []string
	}{
		{"existing customer is found", []reply{{status: 200, body: oneCustomer}}, "ctm_found",
			[]string{"GET /customers"}},
		{"missing customer is created", []reply{{status: 200, body: noCustomers}, {status: 201, body: createdOne}}, "ctm_new",
			[]string{"GET /customers", "POST /customers"}},
		{"a concurrent create wins: found on the second look", []reply{{status: 200, body: noCustomers},
			{status: 409, body: alreadyThere}, {status: 200, body: oneCustomer}}, "ctm_found",
			[]string{"GET /customers", "POST /customers", "GET /customers"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, fake, _ := setup(t, Config{}, tc.replies...)
			id, err := c.EnsureCustomer(context.Background(), "ada@example.com")
			require.NoError(t, err)
			require.Equal(t, tc.want, id)
			var paths []string
			for _, r := range fake.requests() {
				paths = append(paths, r.Method+" "+r.Path)
				require.Equal(t, "Bearer "+testKey, r.Auth)
				if r.Method == http.MethodPost {
					require.JSONEq(t, `{"email":"ada@example.com"}`, r.Body)
				}
			}
			require.Equal(t, tc.paths, paths)
		})
	}
}
