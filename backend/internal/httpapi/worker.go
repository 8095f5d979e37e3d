package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
)

// workerKeys are the service keys of the trusted side (WORKER_API_KEYS) that reports job outcomes. Only
// their SHA-256 digests are kept: comparing digests takes the same time whatever the presented token's
// length, and the first bytes of a digest name the key in the audit trail without revealing it.
type workerKeys [][sha256.Size]byte

func newWorkerKeys(keys []string) workerKeys {
	w := make(workerKeys, 0, len(keys))
	for _, k := range keys {
		w = append(w, sha256.Sum256([]byte(k)))
	}
	return w
}

// match reports whether "Authorization: Bearer <token>" carries one of the keys, and that key's
// fingerprint (the first 8 hex digits of its SHA-256). Every key is compared, in constant time, whichever
// matches: how long the check takes says nothing about which key, or how much of one, was guessed.
func (w workerKeys) match(authorization string) (fingerprint string, ok bool) {
	// Parsed as the session verifier does: the scheme is case-insensitive (RFC 9110 §11.1).
	scheme, token, _ := strings.Cut(strings.TrimSpace(authorization), " ")
	token = strings.TrimSpace(token)
	if !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	got := sha256.Sum256([]byte(token))
	matched := 0
	for _, k := range w {
		matched |= subtle.ConstantTimeCompare(got[:], k[:])
	}
	if matched != 1 {
		return "", false
	}
	return hex.EncodeToString(got[:4]), true
}

// authenticate makes the request a worker's when it carries one of the keys: a worker actor with no user
// yet, since the handler names the job's user from the body (workerActor).
func (w workerKeys) authenticate(c echo.Context) bool {
	fp, ok := w.match(c.Request().Header.Get(echo.HeaderAuthorization))
	if ok {
		c.Set(ctxActor, audit.Actor{Worker: fp, IP: c.RealIP()})
	}
	return ok
}

// errWorkerKeyRequired answers a job outcome reported without a service key: a user's session is not one.
var errWorkerKeyRequired = NewError(http.StatusUnauthorized, "unauthorized", "a worker service key is required")

// requireWorker lets through only a request with a worker service key (401 otherwise, sessions included:
// job outcomes are the trusted side's to report).
func requireWorker(keys workerKeys) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if !keys.authenticate(c) {
				return errWorkerKeyRequired
			}
			return next(c)
		}
	}
}

// workerOrSession lets a worker key through as requireWorker does, and sends every other request through
// the session chain (requireUser and the per-user rate limit). Workers are the trusted side and are not
// rate limited; a token that is no worker key gets exactly the session path's answers.
func workerOrSession(keys workerKeys, session ...echo.MiddlewareFunc) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		viaSession := next
		for i := len(session) - 1; i >= 0; i-- {
			viaSession = session[i](viaSession)
		}
		return func(c echo.Context) error {
			if keys.authenticate(c) {
				return next(c)
			}
			return viaSession(c)
		}
	}
}

// isWorker reports whether the request was authenticated with a worker key.
func isWorker(c echo.Context) bool { return actorOf(c).Worker != "" }

// Refusals of the user_id field: a worker must name the job's user, a session must not name anyone.
var (
	errUserIDRequired = NewError(http.StatusUnprocessableEntity, "validation_failed",
		"user_id (the user's id, a uuid) is required with a worker key")
	errUserIDNotAllowed = NewError(http.StatusUnprocessableEntity, "validation_failed",
		"user_id is accepted only with a worker key")
)

// workerActor is the worker acting on the job of the user named by userID (the users.id uuid). The audit
// row's actor is the worker's key; its user is the job's.
func workerActor(c echo.Context, userID *string) (audit.Actor, error) {
	if userID == nil {
		return audit.Actor{}, errUserIDRequired
	}
	id, err := uuid.Parse(*userID)
	if err != nil {
		return audit.Actor{}, errUserIDRequired
	}
	a := actorOf(c)
	a.UserID = id
	return a, nil
}
