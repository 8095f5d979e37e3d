package clock_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Packages under backend/internal that may read the machine's time freely, each with its reason. Every
// other package, and any package added later, is guarded.
var unguarded = map[string]string{
	"app":                 "the composition root builds the clock; its commands measure durations",
	"clock":               "it is the clock",
	"db":                  "statement timings and GORM's bookkeeping stamps",
	"pgtest":              "test databases",
	"apispec":             "test code",
	"sentrytest":          "test code",
	"metrics":             "the scrape cache's age is a measurement",
	"billing/paddleapi":   "Retry-After is Paddle's real time, not ours",
	"session/sessiontest": "test tokens",
	"jobs/jobstest":       "test helpers",
	// The development tools take the server's clock from their caller (cmd/fabrica asks the server);
	// the machine's time is only their default.
	"trigger":  "a development tool: its caller passes the server's clock",
	"seed":     "a development tool: its caller passes the server's clock",
	"simulate": "a development tool: it keeps the simulated time itself",
}

// Uses of the machine's time inside guarded packages that are measurements, not decisions: file:function
// and why.
var measurements = map[string]string{
	"webhook/pipeline.go:process":          "a delivery's duration",
	"webhook/pipeline.go:archiveMalformed": "a delivery's duration",
	"webhook/pipeline.go:logDelivery":      "a delivery's duration",
	"jobs/tasks.go:RunTask":                "a task's duration",
	"jobs/jobs.go:shouldNotify":            "River's insert-notification cooldown between real processes",
	"httpapi/health.go:cached":             "a readiness check's latency",
	"verify/verify.go:Run":                 "a check's duration",
	// The providers' own event logs are in real time: the sync's lookback reads Paddle's clock.
	"catchup/catchup.go:New": "Paddle's and Clerk's logs are in real time",
}

// clockTakers are the constructors that take the clock (a Now in their Config or Deps) and fall back to
// the system clock without one: only app builds them, with its clock. A package that built its own would
// decide on the machine's time (the admin view once computed balances that way).
var clockTakers = []string{"credits.New", "billing.New", "account.New", "webhook.New", "session.New", "catchup.New",
	"httpapi.New", "jobs.NewTaskWorker"}

// TestDomainCodeReadsTheClock holds every package under backend/internal to the clock: a decision that
// read time.Now directly would ignore a test's fixed time and development's moved clock. It parses the
// Go files (not tests) and reports each time.Now, time.Since and time.Until outside the lists above, and
// each call of a clockTakers constructor outside app.
func TestDomainCodeReadsTheClock(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..")
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		pkg := filepath.ToSlash(filepath.Dir(rel))
		if _, ok := unguarded[pkg]; ok {
			return nil
		}
		for _, call := range constructorCalls(t, path) {
			t.Errorf("%s:%d: %s builds %s, which falls back to the system clock: take the one app built (its "+
				"*credits.Service, say) instead", rel, call.line, call.fn, call.name)
		}
		for _, use := range machineTimeUses(t, path) {
			key := rel + ":" + use.fn
			seen[key] = true
			if _, ok := measurements[key]; !ok {
				t.Errorf("%s:%d: %s calls time.%s: take the time from the clock app passes down (a Now func() "+
					"time.Time in the package's Config or Deps), or, for a measurement, list it in guard_test.go "+
					"with its reason", rel, use.line, use.fn, use.name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range measurements {
		if !seen[key] {
			t.Errorf("measurements lists %s, which no longer reads the machine's time: remove it", key)
		}
	}
}

type use struct {
	fn, name string
	line     int
}

// machineTimeUses lists the selectors time.Now, time.Since and time.Until in a file, called or not (a
// default `Now: time.Now` counts), with the function they appear in.
func machineTimeUses(t *testing.T, path string) []use {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	timeName := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "time" {
			timeName = "time"
			if imp.Name != nil {
				timeName = imp.Name.Name
			}
		}
	}
	if timeName == "" {
		return nil
	}
	var out []use
	for _, decl := range f.Decls {
		fn := "(package level)"
		if fd, ok := decl.(*ast.FuncDecl); ok {
			fn = fd.Name.Name
		}
		ast.Inspect(decl, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == timeName && slices.Contains([]string{"Now", "Since", "Until"}, sel.Sel.Name) {
				out = append(out, use{fn: fn, name: sel.Sel.Name, line: fset.Position(sel.Pos()).Line})
			}
			return true
		})
	}
	return out
}

// constructorCalls lists calls of clockTakers in a file.
func constructorCalls(t *testing.T, path string) []use {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	var out []use
	for _, decl := range f.Decls {
		fn := "(package level)"
		if fd, ok := decl.(*ast.FuncDecl); ok {
			fn = fd.Name.Name
		}
		ast.Inspect(decl, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && slices.Contains(clockTakers, id.Name+"."+sel.Sel.Name) {
					out = append(out, use{fn: fn, name: id.Name + "." + sel.Sel.Name, line: fset.Position(call.Pos()).Line})
				}
			}
			return true
		})
	}
	return out
}
