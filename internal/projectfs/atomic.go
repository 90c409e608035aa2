// Package projectfs holds the file primitives ccc uses on a user's project:
// reads confined to the project and bounded in size, atomic replacement of
// any file, the project's .ccc directory and its locks, the rotating backups
// under .ccc/backups with their one timestamp layout, and the tag that marks
// what this user's ccc wrote. It knows no file format: the state file, the
// records and the outbox are built on it.
package projectfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
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

// WriteFileAtomicDirLater is WriteFileAtomic without the directory's fsync:
// the file is complete on disk before its name points at it, so a crash
// leaves the old content or the new, never a torn file, but may undo the
// rename. For bookkeeping the next run redoes when a crash loses it, and for
// a write whose directory the caller fsyncs afterwards (SyncDir) together
// with the next one's: two renames, one directory fsync (issue 26).
func WriteFileAtomicDirLater(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, nil, syncFile)
}

// WriteCopy writes a copy that another file already holds (a backup, a
// history entry) the way WriteFileAtomic does, but without fsync: after a
// crash the copy may be missing or empty, which costs nothing the primary
// file does not still have, while its two fsyncs were most of what a
// checkpoint spent on the disk.
func WriteCopy(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, nil, syncNone)
}

// syncs is how much of a write is fsynced.
type syncs uint8

const (
	syncNone syncs = iota // a copy: nothing
	syncFile              // the file, before the rename; not its directory
	syncAll               // the file, then the directory after the rename
)

// fsyncs counts the fsyncs the file primitives made, files and directories.
var fsyncs atomic.Int64

// Fsyncs is how many fsyncs this process's file writes have made so far: a
// test takes the difference around a checkpoint so the number cannot creep
// back up unnoticed.
func Fsyncs() int64 { return fsyncs.Load() }

// syncOne is f.Sync, counted.
func syncOne(f *os.File) error {
	fsyncs.Add(1)
	return f.Sync()
}

// ReplaceFile is WriteFileAtomic guarded by a compare: the file must still
// hold expect (nil expect: must still not exist) just before the rename,
// otherwise ErrChanged is returned and nothing is written. ccc processes
// serialise through Lock; the compare catches editors and agents that do not.
func ReplaceFile(path string, expect, data []byte, perm os.FileMode) error {
	return write(path, data, perm, changed(path, expect), syncAll)
}

// ReplaceFileDirLater is ReplaceFile without the directory's fsync (see
// WriteFileAtomicDirLater): the caller fsyncs the directory (SyncDir)
// before it reports the write done.
func ReplaceFileDirLater(path string, expect, data []byte, perm os.FileMode) error {
	return write(path, data, perm, changed(path, expect), syncFile)
}

// changed is ReplaceFile's check: ErrChanged unless path still holds expect
// (nil: does not exist).
func changed(path string, expect []byte) func() error {
	return func() error {
		// Compared a piece at a time, never held whole: a 10,000-task
		// progress file is 0.5 MB (issue 26). A file of another size has
		// changed without a read.
		f, size, err := openSized("", path, false)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if expect != nil {
				return fmt.Errorf("%s: %w", path, ErrChanged)
			}
			return nil
		case err != nil:
			return err
		}
		defer f.Close()
		if expect == nil || size != int64(len(expect)) || !holds(f, expect) {
			return fmt.Errorf("%s: %w", path, ErrChanged)
		}
		return nil
	}
}

func replace(path string, data []byte, perm os.FileMode, check func() error) error {
	return write(path, data, perm, check, syncAll)
}

// write replaces path with data through a temp file, fsyncing as much as
// level says; check, when set, runs just before the rename.
func write(path string, data []byte, perm os.FileMode, check func() error, level syncs) (err error) {
	dir := filepath.Dir(path)
	if fi, statErr := os.Stat(path); statErr == nil {
		perm = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, tempPattern(filepath.Base(path)))
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			// Name the directory that refused, not a random temp name.
			return fmt.Errorf("write %s: create a file in %s: %w", path, dir, pe.Err)
		}
		return err
	}
	// The temp file stays open, and flocked, until it is renamed or
	// removed: that lock is how RemoveStaleTemp in another process knows
	// a live writer still holds it. (restic closes before the rename; the
	// data is fsynced either way.)
	holdTemp(tmp)
	renamed := false
	defer func() {
		_ = tmp.Close()
		if !renamed {
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if level >= syncFile {
		if err := syncOne(tmp); err != nil {
			return err
		}
	}
	if err := tmp.Chmod(perm); err != nil {
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
	if level < syncAll {
		return nil
	}
	return SyncDir(dir)
}

// SyncDir fsyncs the directory dir: what makes the renames done in it
// durable (after ReplaceFileDirLater, WriteFileAtomicDirLater).
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	// Some file systems refuse fsync on a directory; the rename already
	// happened there, so that alone is not worth failing the write for.
	if err := syncOne(d); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return nil
}

// tempPattern names the temp file of a write to name: ".<name>.tmp-<pid>-*".
// The pid lets the next run remove the leftover of a killed writer at
// once, however young: a dead pid holds nothing.
func tempPattern(name string) string {
	return "." + name + ".tmp-" + strconv.Itoa(os.Getpid()) + "-*"
}

// writerPid is the pid in a temp file's name, 0 when it has none (a file
// from before names carried one).
func writerPid(name string) int {
	rest := name[strings.LastIndex(name, ".tmp-")+len(".tmp-"):]
	pid, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(pid)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// StaleTemp is how old the temp file of an atomic write must be before
// RemoveStaleTemp deletes it, when no process holds it. A write lasts
// milliseconds and its writer flocks the temp file from just after creating
// it until the rename; the age covers that first instant and file systems
// without flock.
const StaleTemp = time.Minute

// TempReport is what RemoveStaleTemp found: paths of the temp files it
// removed, of those it left because a live writer holds them or they are
// younger than StaleTemp, and what it could not remove.
type TempReport struct {
	Removed, Kept []string
	Failed        []error
}

// RemoveStaleTemp deletes the temp files of atomic writes (".<name>.tmp-*")
// in the project root and anywhere under .ccc that were left by a process
// killed between creating one and the rename: flocked by no one (a lock
// dies with its process, so a held one belongs to a write in flight), and
// either named for a pid that is no longer running or older than StaleTemp
// (a live pid may be a reused one; the age also covers the instant between
// creating a file and locking it, and file systems without flock). It needs
// no project lock: not every writer takes it, the temp file's own lock is
// what counts. `ccc doctor` sweeps this way.
func RemoveStaleTemp(root string) TempReport {
	return removeStaleTemp(root, -1, nil)
}

// RemoveStaleTempNear is RemoveStaleTemp over what a checkpoint writes: the
// project root, .ccc and the folders directly in it (backups, outbox,
// checkpoints, …), and the extra directories given (the agent's own
// history). The rest of .ccc's tree is left to `ccc doctor`: a project of
// many agents keeps up to 100 history records each, and every checkpoint
// walked them all (issue 26).
func RemoveStaleTempNear(root string, extra ...string) TempReport {
	return removeStaleTemp(root, 1, extra)
}

// removeStaleTemp sweeps the root, .ccc down to depth folders below it (-1:
// all), and the extra directories.
func removeStaleTemp(root string, depth int, extra []string) TempReport {
	cutoff := time.Now().Add(-StaleTemp)
	var rep TempReport
	visit := func(path string, d fs.DirEntry) {
		name := d.Name()
		if !d.Type().IsRegular() || !strings.HasPrefix(name, ".") || !strings.Contains(name, ".tmp-") {
			return
		}
		fi, err := d.Info()
		if err != nil {
			return // gone since the listing: renamed by its writer
		}
		if fi.ModTime().After(cutoff) && !processGone(writerPid(name)) {
			rep.Kept = append(rep.Kept, path)
			return
		}
		switch err := removeUnheld(path); {
		case errors.Is(err, errHeld):
			rep.Kept = append(rep.Kept, path)
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			rep.Failed = append(rep.Failed, err)
		default:
			rep.Removed = append(rep.Removed, path)
		}
	}
	for _, dir := range append([]string{root}, extra...) {
		if entries, err := os.ReadDir(dir); err == nil {
			for _, e := range entries {
				visit(filepath.Join(dir, e.Name()), e)
			}
		}
	}
	top := filepath.Join(root, Dir)
	_ = filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
		case d.IsDir():
			if depth >= 0 && path != top && strings.Count(path[len(top):], string(filepath.Separator)) > depth {
				return fs.SkipDir
			}
		default:
			visit(path, d)
		}
		return nil
	})
	return rep
}

// linkFile is os.Link; a test replaces it to see the copy a refused link
// falls back to.
var linkFile = os.Link

// KeepCopy keeps the file at src, which the caller has just read as data,
// at dest as WriteCopy does. When src is a regular file that ccc only
// ever replaces by rename (a record, never the progress or state file, which
// users and agents edit in place), the copy is a hard link to it rather
// than a second write of its bytes: the file at src is about to be replaced,
// and its old inode then lives on under dest alone. A link that cannot be
// made (another file system, a file system without links, EPERM, src gone or
// swapped meanwhile) falls back to writing data. dest is replaced by rename
// either way, never written through. It reports whether it linked; the
// caller that then fails to replace src undoes the sharing with Unshare.
func KeepCopy(src, dest string, data []byte, perm os.FileMode, link bool) (linked bool, err error) {
	if link {
		if linked = linkAt(src, dest, int64(len(data))); linked {
			return true, nil
		}
	}
	return false, WriteCopy(dest, data, perm)
}

// linkAt links dest to the regular file src of the given size, through a
// temp name renamed over dest; false when it did not. What was linked is
// checked after the link, one lstat for the check before it and the one
// after (the stat calls of a quiet checkpoint are counted, issue 26): a
// symlink at src is linked as itself, and a file swapped in meanwhile is
// most often of another size.
func linkAt(src, dest string, size int64) bool {
	tmp := filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+".tmp-"+strconv.Itoa(os.Getpid())+"-link")
	_ = os.Remove(tmp) // a leftover of this pid's earlier, killed, run
	if err := linkFile(src, tmp); err != nil {
		return false
	}
	if ti, err := os.Lstat(tmp); err != nil || !ti.Mode().IsRegular() || ti.Size() != size {
		_ = os.Remove(tmp)
		return false
	}
	// dest already that very file (a run killed before it replaced src
	// linked it): the rename does nothing and the temp name stays, for
	// RemoveStaleTemp, as any killed writer's.
	if err := os.Rename(tmp, dest); err != nil {
		_ = os.Remove(tmp)
		return false
	}
	return true
}

// Unshare makes dest a file of its own again when it is a hard link to live
// (KeepCopy linked it, then replacing live failed): a written copy of data
// takes its name, so a later in-place edit of live cannot change the copy.
// When even that fails, dest is removed: a backup that is the live file is
// no backup.
func Unshare(dest, live string, data []byte) error {
	di, err := os.Lstat(dest)
	if err != nil {
		return nil // gone: nothing shared
	}
	li, err := os.Lstat(live)
	if err != nil || !os.SameFile(di, li) {
		return nil
	}
	if err := WriteCopy(dest, data, di.Mode().Perm()); err != nil {
		if rerr := os.Remove(dest); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return fmt.Errorf("unshare %s: %w", dest, err)
		}
	}
	return nil
}
