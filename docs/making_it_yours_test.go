package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The recipes of making-it-yours.md are checklists a cloner follows step by step; these tests keep them
// true as the code moves.

// readRecipes is making-it-yours.md (the test runs in docs/, so the repository is "..").
func readRecipes(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("making-it-yours.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// repoPath matches what the page names as a file or directory of the repository: a backticked or bare
// path under one of the top-level directories, or a file at the root. Placeholders (NNNNN, <name>, ...)
// are not paths and are skipped by namedPaths.
var repoPath = regexp.MustCompile("(?:^|[\\s`(])((?:backend|docs|migrations|scripts|scenarios)/[A-Za-z0-9_./<>-]*[A-Za-z0-9_/>-]|" +
	"\\.env\\.example|README\\.md|CHANGELOG\\.md|LICENSE|Makefile)")

// namedPaths are the repository paths a page names, placeholders left out.
func namedPaths(doc string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range repoPath.FindAllStringSubmatch(doc, -1) {
		p := strings.TrimSuffix(m[1], ".")
		if strings.ContainsAny(p, "<>") || strings.Contains(p, "NNNNN") || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// TestMakingItYoursNamesRealFiles: every file and directory the page names exists, so no step of a recipe
// sends a cloner to a file that moved.
func TestMakingItYoursNamesRealFiles(t *testing.T) {
	t.Parallel()
	paths := namedPaths(readRecipes(t))
	if len(paths) < 30 {
		t.Fatalf("found %d paths in making-it-yours.md, want the recipes' 30 or more: is the pattern broken?", len(paths))
	}
	for _, p := range paths {
		if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(p))); err != nil {
			t.Errorf("making-it-yours.md names %s, which does not exist", p)
		}
	}
}

// TestMakingItYoursNamesRealTests: every TestXxx the page names is a test function of the repository.
func TestMakingItYoursNamesRealTests(t *testing.T) {
	t.Parallel()
	defined := testFunctions(t)
	for _, m := range regexp.MustCompile("`(Test[A-Za-z0-9_]+)`").FindAllStringSubmatch(readRecipes(t), -1) {
		if !defined[m[1]] {
			t.Errorf("making-it-yours.md names %s, which no _test.go file defines", m[1])
		}
	}
}

// testFunctions are the names of every top-level test function under backend/ and docs/.
func testFunctions(t *testing.T) map[string]bool {
	t.Helper()
	defined := map[string]bool{}
	def := regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]+)\(`)
	for _, root := range []string{"../backend", "."} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range def.FindAllStringSubmatch(string(b), -1) {
				defined[m[1]] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return defined
}

// TestEventRecipeMatchesItsTests: the recipe "A new provider event" names every place the tests that guard
// handled events read. TestTriggerBuildsEveryHandledEvent and TestProvidersSetupListsHandledEvents
// (backend/cmd/fabrica) compare the handler tables with trigger's event lists and with the events
// docs/providers-setup.md lists; each thing those tests read must be a step of the recipe, so a test that
// starts reading one more place fails here until the recipe names it.
func TestEventRecipeMatchesItsTests(t *testing.T) {
	t.Parallel()
	doc := readRecipes(t)
	start := strings.Index(doc, "### A new provider event")
	if start < 0 {
		t.Fatal("making-it-yours.md has no recipe \"### A new provider event\"")
	}
	recipe := doc[start:]
	if end := strings.Index(recipe[1:], "\n### "); end >= 0 {
		recipe = recipe[:end+1]
	}

	// What each identifier those tests use stands for: the file a cloner edits.
	places := map[string]string{
		"PaddleHandlers":       "backend/internal/billing/paddle_events.go",
		"ClerkHandlers":        "backend/internal/account/clerk.go",
		"trigger.PaddleEvents": "backend/internal/trigger/events.go",
		"trigger.ClerkEvents":  "backend/internal/trigger/events.go",
	}
	for name, file := range map[string]string{
		"TestTriggerBuildsEveryHandledEvent":   "../backend/cmd/fabrica/help_test.go",
		"TestProvidersSetupListsHandledEvents": "../backend/cmd/fabrica/docs_test.go",
	} {
		body := testBody(t, file, name)
		if !strings.Contains(recipe, "`"+name+"`") {
			t.Errorf("the event recipe does not name %s, which enforces it", name)
		}
		read := 0
		for ident, place := range places {
			if strings.Contains(body, ident) {
				read++
				if !strings.Contains(recipe, place) {
					t.Errorf("%s reads %s, but the event recipe does not name %s", name, ident, place)
				}
			}
		}
		for _, m := range regexp.MustCompile(`readRepoFile\(t, "([^"]+)"\)`).FindAllStringSubmatch(body, -1) {
			read++
			if !strings.Contains(recipe, m[1]) {
				t.Errorf("%s reads %s, but the event recipe does not name it", name, m[1])
			}
		}
		if read == 0 {
			t.Errorf("%s reads none of the places this test knows: teach places what it reads now", name)
		}
	}
}

// testBody is the source of the top-level function name in file, up to the next top-level declaration.
func testBody(t *testing.T, file, name string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	start := strings.Index(src, "\nfunc "+name+"(")
	if start < 0 {
		t.Fatalf("%s has no func %s", file, name)
	}
	body := src[start+1:]
	if end := strings.Index(body, "\n}\n"); end >= 0 {
		body = body[:end]
	}
	return body
}
