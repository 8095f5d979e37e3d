// Package apispec holds the API to its description, docs/openapi.yaml: it loads the embedded document once
// and checks a response against the operation that answered it (the status must be declared, the body must
// match its schema). Test code only, like pgtest: TestImportRules lets no package import it.
package apispec

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/fabrica-saas/fabrica/docs"
)

// Doc is the embedded document, loaded once per test binary (loading resolves every $ref; validating the
// document itself is TestSpecIsValid's job, not every caller's).
var Doc = sync.OnceValues(func() (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(docs.OpenAPI)
	if err != nil {
		return nil, fmt.Errorf("load docs/openapi.yaml: %w", err)
	}
	return doc, nil
})

// SpecPath turns an Echo route path into the document's template: /users/:id is /users/{id}, and a
// wildcard (/console/*) is {path}, since OpenAPI has no unnamed parameter.
func SpecPath(echoPath string) string {
	segs := strings.Split(echoPath, "/")
	for i, s := range segs {
		if name, ok := strings.CutPrefix(s, ":"); ok {
			segs[i] = "{" + name + "}"
		} else if s == "*" {
			segs[i] = "{path}"
		}
	}
	return strings.Join(segs, "/")
}

// Operation is the document's operation for an Echo route, or nil when the document has none.
func Operation(doc *openapi3.T, method, echoPath string) *routers.Route {
	path := SpecPath(echoPath)
	item := doc.Paths.Value(path)
	if item == nil {
		return nil
	}
	op := item.GetOperation(method)
	if op == nil {
		return nil
	}
	return &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op}
}

// Check validates one answer of the route echoPath (the pattern Echo matched, as c.Path() gives it) to req.
// An operation of the document: its status must be declared and the body must match that response's schema
// for the answer's Content-Type. No operation (Echo's own 404 and 405 for unrouted requests): it must be an
// error in the one error shape.
func Check(req *http.Request, echoPath string, status int, header http.Header, body []byte) error {
	doc, err := Doc()
	if err != nil {
		return err
	}
	if body, err = decoded(header, body); err != nil {
		return err
	}
	route := Operation(doc, req.Method, echoPath)
	if route == nil {
		return checkUnrouted(doc, req, status, body)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, Route: route},
		Status:                 status,
		Header:                 header,
		// Without IncludeResponseStatus an undeclared status passes silently; a status the document does not
		// list is exactly the drift this check exists to catch.
		Options: &openapi3filter.Options{IncludeResponseStatus: true},
	}
	in.SetBodyBytes(body)
	// openapi3filter switches to the JSON Schema 2020-12 validator by itself for a 3.1 document.
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return fmt.Errorf("%s %s (%s %s) answered %d, not as docs/openapi.yaml says: %w\nbody: %s",
			req.Method, req.URL.Path, req.Method, route.Path, status, err, clip(body))
	}
	return nil
}

// checkUnrouted holds a request no route matched to the error shape of components/schemas/Error.
func checkUnrouted(doc *openapi3.T, req *http.Request, status int, body []byte) error {
	if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
		return fmt.Errorf("%s %s answered %d but docs/openapi.yaml has no such operation", req.Method, req.URL.Path, status)
	}
	if req.Method == http.MethodHead {
		return nil
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("%s %s answered %d with a body that is not JSON: %s", req.Method, req.URL.Path, status, clip(body))
	}
	if err := doc.Components.Schemas["Error"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		return fmt.Errorf("%s %s answered %d outside the error shape: %w", req.Method, req.URL.Path, status, err)
	}
	return nil
}

// decoded undoes a gzip Content-Encoding: the schema describes the JSON, not its compression.
func decoded(header http.Header, body []byte) ([]byte, error) {
	if header.Get("Content-Encoding") != "gzip" {
		return body, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("gzip response: %w", err)
	}
	return io.ReadAll(zr)
}

func clip(b []byte) string {
	const n = 2000
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
