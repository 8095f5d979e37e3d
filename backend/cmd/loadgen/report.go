package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"time"
)

// report is the result of one run, printed as one JSON line for scripts.
type report struct {
	Mode    string `json:"mode"`
	Senders int    `json:"senders"`
	// Deliveries counts the successful deliveries started within the measured window.
	Deliveries int64 `json:"deliveries"`
	// Sent counts every delivery sent, warmup (and in dup mode the first delivery) included.
	Sent       int64   `json:"sent"`
	Errors     int64   `json:"errors"`
	Seconds    float64 `json:"seconds"`
	PerSec     float64 `json:"per_sec"`
	P50MS      float64 `json:"p50_ms"`
	P99MS      float64 `json:"p99_ms"`
	FirstError string  `json:"first_error,omitempty"`
	// Recorded and Refused count the events of the usage modes (refused: at a block limit).
	Recorded int64 `json:"recorded,omitempty"`
	Refused  int64 `json:"refused,omitempty"`
	// The pair's requests of a paired run (-pair-user, -pair-token); the fields above cover the others.
	PairDeliveries int64   `json:"pair_deliveries,omitempty"`
	PairP50MS      float64 `json:"pair_p50_ms,omitempty"`
	PairP99MS      float64 `json:"pair_p99_ms,omitempty"`
}

func newReport(opts options, perSender [][]time.Duration, elapsed time.Duration, errors int64, firstErr string) report {
	all := slices.Concat(perSender...)
	slices.Sort(all)
	r := report{
		Mode: opts.mode, Senders: opts.senders, Deliveries: int64(len(all)), Errors: errors,
		Seconds: round(elapsed.Seconds(), 3), FirstError: firstErr,
		P50MS: round(ms(percentile(all, 0.50)), 2), P99MS: round(ms(percentile(all, 0.99)), 2),
	}
	if elapsed > 0 {
		r.PerSec = round(float64(len(all))/elapsed.Seconds(), 1)
	}
	return r
}

// write prints the JSON line on stdout and the human line on stderr.
func (r report) write(stdout, stderr io.Writer) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stderr, "loadgen: %-3s senders=%-3d deliveries=%-6d errors=%d  %8.1f/s  p50 %6.2f ms  p99 %6.2f ms\n",
		r.Mode, r.Senders, r.Deliveries, r.Errors, r.PerSec, r.P50MS, r.P99MS)
	return err
}

// percentile is the nearest-rank percentile of sorted latencies (0 for none).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func round(x float64, places int) float64 {
	f := math.Pow10(places)
	return math.Round(x*f) / f
}
