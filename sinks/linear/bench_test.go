package linear_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
)

// BenchmarkUpsert measures deliveries against the local fake, in requests
// per delivery and time, beside one bare HTTP round trip to the same
// server (the floor any delivery pays).
func BenchmarkUpsert(b *testing.B) {
	ctx := context.Background()

	b.Run("bare-roundtrip", func(b *testing.B) {
		srv := linearfake.New()
		defer srv.Close()
		const q = `{"query":"query Viewer { viewer { id } }"}`
		for b.Loop() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(q))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", linearfake.APIKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			// Read to the end so the connection is reused, as the sink's is.
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
		b.ReportMetric(1, "requests/op")
	})

	b.Run("steady-update", func(b *testing.B) {
		srv := linearfake.New()
		defer srv.Close()
		srv.AddIssue("CIA-9", "bench")
		s := newSink(srv)
		first, err := s.Upsert(ctx, delivery("CIA-9", "main", "start", sinks.Ref{}))
		if err != nil {
			b.Fatal(err)
		}
		requests, n := 0, 0
		for b.Loop() {
			res, err := s.Upsert(ctx, delivery("CIA-9", "main", fmt.Sprint("step ", n), first.Ref))
			if err != nil {
				b.Fatal(err)
			}
			requests += res.Requests
			n++
		}
		b.ReportMetric(float64(requests)/float64(n), "requests/op")
	})

	// The first delivery of an agent to an issue: one create, with the id
	// CommentID derives.
	b.Run("first-create", func(b *testing.B) {
		var srv *linearfake.Server
		var s *linear.Sink
		requests, n := 0, 0
		for b.Loop() {
			// A fresh fake now and then keeps its linear scans short.
			if n%200 == 0 {
				b.StopTimer()
				if srv != nil {
					srv.Close()
				}
				srv = linearfake.New()
				s = newSink(srv)
				b.StartTimer()
			}
			issue := fmt.Sprint("B-", n)
			srv.AddIssue(issue, "bench")
			res, err := s.Upsert(ctx, delivery(issue, "main", "start", sinks.Ref{}))
			if err != nil {
				b.Fatal(err)
			}
			requests += res.Requests
			n++
		}
		srv.Close()
		b.ReportMetric(float64(requests)/float64(n), "requests/op")
	})
}
