package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// server is one incarnation of a `fabrica serve` process. A slot (A, B, C, ...) keeps its port across
// restarts, the way a load balancer's backend list stays fixed while its processes come and go.
type server struct {
	slot, gen int
	port      int
	cmd       *exec.Cmd
	logPath   string
	started   time.Time
	readyAt   time.Time     // set once by the suite when the first ready probe answered 200
	done      chan struct{} // closed once the process has exited

	mu       sync.Mutex
	termAt   time.Time // when SIGTERM was sent; zero if never
	exitedAt time.Time
	exitErr  error
}

func (s *server) name() string { return fmt.Sprintf("%c#%d", 'A'+s.slot, s.gen) }

// terminate sends SIGTERM: from now on the server is draining until it exits.
func (s *server) terminate() error {
	s.mu.Lock()
	s.termAt = time.Now()
	s.mu.Unlock()
	return s.cmd.Process.Signal(syscall.SIGTERM)
}

// kill is kill -9: no drain, no deferred cleanup, open transactions cut mid-flight.
func (s *server) kill() error { return s.cmd.Process.Kill() }

// drainingAt reports whether an answer received at t came while the server was draining after SIGTERM.
func (s *server) drainingAt(t time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.termAt.IsZero() && !t.Before(s.termAt)
}

// termSent is when SIGTERM was sent (zero if never).
func (s *server) termSent() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.termAt
}

// exited returns when the process ended and how (nil for exit status 0).
func (s *server) exited() (time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitedAt, s.exitErr
}

// wait blocks until the process has exited or limit passes.
func (s *server) wait(ctx context.Context, limit time.Duration) error {
	select {
	case <-s.done:
		return nil
	case <-time.After(limit):
		return fmt.Errorf("%s still running after %s", s.name(), limit)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fleet is every server process the suite starts, all on 127.0.0.1 with one database.
type fleet struct {
	bin, dir string
	env      []string
	ports    []int

	mu      sync.Mutex
	current []*server // the latest incarnation per slot
	all     []*server
}

func newFleet(bin, dir string, n int, env []string) (*fleet, error) {
	f := &fleet{bin: bin, dir: dir, env: env, current: make([]*server, n)}
	for range n {
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		f.ports = append(f.ports, p)
	}
	return f, nil
}

// start runs a new incarnation on slot's port. It runs in the work directory, so a developer's .env
// cannot change what the suite tests.
func (f *fleet) start(slot int) (*server, error) {
	f.mu.Lock()
	gen := 1
	if prev := f.current[slot]; prev != nil {
		gen = prev.gen + 1
	}
	f.mu.Unlock()
	s := &server{slot: slot, gen: gen, port: f.ports[slot], done: make(chan struct{})}
	s.logPath = filepath.Join(f.dir, s.name()+".log")
	out, err := os.Create(s.logPath)
	if err != nil {
		return nil, err
	}
	s.cmd = exec.Command(f.bin, "serve")
	s.cmd.Dir = f.dir
	s.cmd.Env = append(append([]string{}, f.env...), "PORT="+strconv.Itoa(s.port))
	s.cmd.Stdout, s.cmd.Stderr = out, out
	s.cmd.SysProcAttr = childAttrs()
	if err := s.cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("start %s: %w", s.name(), err)
	}
	s.started = time.Now()
	go func() {
		err := s.cmd.Wait()
		out.Close()
		s.mu.Lock()
		s.exitedAt, s.exitErr = time.Now(), err
		s.mu.Unlock()
		close(s.done)
	}()
	f.mu.Lock()
	f.current[slot] = s
	f.all = append(f.all, s)
	f.mu.Unlock()
	return s, nil
}

// startReady starts a new incarnation on slot and waits for its ready probe.
func (f *fleet) startReady(ctx context.Context, slot int, client *http.Client, limit time.Duration) (*server, error) {
	s, err := f.start(slot)
	if err != nil {
		return nil, err
	}
	if _, err := waitReady(ctx, client, s.port, limit); err != nil {
		return s, fmt.Errorf("%s (log %s): %w", s.name(), s.logPath, err)
	}
	s.readyAt = time.Now()
	return s, nil
}

// at is slot's latest incarnation.
func (f *fleet) at(slot int) *server {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.current[slot]
}

func (f *fleet) size() int { return len(f.ports) }

// incarnations lists every process started so far, in start order.
func (f *fleet) incarnations() []*server {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*server(nil), f.all...)
}

// stopAll drains every live process with SIGTERM (bounded by SHUTDOWN_TIMEOUT plus slack), then kills what
// is left. It is the end of a run and the cleanup of an interrupted one.
func (f *fleet) stopAll(limit time.Duration) {
	var wg sync.WaitGroup
	for _, s := range f.incarnations() {
		select {
		case <-s.done:
			continue
		default:
		}
		wg.Go(func() {
			_ = s.terminate()
			if s.wait(context.Background(), limit) != nil {
				_ = s.kill()
				<-s.done
			}
		})
	}
	wg.Wait()
}

// waitReady polls GET /health/ready until it answers 200 and returns how long that took.
func waitReady(ctx context.Context, client *http.Client, port int, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		last := probeReady(ctx, client, port)
		if last == "" {
			return time.Since(start), nil
		}
		if !sleep(ctx, 100*time.Millisecond) {
			return time.Since(start), fmt.Errorf("port %d not ready after %s: %s", port, limit, last)
		}
	}
}

// probeReady asks GET /health/ready once: "" for a 200, else what came back.
func probeReady(ctx context.Context, client *http.Client, port int) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(port)+"/health/ready", nil)
	if err != nil {
		return err.Error()
	}
	resp, err := client.Do(req)
	if err != nil {
		return err.Error()
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.Status
	}
	return ""
}
