package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
)

// cluster is a private Postgres server listening on a unix socket in its own temp dir.
type cluster struct {
	dir    string
	bindir string
	asUser string // "postgres" when running as root: initdb refuses root
}

func startCluster() (*cluster, error) {
	bindir, err := findBindir()
	if err != nil {
		return nil, err
	}
	// A short path: the socket path must fit in 107 bytes.
	dir, err := os.MkdirTemp("/tmp", "fpg")
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: dir, bindir: bindir}
	if os.Geteuid() == 0 {
		c.asUser = "postgres"
		if err := chownTo(dir, c.asUser); err != nil {
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := c.run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8",
		"--locale=C", "--no-sync", "--no-instructions"); err != nil {
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	opts := fmt.Sprintf("-k %s -c listen_addresses='' -c fsync=off -c full_page_writes=off "+
		"-c synchronous_commit=off -c max_connections=300 -c shared_buffers=64MB", dir)
	if out, err := c.run("pg_ctl", "-D", data, "-w", "-t", "60", "-l", filepath.Join(dir, "log"), "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		return nil, fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, log)
	}
	return c, nil
}

func (c *cluster) url(dbname string) string {
	return fmt.Sprintf("postgres://postgres@/%s?host=%s&port=5432&sslmode=disable", dbname, c.dir)
}

func (c *cluster) stop() {
	_, _ = c.run("pg_ctl", "-D", filepath.Join(c.dir, "data"), "-m", "immediate", "stop")
	_ = os.RemoveAll(c.dir)
}

func (c *cluster) run(tool string, args ...string) ([]byte, error) {
	bin := filepath.Join(c.bindir, tool)
	var cmd *exec.Cmd
	if c.asUser != "" {
		cmd = exec.Command("runuser", append([]string{"-u", c.asUser, "--", bin}, args...)...)
	} else {
		cmd = exec.Command(bin, args...)
	}
	return cmd.CombinedOutput()
}

// findBindir locates the server binaries: PG_BINDIR, else the newest /usr/lib/postgresql/*/bin (Debian
// keeps them off PATH), else initdb on PATH.
func findBindir() (string, error) {
	if d := os.Getenv("PG_BINDIR"); d != "" {
		return d, nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(matches, func(i, j int) bool { return versionOf(matches[i]) > versionOf(matches[j]) })
	if len(matches) > 0 {
		return filepath.Dir(matches[0]), nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("no PostgreSQL server binaries found: install the postgresql package (apt-get install postgresql) or set PG_BINDIR or TEST_DATABASE_URL")
}

func versionOf(initdb string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return v
}

func chownTo(dir, name string) error {
	u, err := user.Lookup(name)
	if err != nil {
		return fmt.Errorf("look up user %s: %w", name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return os.Chown(dir, uid, gid)
}
