package httpapi

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/idempotency"
)

// The Idempotency-Key convention (docs/usage.md): a route opts in with the idempotent middleware, after
// its authentication. A request must carry `Idempotency-Key` (1-255 visible ASCII characters, unique per
// caller); the first runs the handler in a transaction that also claims the key and stores the answer
// (the handler writes through idempotency.Transaction), the same key and body again replays that answer
// (`Idempotent-Replayed: true`), the same key with another body, method or path is 409
// idempotency_key_reused, and a copy arriving while the first runs waits for it and replays it. Only
// successes are kept: an error or a 4xx/5xx answer rolls everything back, and the key may be retried.

// HeaderIdempotencyKey names the request header; HeaderIdempotentReplayed marks a replayed answer.
const (
	HeaderIdempotencyKey     = "Idempotency-Key"
	HeaderIdempotentReplayed = "Idempotent-Replayed"
)

var errIdempotencyKeyRequired = NewError(http.StatusBadRequest, "idempotency_key_required",
	"this endpoint needs an Idempotency-Key header (1-255 visible ASCII characters)")

// idempotent is the middleware.
func idempotent(store *idempotency.Store) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			key := c.Request().Header.Get(HeaderIdempotencyKey)
			if !validIdempotencyKey(key, idempotency.MaxKeyLen) {
				return errIdempotencyKeyRequired
			}
			// The group's BodyLimit already bounds what this reads.
			body, err := io.ReadAll(c.Request().Body)
			if err != nil {
				return err
			}
			req := c.Request()
			r := idempotency.Request{Key: key, Hash: idempotency.Hash(req.Method, req.URL.Path, body)}
			if a := actorOf(c); a.Worker != "" {
				r.Scope = "worker:" + a.Worker
			} else {
				id := currentUser(c).ID
				r.Scope, r.UserID = "user:"+id.String(), &id
			}
			out := c.Response().Writer
			resp, replayed, err := store.Run(req.Context(), r, func(ctx context.Context) (idempotency.Response, error) {
				c.SetRequest(req.WithContext(ctx))
				c.Request().Body = io.NopCloser(bytes.NewReader(body))
				buf := &bufferedWriter{header: out.Header()}
				c.Response().Writer = buf
				herr := next(c)
				c.Response().Writer = out
				c.SetRequest(req)
				return idempotency.Response{Status: buf.status, ContentType: out.Header().Get(echo.HeaderContentType),
					Body: buf.body.Bytes()}, herr
			})
			if err != nil {
				// Rolled back: whatever the handler wrote went only to the buffer, so the error handler
				// answers instead (the buffered answer described effects that did not happen).
				c.Response().Committed, c.Response().Size = false, 0
				return err
			}
			if replayed {
				out.Header().Set(echo.HeaderContentType, resp.ContentType)
				out.Header().Set(HeaderIdempotentReplayed, "true")
			}
			c.Response().Status, c.Response().Committed, c.Response().Size = resp.Status, true, int64(len(resp.Body))
			out.WriteHeader(resp.Status)
			_, err = out.Write(resp.Body)
			return err
		}
	}
}

// validIdempotencyKey accepts 1 to max visible ASCII characters: what every client can send in a header
// and every log shows as it is.
func validIdempotencyKey(k string, max int) bool {
	if k == "" || len(k) > max {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// bufferedWriter holds a handler's answer until its transaction commits: a client never sees an answer
// whose effects might still roll back.
type bufferedWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *bufferedWriter) Header() http.Header { return w.header }

func (w *bufferedWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *bufferedWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(b)
}
