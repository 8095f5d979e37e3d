package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// newClient returns one client for every sender. The transport keeps an idle connection per sender, so
// after the first request each sender reuses its keep-alive connection instead of paying a TCP handshake
// (and leaving a TIME_WAIT socket) per delivery.
func newClient(senders int, timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			// Never through HTTP_PROXY: the target is this machine.
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        senders + 4,
			MaxIdleConnsPerHost: senders + 4,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
		},
	}
}

// waitReady polls GET /health/ready until it answers 200, for at most limit.
func waitReady(ctx context.Context, client *http.Client, base string, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	endpoint := strings.TrimRight(base, "/") + "/health/ready"
	last := "no answer"
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
		if err != nil {
			return fmt.Errorf("wait ready: %w", err)
		}
		if resp, err := client.Do(req); err != nil {
			last = err.Error()
		} else {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready after %s: %s", endpoint, limit, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
