// Package migrations embeds the goose SQL migrations so the fabrica binary carries its own schema and
// `fabrica migrate up` works on a PaaS with nothing but the binary.
package migrations

import "embed"

// FS holds every migration file. Files are named NNNNN_description.sql and are never edited once applied:
// a change is a new file.
//
//go:embed *.sql
var FS embed.FS
