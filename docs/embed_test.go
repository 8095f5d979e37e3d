package docs

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"regexp"
	"testing"
)

// The vendored viewer is the npm package's files, unmodified: each checksum its README records matches the
// embedded file, and every file the viewer serves from there is listed.
func TestVendoredViewerIsUnmodified(t *testing.T) {
	t.Parallel()
	readme, err := fs.ReadFile(Viewer, "swagger-ui/README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile(`(?m)^\| ([\w.-]+) \| ([0-9a-f]{64}) \|$`).FindAllStringSubmatch(string(readme), -1)
	listed := map[string]bool{"README.md": true}
	for _, r := range rows {
		body, err := fs.ReadFile(Viewer, "swagger-ui/"+r[1])
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(body); hex.EncodeToString(sum[:]) != r[2] {
			t.Errorf("swagger-ui/%s does not match the checksum its README records", r[1])
		}
		listed[r[1]] = true
	}
	entries, err := fs.ReadDir(Viewer, "swagger-ui")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !listed[e.Name()] {
			t.Errorf("swagger-ui/%s is not in its README's table", e.Name())
		}
	}
	if len(rows) != 5 {
		t.Errorf("the README lists %d files, want the 5 the viewer ships", len(rows))
	}
}
