package app

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// API responses are gzipped for a client that accepts it, from 1 KiB on; small ones and clients that do not
// ask get plain JSON.
func TestAPIResponsesAreGzipped(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	tok := e.token(t, "user_gz")
	get := func(path string, gz bool) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		if gz {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		rec := httptest.NewRecorder()
		e.app.Echo().ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		return rec
	}
	for range 12 { // audit rows make the export comfortably larger than 1 KiB
		e.call(t, http.MethodPost, consentPath, tok, `{"marketing":true}`)
		e.call(t, http.MethodPost, consentPath, tok, `{"marketing":false}`)
	}
	plain := get(exportPath, false)
	require.Empty(t, plain.Header().Get("Content-Encoding"))
	require.Greater(t, plain.Body.Len(), 1024)

	rec := get(exportPath, true)
	require.Equal(t, "gzip", rec.Header().Get("Content-Encoding"))
	require.Less(t, rec.Body.Len(), plain.Body.Len())
	zr, err := gzip.NewReader(rec.Body)
	require.NoError(t, err)
	body, err := io.ReadAll(zr)
	require.NoError(t, err)
	var export map[string]any
	require.NoError(t, json.Unmarshal(body, &export), "the decompressed body is the JSON")
	require.Contains(t, export, "audit_logs")

	small := get("/api/v1/billing/subscription", true)
	require.Empty(t, small.Header().Get("Content-Encoding"), "below the minimum length")
	require.Empty(t, get("/health", true).Header().Get("Content-Encoding"), "only the API")
}
