package handoff

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
)

// Repo is where the branch lives: the work tree git runs in and the
// common git directory its refs are read from without running git.
type Repo struct {
	Dir, CommonDir string
}

// casAttempts bounds how often Write starts again after another writer
// moved the branch between its read of the tip and its update (each retry
// means another writer landed; the caller's deadline bounds it too).
const casAttempts = 20

// Write records e (sealed by the caller) as a commit on Ref whose tree is
// the previous tip's with e's directory replaced: one `git fast-import`,
// which writes the blobs, the trees and the commit and moves the ref only
// if it is still the tip Write read (compare-and-swap). When another
// writer moved it meanwhile, Write reads the new tip and writes again, up
// to casAttempts times. It never touches the working tree, the index,
// HEAD or any other ref.
func Write(ctx context.Context, r Repo, e Entry) error {
	if err := ValidMachine(e.Meta.Machine); err != nil {
		return err
	}
	meta, err := json.MarshalIndent(e.Meta, "", "  ")
	if err != nil {
		return fmt.Errorf("handoff: %w", err)
	}
	var last error
	for attempt := range casAttempts {
		tip, err := gitrepo.ReadRef(ctx, r.CommonDir, Ref)
		if err != nil {
			return fmt.Errorf("handoff: %w", err)
		}
		err = gitrepo.FastImport(ctx, r.Dir, entryStream(e, meta, tip))
		if !errors.Is(err, gitrepo.ErrRefMoved) {
			if err != nil {
				return fmt.Errorf("handoff: write %s: %w", e.Meta.ID, err)
			}
			return nil
		}
		last = err
		// A growing jitter, so writers that collided do not collide again.
		select {
		case <-ctx.Done():
			return fmt.Errorf("handoff: write %s: %w", e.Meta.ID, ctx.Err())
		case <-time.After(time.Duration(rand.IntN(10*(attempt+1))) * time.Millisecond):
		}
	}
	return fmt.Errorf("handoff: write %s: %d writers in a row moved the branch first: %w", e.Meta.ID, casAttempts, last)
}

// entryStream is the fast-import stream of one checkpoint's commit on top
// of tip ("" for the branch's first).
func entryStream(e Entry, meta []byte, tip string) []byte {
	var b bytes.Buffer
	b.WriteString("commit " + Ref + "\n")
	committer(&b, e.Meta.Time)
	data(&b, []byte("checkpoint "+e.Meta.ID+"\n"))
	if tip != "" {
		b.WriteString("from " + tip + "\n")
	}
	dir := Dir(e.Meta.Machine, e.Meta.Agent)
	b.WriteString("D " + dir + "\n") // a file the entry no longer has goes
	for _, name := range sortedNames(e.Files) {
		b.WriteString("M 100644 inline " + dir + "/" + name + "\n")
		data(&b, e.Files[name])
	}
	b.WriteString("M 100644 inline " + dir + "/" + MetaFile + "\n")
	data(&b, append(meta, '\n'))
	b.WriteString("\n")
	return b.Bytes()
}

func committer(b *bytes.Buffer, t time.Time) {
	b.WriteString("committer ccc <ccc@localhost> " + strconv.FormatInt(t.Unix(), 10) + " +0000\n")
}

func data(b *bytes.Buffer, d []byte) {
	b.WriteString("data " + strconv.Itoa(len(d)) + "\n")
	b.Write(d)
	b.WriteString("\n")
}
