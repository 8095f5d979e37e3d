package httpapi

import (
	"log/slog"

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
