package file_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/sinks/file"
	"github.com/ccc-checkpoint/ccc/sinks/file/filefake"
	"github.com/ccc-checkpoint/ccc/sinks/sinktest"
)

// control adapts a status file to the conformance suite: a section is a
// comment, and a foreign comment is a copy of a section pasted into the
// file as an example.
type control struct {
	t    *testing.T
	fs   *filefake.FS
	path string
}

func (c control) Comments(string) []sinktest.Comment {
	secs, err := filefake.Sections(c.path)
	require.NoError(c.t, err)
	var out []sinktest.Comment
	for _, s := range secs {
		out = append(out, sinktest.Comment{ID: s.ID, Body: s.Body, Own: !s.Foreign})
	}
	return out
}

func (c control) Delete(id string) { require.NoError(c.t, filefake.Delete(c.path, id)) }

// AddForeign pastes a copy of the main agent's section, markers included:
// the suite copies main's own.
func (c control) AddForeign(_, body string) string {
	id, err := filefake.AddForeign(c.path, "main", body)
	require.NoError(c.t, err)
	return id
}

func (c control) FailTransient(n int) {
	for range n {
		c.fs.Inject(filefake.Concurrent)
	}
}

func (c control) FailPermanent()       { c.fs.Inject(filefake.Denied) }
func (c control) Slow(d time.Duration) { c.fs.Slow(d) }
func (c control) LoseCreate()          { c.fs.Inject(filefake.LostAnswer) }
func (c control) Requests() int        { return c.fs.Edits() }

func TestConformance(t *testing.T) {
	sinktest.Run(t, sinktest.Harness{New: func(t *testing.T) sinktest.Instance {
		root := t.TempDir()
		fake := &filefake.FS{}
		s := newSink(root, fake)
		return sinktest.Instance{Sink: s, Fake: control{t: t, fs: fake, path: filepath.Join(root, "STATUS.md")}, Issue: "STATUS.md"}
	}})
}

func newSink(root string, fs file.FS) *file.Sink {
	return file.New(file.Config{Root: root, FS: fs, InitialInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond})
}
