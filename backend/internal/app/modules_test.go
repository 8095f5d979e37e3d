package app

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/httpapi"
	"github.com/fabrica-saas/fabrica/backend/internal/module"
)

// A module's periodic task runs as a jobs.Task of App.tasks, and two tasks of one name refuse the boot.
func TestModuleTasksJoinTheTasks(t *testing.T) {
	t.Parallel()
	a := &App{modules: []module.Module{{Name: "reports", Tasks: []module.Task{{Name: "send-reports", Every: time.Hour,
		Run: func(context.Context, time.Time) (map[string]int, error) { return map[string]int{"sent": 3}, nil }}}}}}
	tasks := a.moduleTasks()
	require.Len(t, tasks, 1)
	r, err := tasks[0].Run(context.Background(), time.Now())
	require.NoError(t, err)
	require.Equal(t, 3, r["sent"])
	require.NoError(t, checkTaskNames(tasks))
	require.Error(t, checkTaskNames(append(tasks, tasks[0])))
}

// A module's error row that maps a sentinel the table already has, or one another module mapped, refuses
// the boot and names the module.
func TestModuleErrorsAreChecked(t *testing.T) {
	t.Parallel()
	mine := errors.New("mine")
	row := httpapi.ErrorCode{Err: mine, Status: http.StatusConflict, Code: "mine", Message: "mine"}
	a := &App{modules: []module.Module{{Name: "one", Errors: []httpapi.ErrorCode{row}}, {Name: "two", Errors: []httpapi.ErrorCode{row}}}}
	_, _, err := a.moduleEdges()
	require.ErrorContains(t, err, "module two")
}

// The worked example is wired by its own files and two lines of one existing Go file: app.go's import and
// its line in appModules (and its operation in docs/openapi.yaml). Every other mention of it in the code,
// comments aside, would be a central file a fork's feature has to edit too. This file names it to look.
func TestTheExampleIsWiredByOneLine(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../../..")
	require.NoError(t, err)
	own := []string{"backend/examples/imagegen/", "migrations/00032_example_generations.sql", "docs/",
		"backend/internal/app/modules_test.go"}
	found := map[string][]string{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "build" {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".sql", ".yaml", ".yml", ".json", ".sh", ".mod":
		default:
			if d.Name() != "Makefile" {
				return nil
			}
		}
		for _, o := range own {
			if strings.HasPrefix(rel, o) {
				return nil
			}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "//") || strings.HasPrefix(line, "--") || strings.HasPrefix(line, "#") {
				continue
			}
			if strings.Contains(line, "imagegen") || strings.Contains(line, "example_generations") {
				found[rel] = append(found[rel], line)
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{"backend/internal/app/app.go"}, keys(found), found)
	require.Len(t, found["backend/internal/app/app.go"], 2, "the import and the appModules line")
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
