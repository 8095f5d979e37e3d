// Package docs embeds the OpenAPI document of the API and the development viewer that renders it, so the
// binary serves the description of the very build that answers, with nothing beside it on disk.
package docs

import (
	"embed"
	"io/fs"
)

// OpenAPI is docs/openapi.yaml, the contract of every route of httpapi's route table, served at
// GET /openapi.yaml. Tests hold it to the route table and validate every API test response against it.
//
//go:embed openapi.yaml
var OpenAPI []byte

//go:embed viewer
var viewer embed.FS

// Viewer is the /docs page (development only): index.html and init.js are ours; swagger-ui/ is the pinned,
// unmodified copy of swagger-ui-dist 5.35.0 it loads (viewer/swagger-ui/README.md says where it came from).
var Viewer = func() fs.FS {
	sub, err := fs.Sub(viewer, "viewer")
	if err != nil {
		panic("docs: " + err.Error()) // cannot happen: "viewer" is a valid, embedded directory
	}
	return sub
}()
