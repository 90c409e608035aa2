package records

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// StorePath is where a record of this status is kept: the agent's current
// record, the complete archive, or failed/<id>.json.
func StorePath(dir string, r *Record) string {
	switch r.Status {
	case StatusComplete:
		return CompletePath(dir, r.Agent, r.Issue)
	case StatusFailed:
		return filepath.Join(dir, FailedDir, r.ID+".json")
	}
	return CurrentPath(dir, r.Agent)
}

// Put stores a record built elsewhere (an import) where its status says,
// under the directory's lock. A record it replaces is kept in the agent's
// history (ccc list, ccc show) and as a rotating backup; one that cannot be
// read is set aside instead, never overwritten unread. It returns the path
// written.
func Put(ctx context.Context, dir string, r *Record, now time.Time) (string, error) {
	if err := ValidAgent(r.Agent); err != nil {
		return "", err
	}
	data, err := Encode(r)
	if err != nil {
		return "", err
	}
	path := StorePath(dir, r)
	unlock, err := Lock(ctx, dir)
	if err != nil {
		return "", err
	}
	defer unlock()
	keep, err := keepReplaced(dir, r.Agent, path, now)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		keep.unshare()
		return "", fmt.Errorf("records: %w", err)
	}
	if err := projectfs.WriteFileAtomic(path, data, 0o644); err != nil {
		keep.unshare()
		return "", fmt.Errorf("records: write %s: %w", path, err)
	}
	return path, nil
}

// keepReplaced keeps the record at path, about to be replaced, in agent's
// history and as a backup (or sets it aside when it cannot be read).
func keepReplaced(dir, agent, path string, now time.Time) (kept, error) {
	old, err := readFile(dir, path)
	if errors.Is(err, os.ErrNotExist) {
		return kept{}, nil
	}
	if err != nil {
		return kept{}, fmt.Errorf("records: %w", err)
	}
	prev, _, derr := Decode(path, old)
	if derr != nil {
		if _, err := projectfs.SetAside(Root(dir), path, now); err != nil {
			return kept{}, fmt.Errorf("records: %w; and it could not be set aside: %v", derr, err)
		}
		return kept{}, nil
	}
	return keepPrevious(dir, agent, path, prev, old, now)
}

// Retire ends an agent's current record without a status of its own (the
// user deleted the checkpoint, or started afresh): the record moves into
// the agent's history, where ccc list and ccc show still find it, and the
// agent has no current record any more. It returns the history path, or
// ErrNoRecord. A record that cannot be read is set aside as .corrupt and
// removed.
func Retire(ctx context.Context, dir, agent string, now time.Time) (string, error) {
	if err := ValidAgent(agent); err != nil {
		return "", err
	}
	path := CurrentPath(dir, agent)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("records: agent %q in %s: %w", agent, dir, ErrNoRecord)
	}
	unlock, err := Lock(ctx, dir)
	if err != nil {
		return "", err
	}
	defer unlock()
	data, err := readFile(dir, path)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("records: agent %q in %s: %w", agent, dir, ErrNoRecord)
	}
	if err != nil {
		return "", fmt.Errorf("records: %w", err)
	}
	var entry string
	linked := false
	if r, _, derr := Decode(path, data); derr == nil {
		// The record leaves for history: a link to it, then its name removed.
		if entry, err = keepHistory(dir, agent, r, data, path); err != nil {
			if entry != "" {
				_ = projectfs.Unshare(entry, path, data)
			}
			return "", err
		}
		linked = true
	} else if entry, err = projectfs.SetAside(Root(dir), path, now); err != nil {
		return "", fmt.Errorf("records: %w; and it could not be set aside: %v", derr, err)
	}
	if err := os.Remove(path); err != nil {
		if linked {
			_ = projectfs.Unshare(entry, path, data)
		}
		return "", fmt.Errorf("records: %w", err)
	}
	return entry, nil
}
