package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/state"

	"github.com/ccc-checkpoint/ccc/internal/redact"
)

// lockWait bounds how long a hook waits for another ccc process's lock
// before giving up on a write.
const lockWait = 2 * time.Second

// fields are the state keys the stop hook reads, with CCC's defaults.
type fields struct {
	taskIndex, totalTasks, taskIteration, maxTaskIterations int64
	globalIteration, maxGlobalIterations, replanCount       int64
	phase, executionMode, linearIssue, specPath, owner      string
	awaitingGate                                            bool
	// hasTotal is false when the state has no totalTasks (absent or null).
	hasTotal bool
}

// MistypedError is a listed state field holding another JSON type.
type MistypedError struct {
	Key, Want string
	Value     string
}

func (e *MistypedError) Error() string {
	v := redact.Clip(e.Value, 41)
	return fmt.Sprintf("%s is %s, expected %s", e.Key, v, e.Want)
}

// readFields types the listed fields. Absent or null fields take their
// defaults; any other JSON type than the listed one is a *MistypedError.
func readFields(st *state.State) (fields, error) {
	f := fields{taskIteration: 1, maxTaskIterations: 5, maxGlobalIterations: 50, executionMode: "quick"}
	ints := []struct {
		key string
		dst *int64
	}{
		{"taskIndex", &f.taskIndex}, {"totalTasks", &f.totalTasks},
		{"taskIteration", &f.taskIteration}, {"maxTaskIterations", &f.maxTaskIterations},
		{"globalIteration", &f.globalIteration}, {"maxGlobalIterations", &f.maxGlobalIterations},
		{"replanCount", &f.replanCount},
	}
	for _, k := range ints {
		raw, ok := st.Raw(k.key)
		if !ok || string(raw) == "null" {
			continue
		}
		v, ok := jsonInt(raw)
		if !ok {
			return f, &MistypedError{Key: k.key, Want: "an integer", Value: string(raw)}
		}
		*k.dst = v
		if k.key == "totalTasks" {
			f.hasTotal = true
		}
	}
	strs := []struct {
		key string
		dst *string
	}{
		{"phase", &f.phase}, {"executionMode", &f.executionMode}, {"linearIssue", &f.linearIssue},
		{"specPath", &f.specPath}, {"ownerSessionId", &f.owner},
	}
	for _, k := range strs {
		raw, ok := st.Raw(k.key)
		if !ok || string(raw) == "null" {
			continue
		}
		if raw[0] != '"' {
			return f, &MistypedError{Key: k.key, Want: "a string", Value: string(raw)}
		}
		if err := json.Unmarshal(raw, k.dst); err != nil {
			return f, &MistypedError{Key: k.key, Want: "a string", Value: string(raw)}
		}
	}
	if raw, ok := st.Raw("awaitingGate"); ok {
		switch string(raw) {
		case "null", "false", `""`:
		default:
			f.awaitingGate = true
		}
	}
	return f, nil
}

// jsonInt reads a JSON number with an integral value (JSON Schema's
// integer: 3, 3.0 and 3e0 alike) that fits in an int64.
func jsonInt(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, false
	}
	if v, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return v, true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, false
	}
	return int64(f), true
}

// errBlank is a state file with nothing in it.
var errBlank = errors.New("blank, expected a JSON object")

// parseState reads the state file's bytes; anything the stop hook must not
// act on is an error.
func parseState(data []byte) (*state.State, fields, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fields{}, errBlank
	}
	st, err := state.Parse(data)
	if err != nil {
		return nil, fields{}, err
	}
	f, err := readFields(st)
	if err != nil {
		return nil, fields{}, err
	}
	return st, f, nil
}

// replaceState writes data over the state file, provided the file still
// holds orig: atomically, under the project lock, after a timestamped backup
// in .ccc/backups (every writer of the state keeps one).
func replaceState(ctx context.Context, root string, now time.Time, orig, data []byte) error {
	return withLock(ctx, root, func() error {
		path := state.Path(root)
		if err := unchanged(path, orig); err != nil {
			return err
		}
		if _, err := projectfs.Backup(root, path, now); err != nil {
			return err
		}
		return projectfs.ReplaceFile(path, orig, data, 0o644)
	})
}

// removeState deletes the state file, provided it still holds orig, after
// a timestamped backup in .ccc/backups. It returns the backup's path, ""
// when the file was already gone.
func removeState(ctx context.Context, root string, now time.Time, orig []byte) (backup string, err error) {
	err = withLock(ctx, root, func() error {
		path := state.Path(root)
		if err := unchanged(path, orig); errors.Is(err, os.ErrNotExist) {
			return nil
		} else if err != nil {
			return err
		}
		b, err := projectfs.Backup(root, path, now)
		if err != nil {
			return err
		}
		if err := os.Remove(path); err != nil {
			return err
		}
		backup = b
		return nil
	})
	return backup, err
}

// unchanged checks that the file still holds orig before it is backed up
// and replaced, so the backup is of the state the hook decided on and a
// file someone else rewrote in between is left alone.
func unchanged(path string, orig []byte) error {
	cur, err := projectfs.ReadProjectFile("", path, int64(len(orig)))
	if errors.Is(err, projectfs.ErrTooLarge) {
		return fmt.Errorf("%s: %w", path, projectfs.ErrChanged)
	}
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, orig) {
		return fmt.Errorf("%s: %w", path, projectfs.ErrChanged)
	}
	return nil
}

// withLock runs fn under the project lock, waiting for it until ctx's
// deadline, or lockWait when ctx has none.
func withLock(ctx context.Context, root string, fn func() error) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lockWait)
		defer cancel()
	}
	unlock, err := projectfs.Lock(ctx, root)
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}
