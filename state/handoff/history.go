package handoff

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
)

// Checkpoint is one checkpoint in the branch's history.
type Checkpoint struct {
	// Commit is the branch's commit that recorded it.
	Commit string `json:"branchCommit"`
	Meta   Meta   `json:"meta"`
	// Trust is its meta.json's signature judged against the trusted keys
	// (the files are checked when an entry is restored).
	Trust Trust `json:"trust"`
}

// History lists the checkpoints recorded on the tips given (this clone's
// and the remote's), newest first, at most max (0: all): one `git log` and
// one `git cat-file --batch`, however many there are.
func History(ctx context.Context, dir string, tips []string, max int, trusted map[string]bool) ([]Checkpoint, error) {
	var revs []string
	for _, t := range tips {
		if t != "" {
			revs = append(revs, t)
		}
	}
	if len(revs) == 0 {
		return nil, nil
	}
	lines, err := gitrepo.Log(ctx, dir, max, revs...)
	if err != nil {
		return nil, fmt.Errorf("handoff: %w", err)
	}
	var out []Checkpoint
	var names []string
	for _, l := range lines {
		id, ok := strings.CutPrefix(l.Subject, "checkpoint ")
		parts := strings.Split(id, "/")
		if !ok || len(parts) != 3 || ValidMachine(parts[0]) != nil {
			continue // not a checkpoint of this format: skipped, never trusted
		}
		out = append(out, Checkpoint{Commit: l.Commit, Meta: Meta{ID: id, Machine: parts[0], Agent: parts[1], Time: l.Time}})
		names = append(names, l.Commit+":"+Dir(parts[0], parts[1])+"/"+MetaFile)
	}
	metas, err := gitrepo.ReadNamed(ctx, dir, names, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("handoff: %w", err)
	}
	for i := range out {
		c := &out[i]
		var m Meta
		if metas[i] == nil || json.Unmarshal(metas[i], &m) != nil || m.ID != c.Meta.ID || m.Machine != c.Meta.Machine || m.Agent != c.Meta.Agent {
			c.Trust = BadSignature // the commit names a checkpoint its tree does not hold
			continue
		}
		c.Meta, c.Trust = m, Verify(m, nil, trusted)
	}
	return out, nil
}
