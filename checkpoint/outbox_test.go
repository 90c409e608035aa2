package checkpoint

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/redact"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/state/outbox"
)

// gateSink fails its first delivery with HTTP 503, and holds it until
// released, so a test can line another process up behind it.
type gateSink struct {
	fakeSink
	entered, release chan struct{}
	once             sync.Once
}

func (s *gateSink) Upsert(ctx context.Context, d sinks.Delivery) (sinks.Result, error) {
	first := false
	s.once.Do(func() { first = true })
	if first {
		close(s.entered)
		<-s.release
		s.mu.Lock()
		s.calls++
		s.bodies = append(s.bodies, d.Body)
		s.mu.Unlock()
		return sinks.Result{Requests: 1}, &sinks.Error{Cause: "HTTP 503"}
	}
	return s.fakeSink.Upsert(ctx, d)
}

// A checkpoint fails and queues a newer status while `ccc sync` waits to
// redeliver the older queued one: sync must send the newer status and leave
// nothing queued, never deliver the old one and drop the new.
func TestRedeliverSendsWhatIsQueuedWhenItGetsTheLock(t *testing.T) {
	root := t.TempDir()
	gate := &gateSink{fakeSink: fakeSink{name: "gate"}, entered: make(chan struct{}), release: make(chan struct{})}
	old := outbox.Entry{Sink: "gate", Target: "CIA-1", Agent: "main", Body: "alpha", RenderedAt: time.Now().Add(-time.Minute)}
	_, err := outbox.Queue(root, old, "HTTP 503", t0)
	require.NoError(t, err)

	done := make(chan Report)
	go func() {
		cp := newCP(root, Automated, progress.Edits{Issue: "CIA-1", Current: "beta"})
		cp.Trackers = []Tracker{{Sink: gate}}
		done <- runCP(cp)
	}()
	<-gate.entered // the checkpoint holds the delivery lock

	synced := make(chan SinkResult)
	go func() {
		cp := &Context{Root: root, Now: t0, Agent: "main", Key: testKey}
		synced <- cp.Redeliver(context.Background(), gate, old)
	}()
	close(gate.release)
	r := <-done
	assert.Equal(t, "Failed: Gate update (HTTP 503) — queued for retry (ccc sync).", r.Lines()[2])
	res := <-synced

	assert.Equal(t, sinks.Created, res.Action, res.Error)
	require.Len(t, gate.bodies, 2)
	assert.Contains(t, gate.bodies[1], "beta", "the newer queued status is the one delivered")
	assert.NotContains(t, gate.bodies[1], "alpha")
	left, err := outbox.List(root, t0)
	require.NoError(t, err)
	assert.Empty(t, left)
}

// When another process holds the delivery lock, the body is queued as it
// would have been sent: redacted.
func TestQueuedBodyIsRedacted(t *testing.T) {
	root := t.TempDir()
	unlock, err := outbox.LockDelivery(context.Background(), root, outbox.Entry{Sink: "fake", Target: "CIA-1", Agent: "main"})
	require.NoError(t, err)
	red, err := redact.New(nil, nil)
	require.NoError(t, err)
	cp := newCP(root, Automated, progress.Edits{Issue: "CIA-1", Current: "rotate AKIAQWERTYUIOPASDFGH today"})
	cp.Trackers = []Tracker{{Sink: &fakeSink{}}}
	cp.Redactor = red
	cp.Timeout = 300 * time.Millisecond
	r := runCP(cp)
	unlock()

	assert.Equal(t, "Failed: Fake update (another ccc process is delivering to CIA-1) — queued for retry (ccc sync).", r.Lines()[2])
	sr := step(t, r, "Fake update").Sinks
	require.Len(t, sr, 1)
	assert.Equal(t, 1, sr[0].Redacted, "in the Task line (Next does not repeat it)")
	assert.Equal(t, "failed (another ccc process is delivering to CIA-1) (1 secret(s) redacted) — queued for retry (ccc sync)", sr[0].line())
	assert.NotContains(t, r.StatusBody, "AKIAQWERTYUIOPASDFGH", "the reported body is redacted too")
	entries, err := outbox.List(root, t0)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Contains(t, entries[0].Body, "[REDACTED:aws-access-key]")
	data, err := os.ReadFile(root + "/.ccc/outbox/" + entries[0].Key() + ".json")
	require.NoError(t, err)
	assert.NotContains(t, string(data), "AKIAQWERTYUIOPASDFGH")

	// A body queued before redaction existed (or with other preferences)
	// is redacted again on its way out.
	raw := entries[0]
	raw.Body, raw.RenderedAt = "key AKIAQWERTYUIOPASDFGH", time.Now()
	raw = raw.Sign(testKey)
	require.NoError(t, func() error { _, err := outbox.Queue(root, raw, "x", t0); return err }())
	sink := &fakeSink{}
	cp = &Context{Root: root, Now: t0, Agent: "main", Redactor: red, Key: testKey}
	res := cp.Redeliver(context.Background(), sink, raw)
	assert.Equal(t, sinks.Created, res.Action)
	assert.Equal(t, 1, res.Redacted)
	require.Len(t, sink.bodies, 1)
	assert.False(t, strings.Contains(sink.bodies[0], "AKIA"), sink.bodies[0])
}

// A queued entry that another process delivered meanwhile is not sent again.
func TestRedeliverOfAnEntryAlreadyDelivered(t *testing.T) {
	root := t.TempDir()
	e := outbox.Entry{Sink: "fake", Target: "CIA-1", Agent: "main", Body: "x", RenderedAt: time.Now()}
	sink := &fakeSink{}
	cp := &Context{Root: root, Now: t0, Agent: "main", Key: testKey}
	res := cp.Redeliver(context.Background(), sink, e)
	assert.Equal(t, sinks.Unchanged, res.Action)
	assert.Zero(t, sink.calls)
	_, err := outbox.Queued(root, e)
	assert.True(t, errors.Is(err, os.ErrNotExist))
}
