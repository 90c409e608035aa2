package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/fake/githubfake"
	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/github"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/outbox"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// Credentials the fakes do not know: a key or token that expired.
const (
	expiredLinearKey   = "lin_api_expiredExpiredExpired0123456789"
	expiredGitHubToken = "ghp_expiredExpiredExpired0123456789abcd"
)

// faultEnv is one fault case's tracker: a fake server and how to reach it.
type faultEnv struct {
	fake
	lin *linearfake.Server
	gh  *githubfake.Server
	// target is where the comments go; trackerTarget is Tracker.Target
	// ("" for Linear, which takes the project's issue).
	target, trackerTarget string
	good, expired         string
	newSink               func(cred string, clk *vclock) sinks.Sink
	// env reaches the fake from a ccc process.
	env []string
}

func newLinearEnv(t *testing.T) *faultEnv {
	srv := linearfake.New()
	t.Cleanup(srv.Close)
	srv.AddIssue("CIA-1", "Write the parser")
	return &faultEnv{
		fake: linearFake{srv}, lin: srv, target: "CIA-1",
		good: linearfake.APIKey, expired: expiredLinearKey,
		newSink: func(cred string, clk *vclock) sinks.Sink {
			return linear.New(linear.Config{APIKey: cred, URL: srv.URL, Tuning: sinks.Tuning{Sleep: clk.Sleep, Now: clk.Now}})
		},
		env: []string{"LINEAR_API_URL=" + srv.URL, "LINEAR_API_KEY=" + linearfake.APIKey},
	}
}

func newGitHubEnv(t *testing.T) *faultEnv {
	srv := githubfake.New()
	t.Cleanup(srv.Close)
	srv.AddIssue("acme/app#7", "Write the parser")
	return &faultEnv{
		fake: githubFake{srv}, gh: srv, target: "acme/app#7", trackerTarget: "acme/app#7",
		good: githubfake.Token, expired: expiredGitHubToken,
		newSink: func(cred string, clk *vclock) sinks.Sink {
			return github.New(github.Config{Token: cred, TokenEnv: "GITHUB_TOKEN", APIURL: srv.URL, Tuning: sinks.Tuning{Sleep: clk.Sleep, Now: clk.Now}})
		},
		env: []string{"GITHUB_API_URL=" + srv.URL, "GITHUB_TOKEN=" + githubfake.Token},
	}
}

// bodySink is what both sinks offer: the exact text they send for a status.
type bodySink interface {
	Body(status, agent string) string
}

// faultCase is one fault met by one automated checkpoint.
type faultCase struct {
	name string
	// prior delivers once while the tracker is healthy, so the faulted run
	// updates a comment instead of creating one.
	prior  bool
	inject func(e *faultEnv)
	// expired runs the faulted checkpoint with credentials the tracker
	// refuses.
	expired bool
	// timeout is the tracker step's deadline; 0 is one long enough for
	// every retry (waits are not slept, see vclock).
	timeout time.Duration
	// requests is what the faulted run sends, retries included.
	requests int
	// line matches the tracker step's report line.
	line string
	// queued: the run's status waits in the outbox afterwards.
	queued bool
	// comments is how many comments the target has right after the run.
	comments int
	// minWait: the longest wait between retries is at least this (the
	// server's Retry-After or reset time was honoured).
	minWait time.Duration
}

const (
	linearUpdated = `^Linear update: updated comment on CIA-1 https://linear\.app/\S+\.$`
	linearCreated = `^Linear update: created comment on CIA-1 https://linear\.app/\S+\.$`
	githubUpdated = `^GitHub update: updated comment on acme/app#7 https://github\.com/\S+\.$`
	githubCreated = `^GitHub update: created comment on acme/app#7 https://github\.com/\S+\.$`
	queuedLine    = ` — queued for retry \(ccc sync\)\.$`
)

func linearFaults() []faultCase {
	lin := func(faults ...linearfake.Fault) func(*faultEnv) {
		return func(e *faultEnv) { e.lin.Inject(faults...) }
	}
	on := func(field string, f linearfake.Fault) linearfake.Fault { f.Field = field; return f }
	return []faultCase{
		{name: "500 502 503 burst, then success", prior: true,
			inject:   lin(linearfake.Unavailable(500), linearfake.Unavailable(502), linearfake.Unavailable(503)),
			requests: 4, line: linearUpdated, comments: 1},
		{name: "503 burst on the first delivery", inject: lin(linearfake.Repeat(2, linearfake.Unavailable(503))...),
			// create (503), update of the chosen id (503), update (not found), create
			requests: 4, line: linearCreated, comments: 1},
		{name: "503 on a create that did not land", inject: lin(on("commentCreate", linearfake.Unavailable(503))),
			// create (503), update of the chosen id (not found), create
			requests: 3, line: linearCreated, comments: 1},
		{name: "503 until the attempts run out", prior: true, inject: lin(linearfake.Repeat(50, linearfake.Unavailable(503))...),
			requests: linear.DefaultMaxAttempts, line: `^Failed: Linear update \(HTTP 503\)` + queuedLine, queued: true, comments: 1},
		{name: "429 with Retry-After", prior: true, inject: lin(linearfake.TooManyRequests(3 * time.Second)),
			requests: 2, line: linearUpdated, comments: 1, minWait: 3 * time.Second},
		{name: "429 without Retry-After", prior: true,
			inject:   lin(linearfake.Fault{Name: "http-429", Status: http.StatusTooManyRequests, Body: "Too Many Requests\n"}),
			requests: 2, line: linearUpdated, comments: 1},
		{name: "RATELIMITED with Retry-After", prior: true, inject: lin(linearfake.RateLimited(3*time.Second, true)),
			requests: 2, line: linearUpdated, comments: 1, minWait: 3 * time.Second},
		{name: "RATELIMITED without Retry-After", prior: true,
			// The reset time is taken when the fault is injected.
			inject:   func(e *faultEnv) { e.lin.Inject(linearfake.RateLimited(5*time.Second, false)) },
			requests: 2, line: linearUpdated, comments: 1, minWait: 3 * time.Second},
		{name: "RATELIMITED past the deadline", prior: true, inject: lin(linearfake.RateLimited(time.Hour, true)),
			timeout: 30 * time.Second, requests: 1,
			line: `^Failed: Linear update \(rate limited, retry after 1h\)` + queuedLine, queued: true, comments: 1},
		{name: "slow answer past the deadline", prior: true, inject: lin(linearfake.Slow(10 * time.Second)),
			timeout: 300 * time.Millisecond, requests: 1,
			line: `^Failed: Linear update \(timeout after \d+ms\)` + queuedLine, queued: true, comments: 1},
		{name: "connection reset twice", prior: true, inject: lin(linearfake.Dropped(), linearfake.Dropped()),
			requests: 3, line: linearUpdated, comments: 1},
		{name: "lost response after a create", inject: lin(linearfake.LostResponse("commentCreate")),
			// create (landed, answer lost), update of the chosen id
			requests: 2, line: linearCreated, comments: 1},
		{name: "lost response after an update", prior: true, inject: lin(linearfake.LostResponse("commentUpdate")),
			requests: 2, line: linearUpdated, comments: 1},
		{name: "comment deleted", prior: true, inject: func(e *faultEnv) { e.deleteAll(e.target) },
			// update (not found), search, create
			requests: 3, line: linearCreated, comments: 1},
		{name: "comment deleted while Linear is down", prior: true,
			inject: func(e *faultEnv) {
				e.deleteAll(e.target)
				e.lin.Inject(linearfake.Repeat(50, linearfake.Unavailable(503))...)
			},
			requests: linear.DefaultMaxAttempts, line: `^Failed: Linear update \(HTTP 503\)` + queuedLine, queued: true},
		{name: "expired key", prior: true, expired: true, requests: 1,
			line: `^Failed: Linear update \(authentication failed: check LINEAR_API_KEY\)` + queuedLine, queued: true, comments: 1},
	}
}

func githubFaults() []faultCase {
	gh := func(faults ...githubfake.Fault) func(*faultEnv) {
		return func(e *faultEnv) { e.gh.Inject(faults...) }
	}
	return []faultCase{
		{name: "500 502 503 burst, then success", prior: true,
			inject:   gh(githubfake.Unavailable(500), githubfake.Unavailable(502), githubfake.Unavailable(503)),
			requests: 4, line: githubUpdated, comments: 1},
		{name: "503 burst on the first delivery's search", inject: gh(githubfake.Repeat(2, githubfake.Unavailable(503))...),
			requests: 4, line: githubCreated, comments: 1},
		{name: "503 until the attempts run out", prior: true, inject: gh(githubfake.Repeat(50, githubfake.Unavailable(503))...),
			requests: github.DefaultMaxAttempts, line: `^Failed: GitHub update \(HTTP 503\)` + queuedLine, queued: true, comments: 1},
		{name: "429 with Retry-After", prior: true, inject: gh(githubfake.SecondaryRateLimit(429, 3*time.Second)),
			requests: 2, line: githubUpdated, comments: 1, minWait: 3 * time.Second},
		{name: "429 without Retry-After", prior: true, inject: gh(githubfake.SecondaryRateLimit(429, 0)),
			requests: 2, line: githubUpdated, comments: 1, minWait: time.Minute},
		{name: "secondary rate limit without Retry-After", prior: true, inject: gh(githubfake.SecondaryRateLimit(403, 0)),
			requests: 2, line: githubUpdated, comments: 1, minWait: time.Minute},
		{name: "primary rate limit, reset soon", prior: true,
			inject:   func(e *faultEnv) { e.gh.Inject(githubfake.RateLimited(403, time.Now().Add(5*time.Second))) },
			requests: 2, line: githubUpdated, comments: 1, minWait: 3 * time.Second},
		{name: "primary rate limit past the deadline", prior: true,
			inject:  func(e *faultEnv) { e.gh.Inject(githubfake.RateLimited(429, time.Now().Add(time.Hour))) },
			timeout: 30 * time.Second, requests: 1,
			line: `^Failed: GitHub update \(rate limited, retry after (1h|59m\d+s)\)` + queuedLine, queued: true, comments: 1},
		{name: "slow answer past the deadline", prior: true, inject: gh(githubfake.Slow(10 * time.Second)),
			timeout: 300 * time.Millisecond, requests: 1,
			line: `^Failed: GitHub update \(timeout after \d+ms\)` + queuedLine, queued: true, comments: 1},
		{name: "connection reset twice", prior: true, inject: gh(githubfake.Dropped(), githubfake.Dropped()),
			requests: 3, line: githubUpdated, comments: 1},
		{name: "connection reset on a create", inject: gh(githubfake.Dropped().On(githubfake.OpCreateComment)),
			// search, create (dropped before it ran), search, create
			requests: 4, line: githubCreated, comments: 1},
		{name: "lost response after a create", inject: gh(githubfake.LostResponse(githubfake.OpCreateComment)),
			// search, create (landed, answer lost), search, who am I
			requests: 4, line: githubCreated, comments: 1},
		{name: "502 after a create landed", inject: gh(githubfake.Landed(githubfake.Unavailable(502)).On(githubfake.OpCreateComment)),
			requests: 4, line: githubCreated, comments: 1},
		{name: "lost response after an update", prior: true, inject: gh(githubfake.LostResponse(githubfake.OpUpdateComment)),
			requests: 2, line: githubUpdated, comments: 1},
		{name: "comment deleted", prior: true, inject: func(e *faultEnv) { e.deleteAll(e.target) },
			// update (404), search, create
			requests: 3, line: githubCreated, comments: 1},
		{name: "comment deleted while GitHub is down", prior: true,
			inject: func(e *faultEnv) {
				e.deleteAll(e.target)
				e.gh.Inject(githubfake.Repeat(50, githubfake.Unavailable(503))...)
			},
			requests: github.DefaultMaxAttempts, line: `^Failed: GitHub update \(HTTP 503\)` + queuedLine, queued: true},
		{name: "expired token", prior: true, expired: true, requests: 1,
			line: `^Failed: GitHub update \(authentication failed: check GITHUB_TOKEN\)` + queuedLine, queued: true, comments: 1},
	}
}

// TestTrackerFaults meets every fault of the fake trackers with one
// automated checkpoint, run in-process so that retry waits cost nothing
// (checkpoint.Run with the sinks on a virtual clock), then heals the tracker
// and runs a real `ccc sync`. Each case checks the requests sent, the report
// line, that the outbox holds exactly the undelivered status, and that the
// sync leaves exactly one comment, holding the latest status.
func TestTrackerFaults(t *testing.T) {
	t.Parallel()
	trackers := []struct {
		name  string
		env   func(*testing.T) *faultEnv
		cases []faultCase
	}{
		{"linear", newLinearEnv, linearFaults()},
		{"github", newGitHubEnv, githubFaults()},
	}
	for _, tr := range trackers {
		t.Run(tr.name, func(t *testing.T) {
			for _, tc := range tr.cases {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					runFaultCase(t, tr.env(t), tc)
				})
			}
		})
	}
}

func runFaultCase(t *testing.T, e *faultEnv, tc faultCase) {
	root := t.TempDir()
	// The in-process runs and the real `ccc sync` are the same user: one
	// signing key.
	conf := t.TempDir()
	key, err := config.UserKey(config.Env{ConfigDir: conf})
	require.NoError(t, err)
	e.env = append(slices.Clip(e.env), "CCC_CONFIG_DIR="+conf)
	now := time.Now().UTC().Truncate(time.Second)
	checkpointWith := func(cred string, timeout time.Duration, edits progress.Edits) (checkpoint.Report, *vclock, sinks.Sink) {
		clk := &vclock{}
		s := e.newSink(cred, clk)
		cp := &checkpoint.Context{
			Root: root, Now: now, Profile: checkpoint.Automated, Agent: "main", Edits: edits, Issue: "CIA-1",
			Timeout: timeout, Trackers: []checkpoint.Tracker{{Sink: s, Target: e.trackerTarget}}, Key: key,
		}
		return checkpoint.Run(context.Background(), cp, checkpoint.Automated.Steps(cp)), clk, s
	}

	if tc.prior {
		r, _, _ := checkpointWith(e.good, time.Minute, progress.Edits{Issue: "CIA-1", Current: "write the parser"})
		require.Equal(t, checkpoint.OutcomeOK, r.Outcome(), r.String())
		require.Len(t, e.bodies(e.target), 1)
	}
	if tc.inject != nil {
		tc.inject(e)
	}
	cred := e.good
	if tc.expired {
		cred = e.expired
	}
	timeout := tc.timeout
	if timeout == 0 {
		timeout = 10 * time.Minute
	}
	seen := e.requestCount()
	now = now.Add(time.Minute)
	edits := progress.Edits{Issue: "CIA-1", Current: "write the parser", AddTasks: []string{"write the tests"}}
	r, clk, s := checkpointWith(cred, timeout, edits)

	assert.Equal(t, tc.requests, e.requestCount()-seen, "requests of the faulted run")
	require.Len(t, r.Steps, 2)
	lines := r.Lines()
	trackerLine := ""
	step := s.Title() + " update"
	for _, l := range lines {
		if strings.HasPrefix(l, step) || strings.HasPrefix(l, "Failed: "+step) {
			trackerLine = l
		}
	}
	assert.Regexp(t, regexp.MustCompile(tc.line), trackerLine, "report:\n%s", r)
	wantExit := checkpoint.OutcomeOK
	if tc.queued {
		wantExit = checkpoint.OutcomePartial
	}
	assert.Equal(t, wantExit, r.Outcome())
	if tc.minWait > 0 {
		waits := clk.Waits()
		require.NotEmpty(t, waits)
		assert.GreaterOrEqual(t, slices.Max(waits), tc.minWait, "waits %v", waits)
	}

	entries, err := outbox.List(root, now)
	require.NoError(t, err)
	if tc.queued {
		require.Len(t, entries, 1, "the outbox holds the undelivered status")
		q := entries[0]
		assert.Equal(t, outbox.Entry{Sink: s.Name(), Target: e.target, Agent: "main", Body: r.StatusBody, Attempts: 1},
			outbox.Entry{Sink: q.Sink, Target: q.Target, Agent: q.Agent, Body: q.Body, Attempts: q.Attempts})
		assert.Equal(t, r.Steps[1].Message, q.LastError, "the entry keeps the failure's cause")
	} else {
		assert.Empty(t, entries, "nothing is queued once delivered")
	}
	assert.Len(t, e.bodies(e.target), tc.comments, "comments right after the faulted run")
	if tc.expired {
		assert.NotContains(t, r.String(), e.expired)
		assertNowhere(t, root, e.expired)
	}

	// The tracker is back: a real `ccc sync` delivers what is queued and
	// leaves exactly one comment, holding the latest status.
	e.heal()
	code, _, stderr := newCCCProc(root, e.env...).run(t, "sync")
	assert.Equal(t, 0, code, stderr)
	if tc.queued {
		assert.Regexp(t, `(?m)^✓ \w+ `+regexp.QuoteMeta(e.target)+` \(agent main\): delivered — (created|updated) comment `, stderr)
		assert.Contains(t, stderr, "Outbox empty: 1 queued update(s) delivered.")
	} else {
		assert.Contains(t, stderr, "Outbox empty: nothing to deliver.")
	}
	entries, err = outbox.List(root, now)
	require.NoError(t, err)
	assert.Empty(t, entries)
	bodies := e.bodies(e.target)
	require.Len(t, bodies, 1, "exactly one comment for the agent")
	// The marker line carries the user's tag, which Body does not know.
	want := s.(bodySink).Body(r.StatusBody, "main")
	cut := func(b string) string { return b[:strings.LastIndexByte(b, '\n')] }
	assert.Equal(t, cut(want), cut(bodies[0]), "the comment holds the latest status")
	assert.Contains(t, bodies[0][strings.LastIndexByte(bodies[0], '\n'):], strings.TrimSuffix(want[strings.LastIndexByte(want, '\n'):], " -->"))
}

// assertNowhere checks that no file under root contains secret.
func assertNowhere(t *testing.T, root, secret string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		assert.NotContains(t, string(data), secret, "%s holds the credential", path)
		return nil
	})
	require.NoError(t, err)
}

// procResult is how one ccc process ended.
type procResult struct {
	code           int
	stdout, stderr string
}

// TestFiftyConcurrentCheckpoints starts 50 real `ccc checkpoint` processes at
// once on one project and one Linear issue, ten for each of five agents:
// every edit lands in the progress file, the state and the checkpoint
// records stay valid, nothing is left queued or half-written, and each agent
// ends with exactly one comment.
func TestFiftyConcurrentCheckpoints(t *testing.T) {
	// Not parallel: its deadlines assume the package's other tests are not
	// competing for the CPU.
	const procs, agents = 50, 5
	srv := linearfake.New()
	defer srv.Close()
	srv.AddIssue("CIA-50", "Fifty at once")
	root := t.TempDir()
	p := newCCCProc(root, "LINEAR_API_URL="+srv.URL, "LINEAR_API_KEY="+linearfake.APIKey)
	code, _, stderr := p.run(t, "checkpoint", "--profile", "automated", "--issue", "CIA-50", "--current", "start", "--skip-tracker")
	require.Equal(t, 0, code, stderr)

	results := make([]procResult, procs)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Ten processes per agent queue on one delivery lock: the
			// deadline is generous so that a slow machine tests
			// correctness, not speed.
			args := []string{"checkpoint", "--profile", "automated", "--agent", fmt.Sprintf("a%d", i%agents),
				"--add-task", fmt.Sprintf("task %02d", i), "--timeout", "45s"}
			if i%2 == 1 {
				args = append(args, "--decision", fmt.Sprintf("d%02d: because", i))
			}
			<-start
			c, o, e := p.run(t, args...)
			results[i] = procResult{c, o, e}
		}()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	t.Logf("%d processes in %s, %d requests to Linear", procs, time.Since(began).Round(time.Millisecond), srv.RequestCount())
	for i, r := range results {
		assert.Equal(t, 0, r.code, "process %d:\n%s", i, r.stderr)
	}

	data, err := os.ReadFile(filepath.Join(root, progress.FileName))
	require.NoError(t, err)
	doc, err := progress.Parse(data)
	require.NoError(t, err)
	assert.Empty(t, progress.Validate(progress.FileName, data))
	var tasks []string
	for _, task := range doc.Remaining {
		tasks = append(tasks, task.Text)
	}
	slices.Sort(tasks)
	want := make([]string, procs)
	for i := range want {
		want[i] = fmt.Sprintf("task %02d", i)
	}
	assert.Equal(t, want, tasks, "every task landed, once")
	assert.Len(t, doc.Decisions, procs/2, "every decision landed")

	st, err := state.Parse(readOrNil(t, state.Path(root)))
	require.NoError(t, err, "the state file is valid JSON")
	assert.Equal(t, "CIA-50", st.Issue())
	entries, err := outbox.List(root, time.Now())
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing queued")
	assert.Empty(t, tempFiles(t, root), "no temp files left behind")
	assert.Positive(t, checkRecords(t, root), "the agents' checkpoint records")
	recDir := filepath.Join(root, filepath.FromSlash(records.SubDir))

	comments := srv.Comments("CIA-50")
	for a := range agents {
		agent := fmt.Sprintf("a%d", a)
		var ref sinks.Ref
		ok, err := st.Ref("linear", "CIA-50", agent, &ref)
		require.NoError(t, err)
		assert.True(t, ok, "%s's comment is recorded", agent)
		var own []string
		for _, c := range comments {
			if linear.HasMarker(c.Body, agent) {
				own = append(own, c.ID)
			}
		}
		assert.Len(t, own, 1, "%s has exactly one comment", agent)
		assert.Contains(t, own, ref.ID, "%s's recorded comment is its one comment", agent)
		rec, err := records.Load(recDir, agent)
		if assert.NoError(t, err, "%s has a current checkpoint record", agent) {
			assert.Equal(t, agent, rec.Agent)
		}
	}
	assert.Len(t, comments, agents)
	assertFreshComments(t, comments, results, agents)
}

// assertFreshComments checks that no agent's comment shows an older status
// than its own last checkpoint saved: deliveries render the status under
// their lock from the progress file as it is then, so an older body never
// lands last.
func assertFreshComments(t *testing.T, comments []linearfake.Comment, results []procResult, agents int) {
	taskOf := regexp.MustCompile(`[Tt]ask\W+1 of (\d+)`)
	count := func(s string) int {
		m := taskOf.FindStringSubmatch(s)
		if m == nil {
			return 0
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	for a := range agents {
		agent := fmt.Sprintf("a%d", a)
		saved := 0
		for i := a; i < len(results); i += agents {
			saved = max(saved, count(results[i].stderr))
		}
		for _, c := range comments {
			if linear.HasMarker(c.Body, agent) && count(c.Body) < saved {
				t.Errorf("%s: the comment shows task 1 of %d, its last checkpoint saved 1 of %d", agent, count(c.Body), saved)
			}
		}
	}
}
