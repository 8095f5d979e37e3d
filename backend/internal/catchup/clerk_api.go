package catchup

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/clerk/clerk-sdk-go/v2"
	"github.com/clerk/clerk-sdk-go/v2/user"
)

// clerkAPI lists users through Clerk's Backend API with the instance's secret key.
type clerkAPI struct{ client *user.Client }

// NewClerkUsers is Clerk's user list for secretKey (CLERK_SECRET_KEY); apiURL "" is Clerk's own
// (https://api.clerk.com/v1).
func NewClerkUsers(secretKey, apiURL string) ClerkUsers {
	cfg := &clerk.ClientConfig{BackendConfig: clerk.BackendConfig{Key: clerk.String(secretKey),
		HTTPClient: &http.Client{Timeout: 15 * time.Second}}}
	if apiURL != "" {
		cfg.URL = clerk.String(apiURL)
	}
	return &clerkAPI{client: user.NewClient(cfg)}
}

// ListUsers lists a page of users, oldest first, each as the JSON of Clerk's user object.
func (c *clerkAPI) ListUsers(ctx context.Context, offset, limit int) ([]ClerkUser, int, error) {
	list, err := c.client.List(ctx, &user.ListParams{ListParams: clerk.ListParams{
		Limit: clerk.Int64(int64(limit)), Offset: clerk.Int64(int64(offset))}, OrderBy: clerk.String("created_at")})
	if err != nil {
		return nil, 0, err
	}
	out := make([]ClerkUser, 0, len(list.Users))
	for _, u := range list.Users {
		raw, err := json.Marshal(u)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, ClerkUser{ID: u.ID, JSON: raw})
	}
	return out, int(list.TotalCount), nil
}
