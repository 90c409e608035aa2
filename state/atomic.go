// Package state owns the files ccc writes in a user's project: the shared
// .ccc-state.json, atomic replacement of any file, the project lock and the
// rotating backups under .ccc/.
package state

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ErrChanged means a file was changed by someone else between the moment it
// was read and the moment it was to be replaced.
var ErrChanged = errors.New("changed on disk since it was read")

// WriteFileAtomic replaces path with data so that readers see either the old
// or the new content, never a torn file: temp file in the same directory →
// write → fsync → close → rename → fsync the directory (restic's order).
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return replace(path, data, perm, nil)
}

// ReplaceFile is WriteFileAtomic guarded by a compare: the file must still
// hold expect (nil expect: must still not exist) just before the rename,
// otherwise ErrChanged is returned and nothing is written. ccc processes
// serialise through Lock; the compare catches editors and agents that do not.
func ReplaceFile(path string, expect, data []byte, perm os.FileMode) error {
	return replace(path, data, perm, func() error {
		cur, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if expect != nil {
				return fmt.Errorf("%s: %w", path, ErrChanged)
			}
			return nil
		case err != nil:
			return err
		case expect == nil || !bytes.Equal(cur, expect):
			return fmt.Errorf("%s: %w", path, ErrChanged)
		}
		return nil
	})
}

func replace(path string, data []byte, perm os.FileMode, check func() error) (err error) {
	dir := filepath.Dir(path)
	if fi, statErr := os.Stat(path); statErr == nil {
		perm = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), perm); err != nil {
		return err
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	renamed = true
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	// Some file systems refuse fsync on a directory; the rename already
	// happened there, so that alone is not worth failing the write for.
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return nil
}

// StaleTemp is how old the temp file of an atomic write must be before
// RemoveStaleTemp deletes it. A write lasts milliseconds; an older temp
// file was left by a process killed between creating it and the rename.
// Not every writer holds the project lock (setting a corrupt file aside
// does not), so a younger one may be a write in flight and is left alone.
const StaleTemp = 10 * time.Minute

// RemoveStaleTemp deletes the stale temp files of atomic writes
// (".<name>.tmp-*") in the project root and anywhere under .ccc, so that
// processes killed mid-write do not leave them to pile up. It reports how
// many it removed; what it cannot read or remove is skipped. Callers hold
// Lock.
func RemoveStaleTemp(root string) int {
	cutoff := time.Now().Add(-StaleTemp)
	removed := 0
	visit := func(path string, d fs.DirEntry) {
		name := d.Name()
		if !d.Type().IsRegular() || !strings.HasPrefix(name, ".") || !strings.Contains(name, ".tmp-") {
			return
		}
		if fi, err := d.Info(); err != nil || fi.ModTime().After(cutoff) {
			return
		}
		if os.Remove(path) == nil {
			removed++
		}
	}
	if entries, err := os.ReadDir(root); err == nil {
		for _, e := range entries {
			visit(filepath.Join(root, e.Name()), e)
		}
	}
	_ = filepath.WalkDir(filepath.Join(root, Dir), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			visit(path, d)
		}
		return nil
	})
	return removed
}
