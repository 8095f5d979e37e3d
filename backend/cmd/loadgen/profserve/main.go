// TEMPORARY (investigation only, to be deleted): fabrica serve with net/http/pprof on 127.0.0.1:6060.
package main

import (
	"context"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/fabrica-saas/fabrica/backend/internal/app"
)

func main() {
	go func() { _ = http.ListenAndServe("127.0.0.1:6060", nil) }()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	cfg, err := app.LoadConfig(os.Getenv)
	if err != nil {
		panic(err)
	}
	a, err := app.New(ctx, cfg, app.NewLogger(cfg, os.Stdout), app.Options{})
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(cfg.Port))
	if err != nil {
		panic(err)
	}
	if err := a.Serve(ctx, ln); err != nil {
		panic(err)
	}
}
