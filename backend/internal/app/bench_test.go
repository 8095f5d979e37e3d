package app

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/config"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// The in-process delivery benchmarks drive the real router and pipeline against a throwaway Postgres,
// without the network, for profiling (-cpuprofile): what the server itself costs per delivery. The load
// benchmark next to pgbench (make bench, docs/benchmarks.md) is the measure of record.

func benchDeliver(b *testing.B, typ string, fresh bool) {
	d, err := newBenchEnv(b)
	if err != nil {
		b.Fatal(err)
	}
	var seq atomic.Int64
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	h := d.Echo()
	once := func(id string) int {
		u := run + "_" + id
		ms := strconv.FormatInt(time.Now().UnixMilli(), 10)
		body := []byte(`{"type":"` + typ + `","object":"event","timestamp":` + ms + `,"data":{"id":"user_` + u +
			`","object":"user","primary_email_address_id":"idn_1","email_addresses":[{"id":"idn_1","email_address":"` + u +
			`@bench.test","verification":{"status":"verified"}}],"updated_at":` + ms + `}}`)
		hdr, err := webhook.SignSvix(config.DevClerkWebhookSecret, "msg_"+u, time.Now(), body)
		if err != nil {
			b.Fatal(err)
		}
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/webhooks/clerk", bytesReader(body))
		req.Header = hdr
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	if !fresh {
		once("dup")
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := "dup"
			if fresh {
				id = strconv.FormatInt(seq.Add(1), 10)
			}
			if code := once(id); code != http.StatusOK {
				b.Errorf("status %d", code)
			}
		}
	})
}

func BenchmarkDeliveryNewUser(b *testing.B)   { benchDeliver(b, "user.created", true) }
func BenchmarkDeliveryDuplicate(b *testing.B) { benchDeliver(b, "user.created", false) }
func BenchmarkDeliveryBare(b *testing.B)      { benchDeliver(b, "session.created", true) }
