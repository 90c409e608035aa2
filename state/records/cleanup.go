package records

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Default cleanup ages (seed 001).
const (
	DefaultMaxAge       = 7 * 24 * time.Hour
	DefaultFailedMaxAge = 30 * 24 * time.Hour
)

// Policy is seed 001's cleanup policy.
type Policy struct {
	// MaxAge: records not updated for longer are deleted.
	MaxAge time.Duration
	// FailedMaxAge: failed records are kept in failed/ this long.
	FailedMaxAge time.Duration
}

// Cleanup operations.
const (
	OpRemove = "remove"
	OpMove   = "move"
)

// Action is one thing Cleanup did, or would do.
type Action struct {
	Op     string `json:"op"` // remove or move
	Path   string `json:"path"`
	To     string `json:"to,omitempty"`
	ID     string `json:"id"`
	Agent  string `json:"agent"`
	Kind   Kind   `json:"kind"`
	Reason string `json:"reason"`
	// Age is how long since the record's updatedAt.
	Age time.Duration `json:"-"`
}

// Cleanup applies the policy at now, aging records by their updatedAt:
// completed archives are removed whatever their age; failed records move
// to failed/ and are removed there after FailedMaxAge; every other record
// (current, history, crashed) is removed after MaxAge. A file that cannot
// be read as a record is never touched; it is reported in the error. With
// dryRun nothing changes and the actions say what would be done.
func Cleanup(ctx context.Context, dir string, p Policy, now time.Time, dryRun bool) ([]Action, error) {
	if !dryRun {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		unlock, err := Lock(ctx, dir)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	all, readErr := All(dir)
	var actions []Action
	for _, s := range all {
		age := now.Sub(s.UpdatedAt)
		a := Action{Op: OpRemove, Path: s.Path, ID: s.ID, Agent: s.Agent, Kind: s.Kind, Age: age}
		inFailed := filepath.Dir(s.Path) == filepath.Join(dir, FailedDir)
		switch {
		case s.Kind == KindComplete:
			a.Reason = "completed archive"
		case s.Status == StatusFailed && !inFailed:
			a.Op, a.To = OpMove, filepath.Join(dir, FailedDir, filepath.Base(s.Path))
			a.Reason = "failed record"
		case inFailed:
			if s.UpdatedAt.IsZero() || age <= p.FailedMaxAge {
				continue
			}
			a.Reason = fmt.Sprintf("failed, not updated for over %s", days(p.FailedMaxAge))
		default:
			if s.UpdatedAt.IsZero() || age <= p.MaxAge {
				continue
			}
			a.Reason = fmt.Sprintf("not updated for over %s", days(p.MaxAge))
		}
		actions = append(actions, a)
	}
	sort.SliceStable(actions, func(i, j int) bool { return actions[i].Path < actions[j].Path })
	if dryRun {
		return actions, readErr
	}
	done := actions[:0]
	var errs []error
	for _, a := range actions {
		var err error
		switch a.Op {
		case OpMove:
			if err = os.MkdirAll(filepath.Dir(a.To), 0o755); err == nil {
				if _, serr := os.Stat(a.To); serr == nil {
					err = fmt.Errorf("%s already exists", a.To)
				} else {
					err = os.Rename(a.Path, a.To)
				}
			}
		default:
			err = os.Remove(a.Path)
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("records: cleanup: %w", err))
			continue
		}
		done = append(done, a)
	}
	removeEmptyDirs(filepath.Join(dir, HistoryDir))
	return done, errors.Join(append([]error{readErr}, errs...)...)
}

// removeEmptyDirs drops the history folders of agents that have none left.
func removeEmptyDirs(hist string) {
	entries, _ := os.ReadDir(hist)
	for _, e := range entries {
		if e.IsDir() {
			_ = os.Remove(filepath.Join(hist, e.Name())) // fails, harmlessly, when not empty
		}
	}
}

// days prints a cleanup age the way the flags take it.
func days(d time.Duration) string {
	n, rest := d/(24*time.Hour), d%(24*time.Hour)
	s := ""
	if n > 0 {
		s = fmt.Sprintf("%dd", n)
	}
	if rest > 0 || s == "" {
		r := rest.String()
		if strings.HasSuffix(r, "m0s") {
			r = strings.TrimSuffix(r, "0s")
		}
		if strings.HasSuffix(r, "h0m") {
			r = strings.TrimSuffix(r, "0m")
		}
		s += r
	}
	return s
}
