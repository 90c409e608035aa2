package linear_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/comment"
	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
	"github.com/ccc-checkpoint/ccc/sinks/sinktest"
)

var (
	delivery = sinktest.Delivery
	upsert   = sinktest.Upsert
	causeOf  = sinktest.ErrorOf
)

func ops(reqs []linearfake.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Operation)
	}
	return out
}

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{
		"LINEAR_API_KEY":     " lin_api_x\n",
		"LINEAR_OAUTH_TOKEN": "tok",
		"LINEAR_API_URL":     "http://localhost:1/graphql",
	}
	cfg := linear.ConfigFromEnv(config.EnvOf(env).Linear)
	assert.Equal(t, linear.Config{APIKey: "lin_api_x", OAuthToken: "tok", URL: "http://localhost:1/graphql"}, cfg)
	assert.Equal(t, linear.Config{}, linear.ConfigFromEnv(config.LinearEnv{}))
}

func TestNoCredentialsSkips(t *testing.T) {
	srv := newFake(t)
	s := newSink(srv, func(c *linear.Config) { c.APIKey = "" })
	res, err := sinks.Deliver(context.Background(), s, delivery("CIA-9", "main", "x", sinks.Ref{}))
	var skip *sinks.SkipError
	require.True(t, errors.As(err, &skip), "%v", err)
	assert.Equal(t, "LINEAR_API_KEY not set", skip.Reason)
	assert.Equal(t, sinks.Skipped, res.Action)
	_, err = s.Check(context.Background(), "CIA-9")
	assert.True(t, errors.As(err, &skip))
	assert.Zero(t, srv.RequestCount())
	assert.Equal(t, "linear", s.Name())
	assert.Equal(t, "Linear", s.Title())
}

// The fake accepts a personal key only bare and an OAuth token only as a
// Bearer token, as Linear does.
func TestAuthorizationHeader(t *testing.T) {
	tests := []struct {
		name      string
		cfg       func(*linear.Config)
		wantCause string
	}{
		{"api key", func(c *linear.Config) {}, ""},
		{"oauth token", func(c *linear.Config) { c.APIKey, c.OAuthToken = "", linearfake.OAuthToken }, ""},
		{"api key wins", func(c *linear.Config) { c.OAuthToken = "ignored" }, ""},
		{"bad key", func(c *linear.Config) { c.APIKey = "lin_api_wrong" }, "authentication failed: check LINEAR_API_KEY"},
		{"bad token", func(c *linear.Config) { c.APIKey, c.OAuthToken = "", "wrong" }, "authentication failed: check LINEAR_OAUTH_TOKEN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t)
			res, err := upsert(t, newSink(srv, tt.cfg), delivery("CIA-9", "main", "x", sinks.Ref{}))
			if tt.wantCause == "" {
				require.NoError(t, err)
				assert.Equal(t, linearfake.ViewerID, srv.Comments("CIA-9")[0].UserID)
				return
			}
			serr := causeOf(t, err)
			assert.Equal(t, tt.wantCause, serr.Cause)
			assert.True(t, serr.Permanent)
			assert.Equal(t, 1, res.Requests, "authentication failures are not retried")
		})
	}
}

// Scripted failures on the steady-state update: what is retried, how long
// it waits, and what the report will say.
func TestFailures(t *testing.T) {
	tests := []struct {
		name     string
		faults   []linearfake.Fault
		deadline time.Duration
		cfg      func(*linear.Config)
		want     sinktest.Want
	}{
		{
			name:   "503 three times then success",
			faults: linearfake.Repeat(3, linearfake.Unavailable(503)),
			want:   sinktest.Want{OK: true, Requests: 4},
		},
		{
			name:   "503 until the attempts run out",
			faults: linearfake.Repeat(10, linearfake.Unavailable(503)),
			cfg:    func(c *linear.Config) { c.MaxAttempts = 3 },
			want:   sinktest.Want{Cause: "HTTP 503", Requests: 3},
		},
		{
			name:   "503 honours Retry-After",
			faults: []linearfake.Fault{linearfake.UnavailableRetryAfter(503, 2*time.Second)},
			want:   sinktest.Want{OK: true, Requests: 2, MinWaits: []time.Duration{2 * time.Second}},
		},
		{
			name:     "a 503 Retry-After past the deadline fails at once",
			faults:   []linearfake.Fault{linearfake.UnavailableRetryAfter(503, 20*time.Second)},
			deadline: 5 * time.Second,
			want:     sinktest.Want{Cause: "HTTP 503", Requests: 1, NoWait: true, RetryAfter: 20 * time.Second},
		},
		{
			name:   "dropped connection is retried",
			faults: []linearfake.Fault{linearfake.Dropped()},
			want:   sinktest.Want{OK: true, Requests: 2},
		},
		{
			name:   "rate limited honours Retry-After",
			faults: []linearfake.Fault{linearfake.RateLimited(time.Second, true)},
			want:   sinktest.Want{OK: true, Requests: 2, MinWaits: []time.Duration{time.Second}},
		},
		{
			name:   "rate limited honours the reset header",
			faults: []linearfake.Fault{linearfake.RateLimited(3*time.Second, false)},
			want:   sinktest.Want{OK: true, Requests: 2, MinWaits: []time.Duration{2 * time.Second}},
		},
		{
			name:   "HTTP 429 honours Retry-After",
			faults: []linearfake.Fault{linearfake.TooManyRequests(2 * time.Second)},
			want:   sinktest.Want{OK: true, Requests: 2, MinWaits: []time.Duration{2 * time.Second}},
		},
		{
			name:     "a wait past the deadline fails at once",
			faults:   []linearfake.Fault{linearfake.RateLimited(40*time.Second, true)},
			deadline: 5 * time.Second,
			want:     sinktest.Want{Cause: "rate limited, retry after 40s", Requests: 1, NoWait: true, RetryAfter: 40 * time.Second},
		},
		{
			name:   "without a deadline a long rate-limit wait is not started",
			faults: []linearfake.Fault{linearfake.RateLimited(2*time.Minute, true)},
			want:   sinktest.Want{Cause: "rate limited, retry after 2m", Requests: 1, NoWait: true, RetryAfter: 2 * time.Minute},
		},
		{
			name:     "a backoff past the deadline fails at once with the last cause",
			faults:   []linearfake.Fault{linearfake.Unavailable(503)},
			deadline: time.Second,
			cfg:      func(c *linear.Config) { c.InitialInterval, c.MaxInterval = 10*time.Second, 10*time.Second },
			want:     sinktest.Want{Cause: "HTTP 503", Requests: 1, NoWait: true},
		},
		{
			name:   "authentication error is permanent",
			faults: []linearfake.Fault{linearfake.AuthFailure()},
			want:   sinktest.Want{Cause: "authentication failed: check LINEAR_API_KEY", Permanent: true, Requests: 1},
		},
		{
			name:   "validation error is permanent and uses the user-presentable message",
			faults: []linearfake.Fault{linearfake.InvalidInput("commentUpdate", "Body is too long.")},
			want:   sinktest.Want{Cause: "rejected by Linear: Body is too long", Permanent: true, Requests: 1},
		},
		{
			name: "HTTP 500 is retried",
			faults: []linearfake.Fault{
				linearfake.Unavailable(500), linearfake.Unavailable(502), linearfake.Unavailable(504),
			},
			want: sinktest.Want{OK: true, Requests: 4},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t)
			var w sinktest.Waits
			s := newSink(srv, func(c *linear.Config) {
				c.Sleep = w.Sleep
				if tt.cfg != nil {
					tt.cfg(c)
				}
			})
			first, err := upsert(t, s, delivery("CIA-9", "main", "first", sinks.Ref{}))
			require.NoError(t, err)
			srv.Inject(tt.faults...)

			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.deadline)
				defer cancel()
			}
			res, err := s.Upsert(ctx, delivery("CIA-9", "main", "second", first.Ref))
			tt.want.Check(t, first.Ref, res, err, w.All())
		})
	}
}

func TestTimeoutCause(t *testing.T) {
	srv := newFake(t)
	s := newSink(srv)
	first, err := upsert(t, s, delivery("CIA-9", "main", "first", sinks.Ref{}))
	require.NoError(t, err)
	srv.Inject(linearfake.Slow(10 * time.Second))
	// The budget is measured from the sink's clock when the delivery starts;
	// freeze it at the context's start so a slow machine reads the same.
	start := time.Now()
	ctx, cancel := context.WithDeadline(context.Background(), start.Add(300*time.Millisecond))
	defer cancel()
	s = newSink(srv, func(c *linear.Config) { c.Now = func() time.Time { return start } })
	res, err := s.Upsert(ctx, delivery("CIA-9", "main", "second", first.Ref))
	serr := causeOf(t, err)
	assert.Equal(t, "timeout after 300ms", serr.Cause)
	assert.True(t, errors.Is(err, context.DeadlineExceeded))
	assert.Equal(t, 1, res.Requests)
}

func TestCanceled(t *testing.T) {
	srv := newFake(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newSink(srv).Upsert(ctx, delivery("CIA-9", "main", "x", sinks.Ref{}))
	assert.Equal(t, "canceled", causeOf(t, err).Cause)
	assert.Empty(t, srv.Comments("CIA-9"))
}

// Linear answers "Entity not found" with HTTP 200 or 400; either way a gone
// comment sends the sink looking for its marker.
func TestCommentNotFoundEitherStatus(t *testing.T) {
	for _, status := range []int{http.StatusOK, http.StatusBadRequest} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			srv := newFake(t)
			s := newSink(srv)
			first, err := upsert(t, s, delivery("CIA-9", "main", "first", sinks.Ref{}))
			require.NoError(t, err)
			srv.Inject(linearfake.NotFound("commentUpdate", "Comment", status))
			before := srv.RequestCount()
			res, err := upsert(t, s, delivery("CIA-9", "main", "second", first.Ref))
			require.NoError(t, err)
			assert.Equal(t, sinks.Updated, res.Action)
			assert.Equal(t, first.Ref.ID, res.Ref.ID)
			assert.Equal(t, []string{"CommentUpdate", "IssueComments", "CommentUpdate"}, ops(srv.Requests()[before:]))
		})
	}
}

func TestIssueNotFound(t *testing.T) {
	srv := newFake(t)
	s := newSink(srv)
	res, err := upsert(t, s, delivery("CIA-404", "main", "x", sinks.Ref{}))
	serr := causeOf(t, err)
	assert.Equal(t, "issue CIA-404 not found", serr.Cause)
	assert.True(t, serr.Permanent)
	assert.Equal(t, 1, res.Requests)

	// The same when the search is skipped and the create finds no issue.
	res, err = upsert(t, s, delivery("CIA-404", "main", "x", sinks.Ref{PendingID: "7d3c5a8e-1f2b-4c6d-8e9f-0a1b2c3d4e5f"}))
	assert.Equal(t, "issue CIA-404 not found", causeOf(t, err).Cause)
	assert.Equal(t, []string{"CommentUpdate", "CommentCreate"}, ops(srv.Requests()[1:]))
	assert.Equal(t, sinks.Ref{PendingID: "7d3c5a8e-1f2b-4c6d-8e9f-0a1b2c3d4e5f"}, res.Ref)
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// The first delivery is one commentCreate. It sends the client-chosen
// UUID v4 that CommentID gives the issue and agent, persisted before the
// request left, does not subscribe the user, and names the issue by its
// identifier.
func TestCreatePersistsIDFirst(t *testing.T) {
	srv := newFake(t)
	s := newSink(srv)
	var persisted []sinks.Ref
	var createsWhenPersisted int
	d := delivery("CIA-9", "main", "x", sinks.Ref{})
	d.Persist = func(r sinks.Ref) error {
		persisted = append(persisted, r)
		for _, req := range srv.Requests() {
			if req.Operation == "CommentCreate" {
				createsWhenPersisted++
			}
		}
		return nil
	}
	res, err := upsert(t, s, d)
	require.NoError(t, err)
	require.Len(t, persisted, 1)
	assert.Zero(t, createsWhenPersisted, "the id is stored before the create is sent")
	id := persisted[0].PendingID
	assert.Equal(t, linear.CommentID("CIA-9", "main"), id)
	assert.Equal(t, sinks.Ref{PendingID: id}, persisted[0])
	assert.Equal(t, id, res.Ref.ID)
	assert.Empty(t, res.Ref.PendingID)
	assert.Equal(t, sinks.Created, res.Action)
	assert.Equal(t, 1, res.Requests, "one create, no search")
	assert.Equal(t, []string{"CommentCreate"}, ops(srv.Requests()))

	reqs := srv.Requests()
	create := reqs[len(reqs)-1]
	require.Equal(t, "CommentCreate", create.Operation)
	input := create.Variables["input"].(map[string]any)
	assert.Equal(t, id, input["id"])
	assert.Equal(t, "CIA-9", input["issueId"])
	assert.Equal(t, true, input["doNotSubscribeToIssue"])
	c := srv.Comments("CIA-9")[0]
	assert.True(t, c.DoNotSubscribe)
	assert.True(t, strings.HasSuffix(c.Body, "\n\n"+linear.Marker("main")), c.Body)
	assert.Equal(t, c.URL, res.Ref.URL)
}

func TestPersistFailureSendsNoCreate(t *testing.T) {
	srv := newFake(t)
	d := delivery("CIA-9", "main", "x", sinks.Ref{})
	d.Persist = func(sinks.Ref) error { return errors.New("disk full") }
	_, err := upsert(t, newSink(srv), d)
	serr := causeOf(t, err)
	assert.True(t, serr.Permanent)
	assert.ErrorContains(t, err, "disk full")
	assert.Empty(t, srv.Requests())
	assert.Empty(t, srv.Comments("CIA-9"))
}

// A run that finds a PendingID and no ID tries that id before anything
// else: the earlier create may have landed.
func TestPendingID(t *testing.T) {
	const pending = "2f1e0d9c-8b7a-4655-a443-322110ffeedd"
	t.Run("landed", func(t *testing.T) {
		srv := newFake(t)
		probeFails := linearfake.Unavailable(503)
		probeFails.Field = "commentUpdate"
		srv.Inject(linearfake.LostResponse("commentCreate"))
		srv.Inject(linearfake.Repeat(2, probeFails)...)
		s := newSink(srv, func(c *linear.Config) { c.MaxAttempts = 2 })
		res, err := upsert(t, s, delivery("CIA-9", "main", "first", sinks.Ref{}))
		require.Error(t, err)
		assert.Equal(t, sinks.Ref{PendingID: linear.CommentID("CIA-9", "main")}, res.Ref)
		require.Len(t, srv.Comments("CIA-9"), 1, "the lost create landed")

		srv = newFake(t)
		c := srv.AddComment("CIA-9", linearfake.ViewerID, "old body")
		s = newSink(srv, func(cfg *linear.Config) { cfg.NewID = func() string { panic("no fresh id") } })
		res, err = upsert(t, s, delivery("CIA-9", "main", "second", sinks.Ref{PendingID: c.ID}))
		require.NoError(t, err)
		assert.Equal(t, sinks.Created, res.Action)
		assert.Equal(t, c.ID, res.Ref.ID)
		assert.Equal(t, []string{"CommentUpdate"}, ops(srv.Requests()))
	})
	t.Run("never landed", func(t *testing.T) {
		srv := newFake(t)
		s := newSink(srv, func(cfg *linear.Config) { cfg.NewID = func() string { panic("no fresh id") } })
		res, err := upsert(t, s, delivery("CIA-9", "main", "x", sinks.Ref{PendingID: pending}))
		require.NoError(t, err)
		assert.Equal(t, pending, res.Ref.ID, "the same id, not a fresh one")
		assert.Equal(t, []string{"CommentUpdate", "CommentCreate"}, ops(srv.Requests()))
	})
	t.Run("landed then deleted", func(t *testing.T) {
		srv := newFake(t)
		c := srv.AddComment("CIA-9", linearfake.ViewerID, "old")
		srv.DeleteComment(c.ID)
		const fresh = "9a8b7c6d-5e4f-4a3b-9c1d-0e0f0a0b0c0d"
		s := newSink(srv, func(cfg *linear.Config) { cfg.NewID = func() string { return fresh } })
		var persisted []sinks.Ref
		d := delivery("CIA-9", "main", "x", sinks.Ref{PendingID: c.ID})
		d.Persist = func(r sinks.Ref) error { persisted = append(persisted, r); return nil }
		res, err := upsert(t, s, d)
		require.NoError(t, err)
		assert.Equal(t, fresh, res.Ref.ID)
		assert.Equal(t, []sinks.Ref{{PendingID: fresh}}, persisted)
		assert.Equal(t, []string{"CommentUpdate", "CommentCreate", "IssueComments", "CommentCreate"}, ops(srv.Requests()),
			"the id is burnt: no need to fetch it, but the agent's comment may exist under another id")
	})
	t.Run("held by another user", func(t *testing.T) {
		srv := newFake(t)
		foreign := srv.AddCommentWithID("CIA-9", linearfake.OtherUserID, pending, "theirs\n\n"+linear.Marker("main"))
		const fresh = "9a8b7c6d-5e4f-4a3b-9c1d-0e0f0a0b0c0d"
		s := newSink(srv, func(cfg *linear.Config) { cfg.NewID = func() string { return fresh } })
		res, err := upsert(t, s, delivery("CIA-9", "main", "x", sinks.Ref{PendingID: pending}))
		require.NoError(t, err, "a stored id another user holds does not fail every run")
		assert.Equal(t, fresh, res.Ref.ID)
		assert.Equal(t, []string{"CommentUpdate", "Comment", "IssueComments", "CommentCreate"}, ops(srv.Requests()),
			"the probe is refused, the comment is not ours: search, then a fresh id")
		got, _ := srv.Comment(foreign.ID)
		assert.Equal(t, foreign.Body, got.Body)
	})
}

// A lost create answer within one run: the retry looks the id up instead
// of creating again.
func TestLostCreateProbesByID(t *testing.T) {
	srv := newFake(t)
	srv.Inject(linearfake.LostResponse("commentCreate"))
	res, err := upsert(t, newSink(srv), delivery("CIA-9", "main", "x", sinks.Ref{}))
	require.NoError(t, err)
	assert.Equal(t, sinks.Created, res.Action)
	assert.Equal(t, []string{"CommentCreate", "CommentUpdate"}, ops(srv.Requests()))
	assert.Len(t, srv.Comments("CIA-9"), 1)
}

// The search reads newest first and stops at the first of the agent's own
// comments, skipping other agents and other users.
func TestSearchPaginates(t *testing.T) {
	srv := newFake(t)
	srv.PageSize = 2
	marker := "\n\n" + linear.Marker("main")
	gone := srv.AddComment("CIA-9", linearfake.ViewerID, "stored, then deleted"+marker)
	srv.DeleteComment(gone.ID)
	srv.AddComment("CIA-9", linearfake.ViewerID, "older own"+marker)
	srv.AddComment("CIA-9", linearfake.OtherUserID, "chatter")
	want := srv.AddComment("CIA-9", linearfake.ViewerID, "newer own"+marker)
	srv.AddComment("CIA-9", linearfake.ViewerID, "other agent\n\n"+linear.Marker("main-2"))
	srv.AddComment("CIA-9", linearfake.OtherUserID, "copied"+marker)
	srv.AddComment("CIA-9", linearfake.ViewerID, linear.Marker("main")+"\n\nmarker not last")
	srv.AddComment("CIA-9", linearfake.OtherUserID, "last")

	res, err := upsert(t, newSink(srv), delivery("CIA-9", "main", "x", sinks.Ref{ID: gone.ID}))
	require.NoError(t, err)
	assert.Equal(t, sinks.Updated, res.Action)
	assert.Equal(t, want.ID, res.Ref.ID)
	assert.Equal(t, []string{"CommentUpdate", "IssueComments", "IssueComments", "IssueComments", "CommentUpdate"}, ops(srv.Requests()),
		"three pages of two, newest first; the oldest page is not read")
	assert.Len(t, srv.Comments("CIA-9"), 7)
}

// On an issue with thousands of comments the search finds the agent's
// comment whether it is the newest or the oldest, whichever way Linear
// orders the connection, and reads no further than it must.
func TestSearchManyComments(t *testing.T) {
	const others = 2100
	pages := (others + 1 + 49) / 50
	tests := []struct {
		name        string
		oursOldest  bool
		newestFirst bool
		searches    int
	}{
		{"ours newest", false, false, 1},
		{"ours oldest", true, false, pages},
		// The first (backward) page shows the order: one wasted page.
		{"ours newest, Linear lists newest first", false, true, 2},
		{"ours oldest, Linear lists newest first", true, true, 1 + pages},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t)
			srv.NewestFirst = tt.newestFirst
			marker := "\n\n" + linear.Marker("main")
			var want linearfake.Comment
			if tt.oursOldest {
				want = srv.AddComment("CIA-9", linearfake.ViewerID, "ours"+marker)
			}
			for i := range others {
				switch i % 3 {
				case 0:
					srv.AddComment("CIA-9", linearfake.OtherUserID, fmt.Sprint("copied ", i, marker))
				case 1:
					srv.AddComment("CIA-9", linearfake.ViewerID, fmt.Sprint("other agent ", i, "\n\n", linear.Marker("main 2")))
				default:
					srv.AddComment("CIA-9", linearfake.OtherUserID, fmt.Sprint("chatter ", i))
				}
			}
			if !tt.oursOldest {
				want = srv.AddComment("CIA-9", linearfake.ViewerID, "ours"+marker)
			}
			gone := srv.AddComment("CIA-9", linearfake.ViewerID, "stored, then deleted"+marker)
			srv.DeleteComment(gone.ID)

			res, err := upsert(t, newSink(srv), delivery("CIA-9", "main", "x", sinks.Ref{ID: gone.ID}))
			require.NoError(t, err)
			assert.Equal(t, sinks.Updated, res.Action)
			assert.Equal(t, want.ID, res.Ref.ID)
			assert.Equal(t, 2+tt.searches, res.Requests, "update, %d searches, update", tt.searches)
			assert.Len(t, srv.Comments("CIA-9"), others+1)
		})
	}
}

// Past its page bound the search fails, naming the cause, rather than
// create a comment that one of ours further back would duplicate.
func TestSearchGivesUp(t *testing.T) {
	srv := newFake(t)
	srv.PageSize = 1
	own := srv.AddComment("CIA-9", linearfake.ViewerID, "ours\n\n"+linear.Marker("main"))
	for range 200 {
		srv.AddComment("CIA-9", linearfake.OtherUserID, "chatter")
	}
	gone := srv.AddComment("CIA-9", linearfake.ViewerID, "stored, then deleted")
	srv.DeleteComment(gone.ID)
	res, err := upsert(t, newSink(srv), delivery("CIA-9", "main", "x", sinks.Ref{ID: gone.ID}))
	serr := causeOf(t, err)
	assert.Equal(t, "too many comments on CIA-9: this agent's comment is not among the newest 200", serr.Cause)
	assert.True(t, serr.Permanent)
	assert.Equal(t, 201, res.Requests)
	assert.NotContains(t, ops(srv.Requests()), "CommentCreate")
	assert.Len(t, srv.Comments("CIA-9"), 201)
	got, _ := srv.Comment(own.ID)
	assert.Equal(t, own.Body, got.Body)
}

// CommentID is a UUID v4 in shape, the same for the same issue and agent
// on every machine, and different for any other.
func TestCommentID(t *testing.T) {
	id := linear.CommentID("CIA-9", "main")
	assert.Regexp(t, uuidV4, id)
	assert.Equal(t, id, linear.CommentID("CIA-9", "main"))
	assert.Equal(t, id, linear.CommentID("cia-9", "main"), "Linear reads identifiers in any case")
	seen := map[string]string{id: "CIA-9/main"}
	for _, k := range [][2]string{{"CIA-9", "main-2"}, {"CIA-9", "main 2"}, {"CIA-90", "main"}, {"CIA-9m", "ain"}, {"CIA-1", "main"}} {
		other := linear.CommentID(k[0], k[1])
		assert.Regexp(t, uuidV4, other)
		assert.NotContains(t, seen, other, "%v", k)
		seen[other] = k[0] + "/" + k[1]
	}
}

// With no stored id, the create's id may already be taken: by our own
// comment (the state was lost), which is fetched and updated; or by a
// comment that is not ours to take, and then the search and a fresh id
// take over.
func TestTakenCommentID(t *testing.T) {
	id := linear.CommentID("CIA-9", "main")
	const fresh = "9a8b7c6d-5e4f-4a3b-9c1d-0e0f0a0b0c0d"
	marker := "\n\n" + linear.Marker("main")
	tests := []struct {
		name string
		// setup prepares the fake; it returns the id that should be
		// updated, "" for a create with a fresh id.
		setup  func(srv *linearfake.Server) string
		action sinks.Action
		ops    []string
	}{
		{
			name: "ours, state lost",
			setup: func(srv *linearfake.Server) string {
				return srv.AddCommentWithID("CIA-9", linearfake.ViewerID, id, "old"+marker).ID
			},
			action: sinks.Updated,
			ops:    []string{"CommentCreate", "Comment", "CommentUpdate"},
		},
		{
			name: "another user's",
			setup: func(srv *linearfake.Server) string {
				srv.AddCommentWithID("CIA-9", linearfake.OtherUserID, id, "theirs"+marker)
				return ""
			},
			action: sinks.Created,
			ops:    []string{"CommentCreate", "Comment", "IssueComments", "CommentCreate"},
		},
		{
			name: "ours without the agent's marker",
			setup: func(srv *linearfake.Server) string {
				srv.AddCommentWithID("CIA-9", linearfake.ViewerID, id, "someone edited the marker away")
				return ""
			},
			action: sinks.Created,
			ops:    []string{"CommentCreate", "Comment", "IssueComments", "CommentCreate"},
		},
		{
			name: "ours, deleted",
			setup: func(srv *linearfake.Server) string {
				srv.DeleteComment(srv.AddCommentWithID("CIA-9", linearfake.ViewerID, id, "old"+marker).ID)
				return ""
			},
			action: sinks.Created,
			ops:    []string{"CommentCreate", "Comment", "IssueComments", "CommentCreate"},
		},
		{
			name: "ours, archived",
			setup: func(srv *linearfake.Server) string {
				srv.ArchiveComment(srv.AddCommentWithID("CIA-9", linearfake.ViewerID, id, "old"+marker).ID)
				return ""
			},
			action: sinks.Created,
			ops:    []string{"CommentCreate", "Comment", "IssueComments", "CommentCreate"},
		},
		{
			name: "deleted, and ours lives under another id",
			setup: func(srv *linearfake.Server) string {
				srv.DeleteComment(srv.AddCommentWithID("CIA-9", linearfake.ViewerID, id, "old"+marker).ID)
				return srv.AddComment("CIA-9", linearfake.ViewerID, "recreated"+marker).ID
			},
			action: sinks.Updated,
			ops:    []string{"CommentCreate", "Comment", "IssueComments", "CommentUpdate"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t)
			want := tt.setup(srv)
			before := srv.Comments("CIA-9")
			s := newSink(srv, func(c *linear.Config) { c.NewID = func() string { return fresh } })
			var persisted []sinks.Ref
			d := delivery("CIA-9", "main", "x", sinks.Ref{})
			d.Persist = func(r sinks.Ref) error { persisted = append(persisted, r); return nil }
			res, err := upsert(t, s, d)
			require.NoError(t, err)
			assert.Equal(t, tt.action, res.Action)
			assert.Equal(t, tt.ops, ops(srv.Requests()))
			if want == "" {
				want = fresh
				assert.Equal(t, []sinks.Ref{{PendingID: id}, {PendingID: fresh}}, persisted, "every id is persisted before its create")
				assert.Len(t, srv.Comments("CIA-9"), len(before)+1)
			} else {
				assert.Len(t, srv.Comments("CIA-9"), len(before))
			}
			assert.Equal(t, want, res.Ref.ID)
			got, ok := srv.Comment(want)
			require.True(t, ok)
			assert.True(t, strings.HasSuffix(got.Body, "**Next:** x\n\n"+linear.Marker("main")), got.Body)
			for _, c := range before {
				if c.ID != want {
					now, _ := srv.Comment(c.ID)
					assert.Equal(t, c.Body, now.Body, "a comment not ours to take is left alone")
				}
			}
		})
	}
}

func TestLongBodyIsTruncated(t *testing.T) {
	srv := newFake(t)
	s := newSink(srv, func(c *linear.Config) { c.MaxBody = 600; c.ProgressPath = "notes/progress.md" })
	body := comment.Render(comment.Status{
		TaskN: 1, TaskM: 2, Task: "long", Next: "ship it",
		Decisions: []string{strings.Repeat("because ", 200)},
	})
	_, err := upsert(t, s, sinks.Delivery{Target: sinks.Target{Issue: "CIA-9", Agent: "main"}, Body: body})
	require.NoError(t, err)
	got := srv.Comments("CIA-9")[0].Body
	assert.LessOrEqual(t, utf8.RuneCountInString(got), 600)
	assert.Contains(t, got, "\n**Next:** ship it\n")
	assert.Contains(t, got, "\n"+comment.TruncateNote("notes/progress.md")+"\n")
	assert.True(t, strings.HasSuffix(got, "\n"+linear.Marker("main")), "the marker survives truncation")
	assert.Equal(t, got, s.Body(body, "main"))
}

// No credential appears in any error, result, or anything the fake
// recorded (the Authorization header itself is the one place it goes).
func TestSecretsNeverLeak(t *testing.T) {
	scenarios := [][]linearfake.Fault{
		{linearfake.AuthFailure()},
		linearfake.Repeat(5, linearfake.Unavailable(503)),
		{linearfake.RateLimited(time.Minute, true)},
		{linearfake.InvalidInput("commentUpdate", "Nope.")},
		{linearfake.NotFound("commentUpdate", "Comment", 400), linearfake.NotFound("issue", "Issue", 400)},
		{linearfake.Dropped(), linearfake.Dropped(), linearfake.Dropped()},
		{linearfake.Slow(5 * time.Second)},
	}
	for _, key := range []string{linearfake.APIKey, linearfake.OAuthToken} {
		for i, faults := range scenarios {
			t.Run(fmt.Sprintf("%s/%d", key[:8], i), func(t *testing.T) {
				srv := newFake(t)
				s := newSink(srv, func(c *linear.Config) {
					c.MaxAttempts = 3
					if key == linearfake.OAuthToken {
						c.APIKey, c.OAuthToken = "", key
					}
				})
				first, err := upsert(t, s, delivery("CIA-9", "main", "first", sinks.Ref{}))
				require.NoError(t, err)
				srv.Inject(faults...)
				ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
				defer cancel()
				res, err := s.Upsert(ctx, delivery("CIA-9", "main", "second", first.Ref))
				ctx, cancel = context.WithTimeout(context.Background(), 2*time.Second)
				defer cancel()
				_, cerr := s.Check(ctx, "CIA-404")
				require.Error(t, cerr)

				var seen strings.Builder
				for _, e := range []error{err, cerr} {
					if e != nil {
						fmt.Fprintf(&seen, "%v\n%+v\n%#v\n", e, e, e)
						if serr := (*sinks.Error)(nil); errors.As(e, &serr) {
							seen.WriteString(serr.Cause + "\n")
						}
					}
				}
				fmt.Fprintf(&seen, "%+v\n", res)
				reqs := srv.Requests()
				for _, r := range reqs {
					assert.Equal(t, linearfake.ViewerID, r.User, "the key did reach the server")
					assert.Empty(t, r.Header.Get("Authorization"))
				}
				recorded, jerr := json.Marshal(reqs)
				require.NoError(t, jerr)
				seen.Write(recorded)
				assert.NotContains(t, seen.String(), key)
				assert.NotContains(t, seen.String(), key[len(key)-12:], "not even part of it")
			})
		}
	}
}

func TestCheck(t *testing.T) {
	t.Run("healthy", func(t *testing.T) {
		srv := newFake(t)
		h, err := newSink(srv).Check(context.Background(), "CIA-9")
		require.NoError(t, err)
		assert.Equal(t, "LINEAR_API_KEY", h.Credential)
		assert.Equal(t, linearfake.ViewerID, h.UserID)
		assert.Equal(t, "Fake Viewer", h.UserName)
		assert.Equal(t, "viewer@example.com", h.UserEmail)
		assert.Equal(t, "Fake Org", h.Organization)
		assert.Equal(t, "CIA-9", h.IssueIdentifier)
		assert.Equal(t, "Write the Linear sink", h.IssueTitle)
		assert.NotEmpty(t, h.IssueURL)
		assert.True(t, h.RateLimit.Known)
		assert.Equal(t, linearfake.DefaultRateLimit, h.RateLimit.Limit)
		assert.Equal(t, linearfake.DefaultRateLimit-2, h.RateLimit.Remaining)
		assert.True(t, h.RateLimit.Reset.After(time.Now()))
		assert.Equal(t, 2, h.Requests)
		assert.Empty(t, srv.Comments("CIA-9"), "a check writes nothing")
	})
	t.Run("no issue asked", func(t *testing.T) {
		srv := newFake(t)
		h, err := newSink(srv).Check(context.Background(), "")
		require.NoError(t, err)
		assert.Equal(t, 1, h.Requests)
		assert.Empty(t, h.IssueID)
	})
	t.Run("missing issue", func(t *testing.T) {
		srv := newFake(t)
		h, err := newSink(srv).Check(context.Background(), "CIA-404")
		assert.Equal(t, "issue CIA-404 not found", causeOf(t, err).Cause)
		assert.Equal(t, linearfake.ViewerID, h.UserID, "what was learnt before the failure is kept")
	})
	t.Run("bad key", func(t *testing.T) {
		srv := newFake(t)
		h, err := newSink(srv, func(c *linear.Config) { c.APIKey = "lin_api_wrong" }).Check(context.Background(), "CIA-9")
		assert.Equal(t, "authentication failed: check LINEAR_API_KEY", causeOf(t, err).Cause)
		assert.Equal(t, 1, h.Requests)
	})
}

func TestUnreachable(t *testing.T) {
	srv := linearfake.New()
	url := srv.URL
	srv.Close()
	s := linear.New(linear.Config{APIKey: linearfake.APIKey, URL: url, Tuning: sinks.Tuning{InitialInterval: time.Millisecond, MaxAttempts: 3}})
	res, err := upsert(t, s, delivery("CIA-9", "main", "x", sinks.Ref{}))
	serr := causeOf(t, err)
	assert.True(t, strings.HasPrefix(serr.Cause, "network error: "), serr.Cause)
	assert.NotContains(t, serr.Cause, "/graphql", "the URL stays out of the report")
	assert.False(t, serr.Permanent)
	assert.Equal(t, 3, res.Requests)
}
