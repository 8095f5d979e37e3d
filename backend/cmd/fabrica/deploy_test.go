package main

import (
	"bufio"
	"cmp"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/fabrica-saas/fabrica/backend/internal/config"
)

// The deploy files (fly.toml, render.yaml, Procfile, docker-compose.yml) are read by platforms we cannot run
// here, so these tests hold them to what the binary and the boot guard actually accept: every command they
// run is a subcommand, and the variables each process gets (plus the secrets docs/deploy.md says to set)
// pass config.Load in production.

func readRepoFile(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, name))
	require.NoError(t, err)
	return raw
}

// requireSubcommand checks that a platform's command line reaches the named fabrica subcommand, the way
// run() reads it (a leading binary name is skipped).
func requireSubcommand(t *testing.T, line, want string) {
	t.Helper()
	args := strings.Fields(line)
	if len(args) > 0 && filepath.Base(args[0]) == "fabrica" {
		args = args[1:]
	}
	require.NotEmpty(t, args, "empty command %q", line)
	require.Equal(t, want, strings.Join(args, " "), "command %q", line)
	for _, c := range commands() {
		if c.name == args[0] && c.run != nil {
			return
		}
	}
	t.Fatalf("command %q: %q is not a fabrica subcommand", line, args[0])
}

func TestProcfile(t *testing.T) {
	t.Parallel()
	got := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(readRepoFile(t, "Procfile"))))
	for sc.Scan() {
		if name, cmd, ok := strings.Cut(sc.Text(), ":"); ok {
			got[name] = strings.TrimSpace(cmd)
		}
	}
	require.Len(t, got, 3)
	requireSubcommand(t, got["release"], "migrate up")
	requireSubcommand(t, got["web"], "serve")
	requireSubcommand(t, got["worker"], "worker")
	for _, cmd := range got {
		require.True(t, strings.HasPrefix(cmd, "fabrica "), "a Procfile command runs the fabrica on PATH: %q", cmd)
	}
}

type flyConfig struct {
	App    string `toml:"app"`
	Deploy struct {
		ReleaseCommand string `toml:"release_command"`
	} `toml:"deploy"`
	Env         map[string]string `toml:"env"`
	Processes   map[string]string `toml:"processes"`
	HTTPService struct {
		InternalPort int      `toml:"internal_port"`
		Processes    []string `toml:"processes"`
		Checks       []struct {
			Method string `toml:"method"`
			Path   string `toml:"path"`
		} `toml:"checks"`
	} `toml:"http_service"`
}

func readFly(t *testing.T) flyConfig {
	t.Helper()
	var fly flyConfig
	require.NoError(t, toml.Unmarshal(readRepoFile(t, "fly.toml"), &fly))
	return fly
}

func TestFlyConfig(t *testing.T) {
	t.Parallel()
	fly := readFly(t)
	require.NotEmpty(t, fly.App)
	// The image's entrypoint is the binary: Fly passes these as its arguments.
	requireSubcommand(t, fly.Deploy.ReleaseCommand, "migrate up")
	require.Len(t, fly.Processes, 2)
	requireSubcommand(t, fly.Processes["web"], "serve")
	requireSubcommand(t, fly.Processes["worker"], "worker")
	require.Equal(t, 8080, fly.HTTPService.InternalPort)
	require.Equal(t, fly.Env["PORT"], "8080")
	require.Equal(t, []string{"web"}, fly.HTTPService.Processes, "only web machines take HTTP traffic")
	require.Len(t, fly.HTTPService.Checks, 1)
	require.Equal(t, "GET", fly.HTTPService.Checks[0].Method)
	require.Equal(t, "/health/ready", fly.HTTPService.Checks[0].Path)
	require.Equal(t, "production", fly.Env["APP_ENV"])
	require.Equal(t, "false", fly.Env["SERVE_WORKERS"], "with a worker group, web machines must not work jobs too")
	// fly.toml's [env] plus the secrets docs/deploy.md has set with `fly secrets set`.
	env := maps.Clone(fly.Env)
	for _, k := range []string{"DATABASE_URL", "PADDLE_WEBHOOK_SECRET", "PADDLE_API_KEY", "CLERK_WEBHOOK_SECRET", "CLERK_JWT_KEY",
		"CLERK_AUTHORIZED_PARTIES", "CORS_ORIGINS", "PUBLIC_BASE_URL", "CHECKOUT_SIGNING_SECRET", "EMAIL_UNSUBSCRIBE_SECRET",
		"METRICS_TOKEN", "WORKER_API_KEYS", "ERASURE_TOMBSTONE_KEY", "EMAIL_DRIVER", "RESEND_API_KEY", "COMPANY_LEGAL_NAME"} {
		env[k] = sampleValue(t, k)
	}
	requireBoots(t, "fly.toml", env)
}

type renderVar struct {
	Key           string `yaml:"key"`
	Value         string `yaml:"value"`
	Sync          *bool  `yaml:"sync"`
	GenerateValue bool   `yaml:"generateValue"`
	FromGroup     string `yaml:"fromGroup"`
	FromDatabase  *struct {
		Name     string `yaml:"name"`
		Property string `yaml:"property"`
	} `yaml:"fromDatabase"`
	FromService *struct {
		Type      string `yaml:"type"`
		Name      string `yaml:"name"`
		EnvVarKey string `yaml:"envVarKey"`
	} `yaml:"fromService"`
}

type renderService struct {
	Type             string      `yaml:"type"`
	Name             string      `yaml:"name"`
	Runtime          string      `yaml:"runtime"`
	DockerfilePath   string      `yaml:"dockerfilePath"`
	DockerCommand    string      `yaml:"dockerCommand"`
	PreDeployCommand string      `yaml:"preDeployCommand"`
	HealthCheckPath  string      `yaml:"healthCheckPath"`
	EnvVars          []renderVar `yaml:"envVars"`
}

type renderBlueprint struct {
	Databases []struct {
		Name                 string `yaml:"name"`
		PostgresMajorVersion string `yaml:"postgresMajorVersion"`
	} `yaml:"databases"`
	EnvVarGroups []struct {
		Name    string      `yaml:"name"`
		EnvVars []renderVar `yaml:"envVars"`
	} `yaml:"envVarGroups"`
	Services []renderService `yaml:"services"`
}

func TestRenderBlueprint(t *testing.T) {
	t.Parallel()
	var bp renderBlueprint
	require.NoError(t, yaml.Unmarshal(readRepoFile(t, "render.yaml"), &bp))
	require.Len(t, bp.Databases, 1)
	require.Len(t, bp.Services, 2)
	web, worker := bp.Services[0], bp.Services[1]
	require.Equal(t, "web", web.Type)
	require.Equal(t, "worker", worker.Type)
	for _, s := range bp.Services {
		require.Equal(t, "docker", s.Runtime, s.Name)
		require.Equal(t, "./Dockerfile", s.DockerfilePath, s.Name)
	}
	requireSubcommand(t, web.PreDeployCommand, "migrate up")
	require.Empty(t, web.DockerCommand, "web runs the image's CMD (serve)")
	require.Equal(t, "/health/ready", web.HealthCheckPath)
	requireSubcommand(t, worker.DockerCommand, "worker")
	// Render deploys each service on its own: a worker must not start new code before its migrations ran.
	requireSubcommand(t, worker.PreDeployCommand, "migrate up")

	// What each service's environment is on Render, with a stand-in for every value a person or Render
	// supplies; each must boot through the production guard.
	groups := map[string][]renderVar{}
	for _, g := range bp.EnvVarGroups {
		groups[g.Name] = g.EnvVars
	}
	envs := map[string]map[string]string{}
	for _, s := range bp.Services {
		env := map[string]string{}
		vars := s.EnvVars
		for i := 0; i < len(vars); i++ {
			v := vars[i]
			switch {
			case v.FromGroup != "":
				g, ok := groups[v.FromGroup]
				require.True(t, ok, "%s: no envVarGroup %q", s.Name, v.FromGroup)
				vars = slices.Insert(slices.Clone(vars), i+1, g...)
			case v.FromDatabase != nil:
				require.Equal(t, bp.Databases[0].Name, v.FromDatabase.Name)
				require.Equal(t, "connectionString", v.FromDatabase.Property)
				env[v.Key] = "postgres://fabrica:secret@dpg-xyz-a/fabrica"
			case v.FromService != nil:
				from, ok := envs[v.FromService.Name]
				require.True(t, ok, "%s: %s comes from %q, declared later or not at all", s.Name, v.Key, v.FromService.Name)
				val, ok := from[v.FromService.EnvVarKey]
				require.True(t, ok, "%s: %s: %q has no %s", s.Name, v.Key, v.FromService.Name, v.FromService.EnvVarKey)
				env[v.Key] = val
			case v.GenerateValue:
				env[v.Key] = renderGenerated(t)
			case v.Sync != nil && !*v.Sync:
				env[v.Key] = sampleValue(t, v.Key)
			default:
				env[v.Key] = v.Value
			}
		}
		for k := range env {
			requireKnownKey(t, k)
		}
		envs[s.Name] = env
		requireBoots(t, "render.yaml "+s.Name, env)
	}
	require.Equal(t, "false", envs[web.Name]["SERVE_WORKERS"], "with a worker service, web instances must not work jobs too")
}

// renderGenerated is what generateValue produces: a base64-encoded 256-bit value.
func renderGenerated(t *testing.T) string {
	t.Helper()
	b := make([]byte, 32)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return base64.StdEncoding.EncodeToString(b)
}

// sampleValue stands in for a value a person supplies: well-formed and not a placeholder.
func sampleValue(t *testing.T, key string) string {
	t.Helper()
	b := make([]byte, 32)
	_, err := rand.Read(b)
	require.NoError(t, err)
	random := hex.EncodeToString(b)
	switch key {
	case "DATABASE_URL":
		return "postgres://fabrica:secret@db.internal:5432/fabrica"
	case "CLERK_AUTHORIZED_PARTIES", "CORS_ORIGINS":
		return "https://app.example.com"
	case "PUBLIC_BASE_URL":
		return "https://api.example.com"
	case "EMAIL_DRIVER":
		return "resend"
	case "EMAIL_FROM":
		return "Example <hello@example.com>"
	case "SMTP_URL":
		return "smtps://user:" + random + "@smtp.example.com:465"
	case "ADMIN_EMAILS":
		return "ops@example.com"
	case "ADMIN_CLERK_USER_IDS":
		return "user_2abc"
	case "TRUSTED_PROXIES":
		return "10.0.0.0/8"
	case "CLERK_WEBHOOK_SECRET":
		return "whsec_" + base64.StdEncoding.EncodeToString(b)
	}
	return random
}

func requireKnownKey(t *testing.T, name string) {
	t.Helper()
	for _, k := range config.Keys {
		if k.Name == name {
			return
		}
	}
	t.Fatalf("%s is not a variable the service reads (config.Keys)", name)
}

func requireBoots(t *testing.T, what string, env map[string]string) {
	t.Helper()
	require.Equal(t, "production", env["APP_ENV"], what)
	cfg, err := config.Load(func(k string) string { return env[k] }, "")
	require.NoError(t, err, "%s: the production guard refuses this environment", what)
	// The platform's proxy reaches the container on its own interface, not on loopback.
	require.Equal(t, ":"+cmp.Or(env["PORT"], "8080"), cfg.ListenAddr(), "%s: serve listens on every interface", what)
}

func TestComposeMatchesReadme(t *testing.T) {
	t.Parallel()
	var compose struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			Environment map[string]string `yaml:"environment"`
			Ports       []string          `yaml:"ports"`
		} `yaml:"services"`
	}
	require.NoError(t, yaml.Unmarshal(readRepoFile(t, "docker-compose.yml"), &compose))
	db, ok := compose.Services["db"]
	require.True(t, ok, "docker-compose.yml has no db service")
	require.True(t, strings.HasPrefix(db.Image, "docker.io/library/postgres:"), db.Image)
	require.Equal(t, []string{"127.0.0.1:5432:5432"}, db.Ports, "published on loopback only")
	url := fmt.Sprintf("postgres://%s:%s@127.0.0.1:5432/%s?sslmode=disable",
		db.Environment["POSTGRES_USER"], db.Environment["POSTGRES_PASSWORD"], db.Environment["POSTGRES_DB"])
	readme := string(readRepoFile(t, "README.md"))
	for _, want := range []string{"docker compose up -d db", "DATABASE_URL='" + url + "' make run"} {
		require.True(t, strings.Contains(readme, want), "README.md does not show %q", want)
	}
}
