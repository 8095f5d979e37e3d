package main

import (
	"bytes"
	"debug/buildinfo"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// repoRoot is where the Makefile and the Dockerfile live, seen from this package's directory.
var repoRoot = filepath.Join("..", "..", "..")

// TestMakeBuildIsStatic runs `make build` itself into a temporary directory: the binary a PaaS runs must
// need no dynamic loader or shared library (the image is FROM scratch), must carry its version, and must
// not leak the builder's paths.
func TestMakeBuildIsStatic(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	bin := filepath.Join(t.TempDir(), "fabrica")
	const version = "v0.0.0-buildtest"
	cmd := exec.Command("make", "--no-print-directory", "build", "BIN="+bin, "VERSION="+version)
	cmd.Dir = repoRoot
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))

	f, err := elf.Open(bin)
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	for _, p := range f.Progs {
		require.NotEqual(t, elf.PT_INTERP, p.Type, "the binary asks for a dynamic loader: it would not start FROM scratch")
		require.NotEqual(t, elf.PT_DYNAMIC, p.Type, "the binary has a dynamic section")
	}
	libs, err := f.ImportedLibraries()
	require.NoError(t, err)
	require.Empty(t, libs)

	info, err := buildinfo.ReadFile(bin)
	require.NoError(t, err)
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	require.Equal(t, "0", settings["CGO_ENABLED"])
	require.Equal(t, "true", settings["-trimpath"]) // (-trimpath also keeps -ldflags out of the build info)

	abs, err := filepath.Abs(repoRoot)
	require.NoError(t, err)
	raw, err := os.ReadFile(bin)
	require.NoError(t, err)
	require.False(t, bytes.Contains(raw, []byte(abs+"/backend")), "-trimpath: the checkout's path is in the binary")

	got, err := exec.Command(bin, "version").Output()
	require.NoError(t, err)
	require.Equal(t, "fabrica "+version+"\n", string(got))
}

// TestDockerfileBuildsLikeMake holds the Dockerfile's go build command equal to the one `make build` runs,
// with the version and the output path as the only differences, so the image's binary is the one CI tests.
func TestDockerfileBuildsLikeMake(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	cmd := exec.Command("make", "--no-print-directory", "-n", "build", "GO=go", "BIN=@OUT@", "VERSION=@VERSION@")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	require.NoError(t, err)
	var makeLine string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "go build") {
			makeLine = l
		}
	}
	require.NotEmpty(t, makeLine, "make -n build printed no go build:\n%s", out)

	runLine := dockerfileRun(t, "go build")
	runLine = regexp.MustCompile(`\$\{VERSION\}|\$VERSION\b`).ReplaceAllString(runLine, "@VERSION@")
	want := withOutput(t, shellWords(t, makeLine))
	got := withOutput(t, shellWords(t, runLine))
	require.Equal(t, want, got, "the Dockerfile must build like `make build`:\n  make:       %s\n  Dockerfile: %s", makeLine, runLine)
	require.Contains(t, got, "CGO_ENABLED=0")
}

// dockerfileRun returns the command of the Dockerfile's one RUN instruction that contains needle, with its
// line continuations joined.
func dockerfileRun(t *testing.T, needle string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	require.NoError(t, err)
	var found []string
	for _, ins := range dockerInstructions(string(raw)) {
		if rest, ok := strings.CutPrefix(ins, "RUN "); ok && strings.Contains(rest, needle) {
			found = append(found, strings.TrimSpace(rest))
		}
	}
	require.Len(t, found, 1, "want exactly one RUN with %q in the Dockerfile", needle)
	return found[0]
}

// dockerInstructions splits a Dockerfile into instructions: comments dropped, continuations joined.
func dockerInstructions(src string) []string {
	var out []string
	var cur strings.Builder
	for _, l := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur.Len() == 0) {
			continue
		}
		if c, ok := strings.CutSuffix(trimmed, `\`); ok {
			cur.WriteString(c + " ")
			continue
		}
		cur.WriteString(trimmed)
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	return out
}

// withOutput replaces the argument of -o with a marker: the one place the two commands may differ.
func withOutput(t *testing.T, words []string) []string {
	t.Helper()
	for i, w := range words {
		if w == "-o" {
			require.Less(t, i+1, len(words), "-o without a path")
			words[i+1] = "@OUT@"
		}
	}
	return words
}

// shellWords splits a command line the way sh does for the quoting these two files use ('...', "...",
// backslash); it expands nothing.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for i := 0; i < len(s); i++ {
		c := rune(s[i])
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteRune(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(c)
			inWord = true
		}
	}
	require.Zero(t, quote, "unterminated quote in %q", s)
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
