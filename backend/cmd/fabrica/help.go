package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"slices"
	"syscall"
)

// helpAsked reports whether args ask for a command's help: -h, -help or --help anywhere, or "help" first.
func helpAsked(args []string) bool {
	if len(args) > 0 && args[0] == "help" {
		return true
	}
	return slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "-help" || a == "--help" })
}

// commandHelp prints a command's usage line and, for a command whose flags are parsed before it does
// anything (flagged), its flags: the command runs with the help flag, its flag set prints its defaults and
// answers flag.ErrHelp, and nothing else happens. Help always exits 0.
func commandHelp(ctx context.Context, env *environment, c command, args []string) error {
	if _, err := fmt.Fprintf(env.stdout, "Usage: fabrica %s %s\n", c.name, c.summary); err != nil {
		return err
	}
	if !c.flagged {
		return nil
	}
	out := *env
	out.stderr = env.stdout // the flag set prints its defaults to its output, which is stderr otherwise
	if len(args) == 0 || args[len(args)-1] != "--help" {
		args = append(args, "--help")
	}
	if err := c.run(ctx, &out, args); err != nil && !errors.Is(err, flag.ErrHelp) {
		// A nested command named wrongly (dev tokn --help): the usage line above says what exists.
		_, _ = fmt.Fprintln(env.stdout, "\n"+err.Error())
	}
	return nil
}

// listenHint turns "address already in use" into what to do about it.
func listenHint(addr string, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("listen on %s: the port is taken (another `fabrica serve` or `make run`?): stop it, or set PORT=8081: %w", addr, err)
	}
	return fmt.Errorf("listen: %w", err)
}

// serverHint says what a refused connection to a development server most likely means.
func serverHint(url string, err error) error {
	if err == nil {
		return nil
	}
	var op *net.OpError
	if errors.Is(err, syscall.ECONNREFUSED) || (errors.As(err, &op) && op.Op == "dial") {
		return fmt.Errorf("no server answers at %s: is `make run` running? (or pass --url): %w", url, err)
	}
	return err
}
