package restore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// Put writes data, which comes from elsewhere than t's backups (another
// machine's checkpoint, `ccc go --from`), as t, with One's care: under
// t's lock; refused when data is not valid for t; the current file kept
// first (backed up, or set aside when it is not valid); written
// atomically. from names where data came from, for the result.
func Put(ctx context.Context, t Target, data []byte, from string, now time.Time) Result {
	res := Result{Target: t, From: from}
	fail := func(format string, args ...any) Result {
		res.Action, res.Message = Failed, fmt.Sprintf(format, args...)
		return res
	}
	if err := t.validate(data); err != nil {
		return fail("%s is not valid (%v); left as it is", from, err)
	}
	unlock, err := t.lock(ctx)
	if err != nil {
		return fail("%v", err)
	}
	defer unlock()
	cur, err := projectfs.ReadProjectFile(t.backupRoot, t.Path, projectfs.MaxCopySize)
	missing := errors.Is(err, os.ErrNotExist)
	if err != nil && !missing {
		return fail("%v", err)
	}
	if !missing {
		if bytes.Equal(cur, data) {
			res.Action, res.Message = Unchanged, "already the same"
			return res
		}
		keep := projectfs.Backup
		if t.validate(cur) != nil {
			keep = projectfs.SetAside // never pruned, however broken
		}
		if res.Kept, err = keep(t.backupRoot, t.Path, now); err != nil {
			return fail("keep the current file: %v", err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(t.Path), 0o755); err != nil {
		return fail("%v", err)
	}
	if err := projectfs.WriteFileAtomic(t.Path, data, 0o644); err != nil {
		return fail("write: %v", err)
	}
	res.Action = Restored
	return res
}
