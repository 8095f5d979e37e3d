package simulate

import (
	"bytes"
	"context"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/devauth"
	"github.com/fabrica-saas/fabrica/backend/internal/trigger"
)

// client talks to the development server: the API with development session tokens (the user's, the dev
// admin's) issued at the server's time, the webhooks, and the development clock.
type client struct {
	base       string
	http       *http.Client
	key        *rsa.PrivateKey
	adminEmail string
	// offset is how far the server's clock is moved, as its last answer said; serverNow follows it.
	offset time.Duration
}

func (c *client) serverNow() time.Time { return time.Now().Add(c.offset) }

// token is a session of clerkID (with its verified email) issued now by the server's clock: a moved clock
// refuses a token of the machine's time. authTime is when the user signed in (a restore needs a sign-in
// after the deletion): now.
func (c *client) token(clerkID, email string) (string, error) {
	return devauth.Token(c.key, devauth.Claims{UserID: clerkID, Email: email, TTL: time.Hour}, c.serverNow())
}

func (c *client) admin() (string, error) {
	return c.token(devauth.DefaultAdminUserID, c.adminEmail)
}

// apiError is an answer that was not the one expected.
type apiError struct {
	method, path string
	status       int
	body         string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.method, e.path, e.status, e.body)
}

// call sends one API request as bearer and decodes a 2xx answer into out. A 429 (a server with the API rate
// limit on) waits for Retry-After and tries again; any other non-2xx answer is an *apiError.
func (c *client) call(ctx context.Context, method, path, bearer string, body, out any) (int, error) {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return 0, err
		}
	}
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(raw))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "Bearer "+bearer)
		req.Header.Set("Content-Type", "application/json")
		res, err := c.http.Do(req)
		if err != nil {
			return 0, fmt.Errorf("%s %s: %w", method, path, err)
		}
		answer, err := io.ReadAll(io.LimitReader(res.Body, 4<<20))
		res.Body.Close()
		if err != nil {
			return res.StatusCode, fmt.Errorf("%s %s: %w", method, path, err)
		}
		if res.StatusCode == http.StatusTooManyRequests && attempt < 20 {
			wait, _ := strconv.Atoi(res.Header.Get("Retry-After"))
			select {
			case <-time.After(time.Duration(min(max(wait, 1), 10)) * time.Second):
				continue
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}
		if res.StatusCode < 200 || res.StatusCode > 299 {
			return res.StatusCode, &apiError{method, path, res.StatusCode, strings.TrimSpace(string(answer))}
		}
		if out != nil {
			if err := json.Unmarshal(answer, out); err != nil {
				return res.StatusCode, fmt.Errorf("%s %s: %w", method, path, err)
			}
		}
		return res.StatusCode, nil
	}
}

func (c *client) asAdmin(ctx context.Context, method, path string, body, out any) (int, error) {
	tok, err := c.admin()
	if err != nil {
		return 0, err
	}
	return c.call(ctx, method, path, tok, body, out)
}

// clockAnswer is the development clock's state, and after a move the tasks it ran.
type clockAnswer struct {
	Now           time.Time `json:"now"`
	OffsetSeconds float64   `json:"offset_seconds"`
	Tasks         []struct {
		Name   string         `json:"name"`
		Report map[string]int `json:"report"`
	} `json:"tasks"`
}

// readClock learns how far the server's clock is moved. A server without the route is not a development
// server, and simulate stops there.
func (c *client) readClock(ctx context.Context) error {
	now, err := trigger.ServerClock(ctx, c.http, c.base)
	if err != nil {
		return fmt.Errorf("%w: simulate drives a development server (APP_ENV=development; make run, or make simulate)", err)
	}
	c.offset = time.Until(now())
	return nil
}

// moveClock sets the server's clock to at; the server answers once every process tells that time, after
// running the periodic tasks whose schedule the move crossed.
func (c *client) moveClock(ctx context.Context, at time.Time) (clockAnswer, error) {
	var a clockAnswer
	_, err := c.asAdmin(ctx, http.MethodPost, "/api/v1/dev/clock", map[string]any{"set": at}, &a)
	if err != nil {
		return a, err
	}
	c.offset = time.Duration(a.OffsetSeconds * float64(time.Second))
	return a, nil
}

// deliver signs d anew at the server's time (each attempt of a real provider carries a fresh signature)
// and posts it; ok is a 2xx that did not fail the delivery for good (`"failed":true`: archived failed).
func (c *client) deliver(ctx context.Context, b *trigger.Builder, provider string, d trigger.Delivery) (trigger.Answer, bool, error) {
	at := *b // a copy: deliveries run concurrently
	at.Now = c.serverNow
	signed, err := at.Sign(provider, d)
	if err != nil {
		return trigger.Answer{}, false, err
	}
	a := trigger.Send(ctx, c.http, c.base, provider, signed, 1, 1)[0]
	return a, a.OK() && !strings.Contains(a.Body, `"failed":true`), nil
}
