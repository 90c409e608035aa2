package outbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

var t0 = time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)

func TestOutboxQueueReplacesAndCounts(t *testing.T) {
	root := t.TempDir()
	r := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	e := Entry{Sink: "linear", Target: "CIA-1", Agent: "main", Body: "v1", RenderedAt: r(0)}
	got, err := Queue(root, e, "HTTP 503", t0)
	require.NoError(t, err)
	assert.Equal(t, 1, got.Attempts)
	assert.Equal(t, t0.Add(30*time.Second), got.NextAttempt)

	e.Body, e.RenderedAt = "v2", r(1)
	got, err = Queue(root, e, "timeout after 10s", t0.Add(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, 2, got.Attempts)
	assert.Equal(t, t0, got.QueuedAt, "first queued time kept")

	// A body rendered before the queued one failed too: v2 stays.
	stale := Entry{Sink: "linear", Target: "CIA-1", Agent: "main", Body: "v0", RenderedAt: r(-1)}
	got, err = Queue(root, stale, "HTTP 503", t0.Add(2*time.Minute))
	require.NoError(t, err)
	assert.Equal(t, "v2", got.Body)

	other := Entry{Sink: "linear", Target: "CIA-1", Agent: "worker-2", Body: "w", RenderedAt: r(0)}
	_, err = Queue(root, other, "HTTP 503", t0.Add(2*time.Minute))
	require.NoError(t, err)

	list, err := List(root, t0)
	require.NoError(t, err)
	require.Len(t, list, 2, "one entry per (sink, target, agent)")
	assert.Equal(t, "v2", list[0].Body, "the newer body replaced the older")
	assert.Equal(t, "timeout after 10s", list[0].LastError)
	assert.Equal(t, "worker-2", list[1].Agent)

	// Delivered an older body while v2 was queued: v2 stays.
	require.NoError(t, Dequeue(root, Entry{Sink: "linear", Target: "CIA-1", Agent: "main", Body: "v1", RenderedAt: r(0)}))
	list, err = List(root, t0)
	require.NoError(t, err)
	assert.Len(t, list, 2)
	q, err := Queued(root, list[0])
	require.NoError(t, err)
	assert.Equal(t, "v2", q.Body)
	// Delivered exactly what is queued: gone.
	require.NoError(t, Dequeue(root, list[0]))
	require.NoError(t, Dequeue(root, list[0]), "twice is fine")
	_, err = Queued(root, q)
	assert.ErrorIs(t, err, os.ErrNotExist)
	list, err = List(root, t0)
	require.NoError(t, err)
	require.Len(t, list, 1)
	// A body rendered later supersedes what was queued.
	require.NoError(t, Dequeue(root, Entry{Sink: "linear", Target: "CIA-1", Agent: "worker-2", Body: "newer", RenderedAt: r(5)}))
	list, err = List(root, t0)
	require.NoError(t, err)
	assert.Empty(t, list)
}

func TestOutboxKeysAreSafeFileNames(t *testing.T) {
	a := Entry{Sink: "github", Target: "acme/app#12", Agent: "../x"}
	b := Entry{Sink: "github", Target: "acme/app#12", Agent: "__x"}
	assert.Regexp(t, `^github-acme_app_12-_x-[0-9a-f]{8}$`, a.Key())
	assert.NotEqual(t, a.Key(), b.Key(), "names that sanitise alike still differ")
}

func TestRetryAfter(t *testing.T) {
	assert.Equal(t, 30*time.Second, RetryAfter(1))
	assert.Equal(t, time.Minute, RetryAfter(2))
	assert.Equal(t, 16*time.Minute, RetryAfter(6))
	assert.Equal(t, 30*time.Minute, RetryAfter(7))
	assert.Equal(t, 30*time.Minute, RetryAfter(100))
}

func TestOutboxCorruptEntryIsSetAside(t *testing.T) {
	root := t.TempDir()
	_, err := Queue(root, Entry{Sink: "linear", Target: "CIA-1", Agent: "main", Body: "ok"}, "HTTP 503", t0)
	require.NoError(t, err)
	bad := filepath.Join(root, projectfs.Dir, Dir, "broken.json")
	require.NoError(t, os.WriteFile(bad, []byte("{not json"), 0o600))

	list, err := List(root, t0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "broken.json")
	assert.Len(t, list, 1, "the good entry is still returned")
	assert.NoFileExists(t, bad)
	kept, _ := filepath.Glob(filepath.Join(root, projectfs.Dir, projectfs.BackupDir, "broken.json.*.corrupt"))
	assert.Len(t, kept, 1, "kept, not dropped")
}

// A tracker's Retry-After (or rate-limit reset) holds the entry back when
// it asks for longer than the backoff, never for more than MaxServerWait.
func TestOutboxQueueHonoursTheTrackersWait(t *testing.T) {
	tests := []struct {
		name  string
		asked time.Duration // from now; 0: the tracker said nothing
		want  time.Duration
	}{
		{"no hint: the backoff", 0, 30 * time.Second},
		{"a shorter hint: the backoff", 10 * time.Second, 30 * time.Second},
		{"Retry-After: 3600", time.Hour, time.Hour},
		{"an absurd hint is capped", 30 * 24 * time.Hour, MaxServerWait},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Entry{Sink: "linear", Target: "CIA-1", Agent: "main", Body: "v1", RenderedAt: t0}
			if tt.asked > 0 {
				e.NextAttempt = t0.Add(tt.asked)
			}
			got, err := Queue(t.TempDir(), e, "rate limited, retry after 1h", t0)
			require.NoError(t, err)
			assert.Equal(t, t0.Add(tt.want), got.NextAttempt)
		})
	}
}

func TestEntryHeldOnlyByTheTrackersWait(t *testing.T) {
	root := t.TempDir()
	e := Entry{Sink: "linear", Target: "CIA-1", Agent: "main", Body: "v1", RenderedAt: t0}
	backoff, err := Queue(root, e, "HTTP 503", t0)
	require.NoError(t, err)
	assert.False(t, backoff.Held(t0.Add(time.Second)), "a backoff holds nothing back from a new status")

	e.NextAttempt = t0.Add(time.Hour)
	asked, err := Queue(root, e, "rate limited, retry after 1h", t0)
	require.NoError(t, err)
	assert.True(t, asked.Held(t0.Add(5*time.Minute)))
	assert.False(t, asked.Held(t0.Add(time.Hour)), "due once the wait is over")
}

// A lock held by another process is ErrBusy; a lock that cannot be had at
// all says its own cause and is not taken for contention.
func TestLockErrorsTellContentionFromFailure(t *testing.T) {
	root := t.TempDir()
	unlock, err := projectfs.Lock(context.Background(), root)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err = projectfs.Lock(ctx, root)
	require.ErrorIs(t, err, projectfs.ErrBusy)
	unlock()

	blocked := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocked, nil, 0o644)) // .ccc cannot be made under a file
	_, err = LockDelivery(context.Background(), blocked, Entry{Sink: "s", Target: "t", Agent: "a"})
	require.Error(t, err)
	assert.False(t, errors.Is(err, projectfs.ErrBusy), "%v", err)
	assert.ErrorIs(t, err, syscall.ENOTDIR)
}
