package outbox_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/state/outbox"
)

var (
	key      = []byte("0123456789abcdef0123456789abcdef")
	otherKey = []byte("fedcba9876543210fedcba9876543210")
	signT0   = time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)
)

func TestEntrySignature(t *testing.T) {
	e := outbox.Entry{Sink: "linear", Target: "CIA-1", Agent: "main", Body: "status", RenderedAt: signT0}.Sign(key)
	assert.True(t, e.Verify(key))
	assert.False(t, e.Verify(otherKey))
	assert.False(t, e.Verify(nil))
	for name, edit := range map[string]func(*outbox.Entry){
		"body":     func(e *outbox.Entry) { e.Body = "ATTACKER" },
		"target":   func(e *outbox.Entry) { e.Target = "CIA-9" },
		"agent":    func(e *outbox.Entry) { e.Agent = "worker" },
		"sink":     func(e *outbox.Entry) { e.Sink = "github" },
		"fullText": func(e *outbox.Entry) { e.FullText = "x" },
		"rendered": func(e *outbox.Entry) { e.RenderedAt = e.RenderedAt.Add(time.Hour) },
	} {
		forged := e
		edit(&forged)
		assert.False(t, forged.Verify(key), name)
	}
	// The bookkeeping is not signed: a retry updates it.
	e.Attempts, e.LastError = 3, "HTTP 503"
	assert.True(t, e.Verify(key))
}

// Only entries this user's ccc queued are delivered; the others, and a file
// whose name does not match its key, are set aside once and reported.
func TestTrustedOutbox(t *testing.T) {
	root := t.TempDir()
	good := outbox.Entry{Sink: "linear", Target: "CIA-1", Agent: "main", Body: "ours", RenderedAt: signT0}.Sign(key)
	_, err := outbox.Queue(root, good, "HTTP 503", signT0)
	require.NoError(t, err)
	forged := outbox.Entry{Sink: "linear", Target: "CIA-9", Agent: "main", Body: "ATTACKER"}
	_, err = outbox.Queue(root, forged, "x", signT0)
	require.NoError(t, err)
	dir := filepath.Join(root, projectfs.Dir, outbox.Dir)
	misnamed := outbox.Entry{Sink: "linear", Target: "CIA-7", Agent: "main", Body: "ours, misnamed", RenderedAt: signT0}.Sign(key)
	_, err = outbox.Queue(root, misnamed, "x", signT0)
	require.NoError(t, err)
	require.NoError(t, os.Rename(filepath.Join(dir, misnamed.Key()+".json"), filepath.Join(dir, "linear-CIA-7-main-00000000.json")))

	entries, err := outbox.Trusted(root, key, signT0)
	require.Len(t, entries, 1)
	assert.Equal(t, "ours", entries[0].Body)
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, forged.Key()+".json: not signed by this user's ccc: not delivered (moved to ")
	assert.Contains(t, msg, "linear-CIA-7-main-00000000.json: its name does not match its key ("+misnamed.Key()+".json)")
	assert.NotContains(t, msg, "ATTACKER")
	names, _ := os.ReadDir(dir)
	assert.Len(t, names, 1, "set aside, out of the outbox")

	entries, err = outbox.Trusted(root, key, signT0)
	assert.NoError(t, err, "reported once")
	assert.Len(t, entries, 1)

	// Without a key nothing is trusted and nothing is moved.
	entries, err = outbox.Trusted(root, nil, signT0)
	assert.NoError(t, err)
	assert.Empty(t, entries)
	names, _ = os.ReadDir(dir)
	assert.Len(t, names, 1)
}
