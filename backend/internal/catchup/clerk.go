package catchup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// clerkPage is how many users one Backend API call lists.
const clerkPage = 100

// SyncClerkUsers pages through Clerk's users and, for each one we have no row for, runs the user.created
// handler through the pipeline, as if its webhook had arrived (`fabrica sync clerk-users`). The event id is
// "sync_<clerk user id>", so a second run is a duplicate; the signup grant and the welcome email are keyed
// per user, so a real user.created arriving later changes nothing.
func (s *Service) SyncClerkUsers(ctx context.Context) (Report, error) {
	if s.d.Clerk == nil {
		return Report{}, ErrDisabled
	}
	var rep Report
	for offset := 0; ; offset += clerkPage {
		users, total, err := s.d.Clerk.ListUsers(ctx, offset, clerkPage)
		if err != nil {
			return rep, fmt.Errorf("sync clerk users: %w", err)
		}
		for _, u := range users {
			rep.Listed++
			if err := s.feedClerkUser(ctx, u, &rep); err != nil {
				return rep, err
			}
		}
		if len(users) < clerkPage || offset+len(users) >= total {
			return rep, nil
		}
	}
}

func (s *Service) feedClerkUser(ctx context.Context, u ClerkUser, rep *Report) error {
	exists, err := s.d.UserExists(ctx, u.ID)
	if err != nil {
		return fmt.Errorf("sync clerk user %s: %w", u.ID, err)
	}
	if exists {
		rep.Skipped++
		return nil
	}
	body, err := json.Marshal(map[string]any{"type": "user.created", "object": "event",
		"timestamp": s.d.Now().UnixMilli(), "data": json.RawMessage(u.JSON)})
	if err != nil {
		return err
	}
	h := http.Header{}
	h.Set(webhook.SvixIDHeader, "sync_"+u.ID)
	res, err := s.d.Pipeline.IngestTrusted(ctx, webhook.ProviderClerk, webhook.SourceSync, h, body)
	if err != nil && !errors.Is(err, webhook.ErrHandlerFailed) {
		return fmt.Errorf("sync clerk user %s: %w", u.ID, err)
	}
	rep.add(res)
	return nil
}
