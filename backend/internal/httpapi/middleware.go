package httpapi

import (
	"crypto/subtle"
	"log/slog"
	"net"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// Log attribute keys, shared so every line spells them the same way.
const (
	keyRequestID = "request_id"
	keyMethod    = "method"
	keyPath      = "path"
	keyStatus    = "status"
	keyLatencyMS = "latency_ms"
	keyError     = "error"
)

// securityHeaders sets the headers every response carries, errors included. The policy is for a JSON API:
// nothing may be framed, sniffed or loaded from these responses.
func securityHeaders(hsts bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Response().Header()
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("X-Frame-Options", "DENY")
			h.Set("Referrer-Policy", "no-referrer")
			h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
			h.Set("Cross-Origin-Resource-Policy", "same-origin")
			h.Set("Cache-Control", "no-store")
			if hsts {
				h.Set("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
			}
			return next(c)
		}
	}
}

// ipExtractor decides what c.RealIP() (audit rows, rate limits, logs) believes. Forwarded headers are the
// client's to write, so with no trusted proxies the socket address is the client (behind a load balancer:
// the balancer, which is why TRUSTED_PROXIES exists). With some, X-Forwarded-For is walked from the right
// and the first address that is not a trusted proxy is the client; entries a client wrote further left are
// never reached. X-Real-IP is never read.
func ipExtractor(trusted []*net.IPNet) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range trusted {
		opts = append(opts, echo.TrustIPRange(n))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// requestLogger writes one line per request. It logs the path, never the query string: unsubscribe
// tokens travel there.
func requestLogger(log *slog.Logger) echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogStatus: true, LogURIPath: true, LogMethod: true, LogLatency: true, LogRequestID: true, LogError: true,
		HandleError: true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			attrs := []slog.Attr{
				slog.String(keyRequestID, v.RequestID),
				slog.String(keyMethod, v.Method),
				slog.String(keyPath, v.URIPath),
				slog.Int(keyStatus, v.Status),
				slog.Int64(keyLatencyMS, v.Latency.Milliseconds()),
			}
			level := slog.LevelInfo
			if v.Status >= 500 {
				level = slog.LevelError
			}
			log.LogAttrs(c.Request().Context(), level, "request", attrs...)
			return nil
		},
	})
}

// requestLog returns the logger for this request, tagged with its request id.
func requestLog(c echo.Context, log *slog.Logger) *slog.Logger {
	return log.With(keyRequestID, c.Response().Header().Get(echo.HeaderXRequestID))
}

// bearerToken requires "Authorization: Bearer <token>" when token is set (for /metrics).
func bearerToken(token string) echo.MiddlewareFunc {
	want := []byte("Bearer " + token)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			got := []byte(c.Request().Header.Get(echo.HeaderAuthorization))
			if token != "" && subtle.ConstantTimeCompare(got, want) != 1 {
				return NewError(http.StatusUnauthorized, "unauthorized", "metrics token required")
			}
			return next(c)
		}
	}
}
