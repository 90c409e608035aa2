package hook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/state"
)

// PendingDir, under .ccc, holds the stop hook's state changes that could
// not take the project lock within the hook's budget, one file per session
// that owns the loop. The next stop hook in the project applies them before
// it decides, so a TASK_COMPLETE is never lost to a busy lock.
const PendingDir = "pending"

// maxPending bounds what is read of a pending file: a few hundred bytes
// are written.
const maxPending = 64 << 10

// position is the part of the loop state a pending change was decided on.
// The change applies only to a state still at that position: a state
// someone moved meanwhile (CCC's own tooling, a person) is left as it is.
type position struct {
	TaskIndex       int64  `json:"taskIndex"`
	TaskIteration   int64  `json:"taskIteration"`
	GlobalIteration int64  `json:"globalIteration"`
	ReplanCount     int64  `json:"replanCount"`
	Phase           string `json:"phase"`
}

func positionOf(f fields) position {
	return position{f.taskIndex, f.taskIteration, f.globalIteration, f.replanCount, f.phase}
}

// pendingChange is one deferred write of the stop hook.
type pendingChange struct {
	Session string   `json:"session"`
	From    position `json:"from"`
	// Set are the keys to write (the loop keys, lastUpdatedAt,
	// ownerSessionId); Remove ends the loop: the state is deleted.
	Set    map[string]json.RawMessage `json:"set,omitempty"`
	Remove bool                       `json:"remove,omitempty"`
	At     time.Time                  `json:"at"`
}

var unsafeSession = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_-]+`) })

// pendingPath names session's pending file: readable, and unique through
// a short hash of the whole id.
func pendingPath(root, session string) string {
	sum := sha256.Sum256([]byte(session))
	name := unsafeSession().ReplaceAllString(session, "_")
	if len(name) > 40 {
		name = name[:40]
	}
	return filepath.Join(root, projectfs.Dir, PendingDir, "stop-"+name+"-"+hex.EncodeToString(sum[:4])+".json")
}

// savePending writes p atomically, without the project lock (which is
// what could not be had).
func savePending(root string, p pendingChange) (string, error) {
	path := pendingPath(root, p.Session)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return path, err
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return path, err
	}
	return path, projectfs.WriteFileAtomic(path, append(data, '\n'), 0o600)
}

// readPending reads session's pending change; an error wrapping
// os.ErrNotExist means there is none. The file is in the project, so it
// is read as untrusted input: a regular file, through a size limit.
func readPending(root, session string) (pendingChange, string, error) {
	var p pendingChange
	path := pendingPath(root, session)
	data, err := projectfs.ReadOwnFile(root, path, maxPending)
	if err != nil {
		return p, path, err
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return p, path, fmt.Errorf("%s: %w", path, err)
	}
	return p, path, nil
}

// lockCtx is ctx bounded by the end of the hook's lock budget, which every
// lock wait of one stop shares with its checkpoint.
func (s *stopper) lockCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	s.env = s.env.withLockWaits()
	return s.env.locks.ctx(ctx)
}

// applyPending applies the loop owner's pending change, if any, before the
// decision. A change still at the state's position is written now, or,
// when the lock is busy again, laid over the state in memory and kept for
// the next stop (the decision then sees the advanced loop, and a write it
// makes carries both). done reports a decision already made: the pending
// change ended the loop.
func (s *stopper) applyPending(ctx context.Context) (d Decision, done bool) {
	owner := s.f.owner
	if owner == "" {
		owner = s.in.SessionID
	}
	p, path, err := readPending(s.root, owner)
	if errors.Is(err, os.ErrNotExist) {
		return d, false
	}
	if err != nil {
		s.env.logf("stop", "pending state change: %v; discarded", err)
		_ = os.Remove(path)
		return d, false
	}
	if p.From != positionOf(s.f) {
		s.env.logf("stop", "pending state change of %s no longer matches %s (changed since); discarded", p.At.UTC().Format(time.RFC3339), state.FileName)
		_ = os.Remove(path)
		return d, false
	}
	if p.Remove {
		s.pending = &p
		if err := s.remove(ctx, s.f.totalTasks); err != nil {
			return s.writeFailed(err), true
		}
		return Decision{Outcome: Allow, Rule: RuleAllDone}, true
	}
	for k, v := range p.Set {
		if err := s.st.Set(k, v); err != nil {
			s.env.logf("stop", "pending state change: %v; discarded", err)
			_ = os.Remove(path)
			return d, false
		}
	}
	f, err := readFields(s.st)
	if err != nil {
		s.env.logf("stop", "pending state change: %v; discarded", err)
		_ = os.Remove(path)
		s.st, s.f, _ = parseState(s.orig)
		return d, false
	}
	s.f, s.pending = f, &p
	if _, err := s.save(ctx, nil); err != nil {
		return s.writeFailed(err), true
	}
	return d, false
}
