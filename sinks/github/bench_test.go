package github_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/ccc-checkpoint/ccc/internal/fake/githubfake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/github"
)

// BenchmarkUpsert measures deliveries against the local fake, in requests
// per delivery and time, beside one bare HTTP round trip to the same
// server (the floor any delivery pays).
func BenchmarkUpsert(b *testing.B) {
	ctx := context.Background()

	b.Run("bare-roundtrip", func(b *testing.B) {
		srv := githubfake.New()
		defer srv.Close()
		for b.Loop() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/user", nil)
			req.Header.Set("Authorization", "Bearer "+githubfake.Token)
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
		srv := githubfake.New()
		defer srv.Close()
		srv.AddPullRequest(pull, "bench")
		s := newSink(srv)
		first, err := s.Upsert(ctx, delivery(pull, "main", "start", sinks.Ref{}))
		if err != nil {
			b.Fatal(err)
		}
		requests, n := 0, 0
		for b.Loop() {
			res, err := s.Upsert(ctx, delivery(pull, "main", fmt.Sprint("step ", n), first.Ref))
			if err != nil {
				b.Fatal(err)
			}
			requests += res.Requests
			n++
		}
		b.ReportMetric(float64(requests)/float64(n), "requests/op")
	})

	// The first delivery of an agent to an issue: the marker search (one
	// page), then the create.
	b.Run("first-create", func(b *testing.B) {
		var srv *githubfake.Server
		var s *github.Sink
		requests, n := 0, 0
		for b.Loop() {
			// A fresh fake now and then keeps its linear scans short.
			if n%200 == 0 {
				b.StopTimer()
				if srv != nil {
					srv.Close()
				}
				srv = githubfake.New()
				s = newSink(srv)
				b.StartTimer()
			}
			target := fmt.Sprintf("octo/app#%d", n+1)
			srv.AddIssue(target, "bench")
			res, err := s.Upsert(ctx, delivery(target, "main", "start", sinks.Ref{}))
			if err != nil {
				b.Fatal(err)
			}
			requests += res.Requests
			n++
		}
		srv.Close()
		b.ReportMetric(float64(requests)/float64(n), "requests/op")
	})

	// State lost on a busy pull request: three pages of comments to read,
	// who we are, then the update.
	b.Run("recover-by-marker", func(b *testing.B) {
		srv := githubfake.New()
		defer srv.Close()
		srv.AddPullRequest(pull, "bench")
		for i := range 250 {
			srv.AddComment(pull, githubfake.OtherLogin, fmt.Sprint("review comment ", i))
		}
		if _, err := newSink(srv).Upsert(ctx, delivery(pull, "main", "start", sinks.Ref{})); err != nil {
			b.Fatal(err)
		}
		requests, n := 0, 0
		for b.Loop() {
			res, err := newSink(srv).Upsert(ctx, delivery(pull, "main", fmt.Sprint("step ", n), sinks.Ref{}))
			if err != nil {
				b.Fatal(err)
			}
			requests += res.Requests
			n++
		}
		b.ReportMetric(float64(requests)/float64(n), "requests/op")
	})
}
