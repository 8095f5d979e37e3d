package httpapi

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
	"github.com/fabrica-saas/fabrica/backend/internal/session"
)

// SessionVerifier checks a Clerk session token from the Authorization header.
type SessionVerifier interface {
	FromHeader(ctx context.Context, authorization string) (session.Claims, error)
}

// Authenticator finds (or lazily creates, or restores) the user of a verified session.
type Authenticator interface {
	Authenticate(ctx context.Context, id account.Identity) (models.User, error)
}

// sessionErrors: any token problem is a 401; a JWKS outage is ours, not the client's.
var sessionErrors = []ErrorCode{
	{session.ErrMissingToken, http.StatusUnauthorized, "unauthorized", "missing bearer token"},
	{session.ErrInvalidToken, http.StatusUnauthorized, "unauthorized", "invalid or expired session token"},
	{session.ErrUnconfigured, http.StatusUnauthorized, "unauthorized", "session verification is not configured"},
	{session.ErrKeysUnavailable, http.StatusServiceUnavailable, "unavailable", "cannot verify sessions right now"},
}

// ctxKey values of the echo.Context.
const (
	ctxUser   = "user"
	ctxClaims = "claims"
	ctxActor  = "actor"
)

// requireUser authenticates the request with a Clerk session JWT and loads its user. Missing or invalid
// token: 401; a deleted account: 410 (account.ErrDeleted in the error map).
func requireUser(v SessionVerifier, users Authenticator) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			ctx := c.Request().Context()
			claims, err := v.FromHeader(ctx, c.Request().Header.Get(echo.HeaderAuthorization))
			if err != nil {
				return err
			}
			u, err := users.Authenticate(ctx, account.Identity{ClerkUserID: claims.UserID, Email: claims.Email,
				EmailVerified: claims.EmailVerified, AuthTime: claims.AuthTime})
			if err != nil {
				return err
			}
			c.Set(ctxUser, u)
			c.Set(ctxClaims, claims)
			// The one place the audit actor is built: every audited call below gets it from actorOf.
			c.Set(ctxActor, audit.Actor{UserID: u.ID, ClerkUserID: u.ClerkUserID, Email: u.Email, IP: c.RealIP()})
			return next(c)
		}
	}
}

// currentUser is the authenticated user; only routes behind requireUser call it.
func currentUser(c echo.Context) models.User {
	u, _ := c.Get(ctxUser).(models.User)
	return u
}

// actorOf is the authenticated caller as the audit trail records them (an operator's, past requireAdmin).
func actorOf(c echo.Context) audit.Actor {
	a, _ := c.Get(ctxActor).(audit.Actor)
	return a
}

// bind decodes a JSON body into dst, answering 400 on malformed input.
func bind(c echo.Context, dst any) error {
	if err := (&echo.DefaultBinder{}).BindBody(c, dst); err != nil {
		return NewError(http.StatusBadRequest, "bad_request", "malformed JSON body")
	}
	return nil
}
