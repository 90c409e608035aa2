package projectfs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Size limits of the project files ccc reads. Every one of them is
// repository-controlled input (a clone can commit any of them), so each is
// read through a limit: a file over it is refused, never parsed. The limits
// sit far above what ccc itself writes (a state file of a few KB, a record
// of a few KB, an outbox entry of one status body) and far below what would
// hurt a hook's memory budget. The state file's limit (1 MB) is MaxSize;
// the progress file's (10 MB) is progress.MaxSize.
const (
	MaxPrefsSize  = 1 << 20  // .ccc-preferences.yaml
	MaxRecordSize = 4 << 20  // a record under .ccc/checkpoints
	MaxOutboxSize = 4 << 20  // an outbox entry: one body (at most 65 536 characters) and its metadata
	MaxCopySize   = 16 << 20 // any other file ccc copies or compares (backups, session copies, status files)
	MaxMemoSize   = 1 << 20  // a memo of the Linear agent sink under .ccc/linear-agent
	MaxSecretSize = 64 << 10 // the signing key and the token store in the user's config directory
	MaxEventSize  = 16 << 20 // GitHub Actions' event payload (GITHUB_EVENT_PATH)
	MaxBodySize   = 1 << 20  // ccc post --body-file
	MaxIndexSize  = 1 << 30  // the git index a manual checkpoint saves and puts back
)

// Errors of ReadProjectFile and Inside, for errors.Is; the error itself says
// which file and what is wrong with it.
var (
	ErrOutside    = errors.New("outside the project")
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("over the size limit")
)

// FileError is a project file ccc refuses to read or write.
type FileError struct {
	Path    string
	Problem string // "is a FIFO, not a regular file", "resolves outside the project (to /dev/zero)"
	Kind    error  // ErrOutside, ErrNotRegular or ErrTooLarge
}

func (e *FileError) Error() string { return e.Path + " " + e.Problem }
func (e *FileError) Unwrap() error { return e.Kind }

// ReadProjectFile reads the file at path, which must be a regular file of at
// most limit bytes and, when root is not "", resolve (symlinks followed) to a
// place inside root. It never blocks on a FIFO and never reads more than
// limit+1 bytes, so a file committed as a FIFO or as a symlink to /dev/zero
// is an error naming the path, not a hang or an out-of-memory kill. A
// missing file is the open's own error (errors.Is fs.ErrNotExist, and
// os.IsNotExist).
//
// root "" is for files outside every project (the hook's transcript): they
// get the file-type check and the limit, not the confinement.
func ReadProjectFile(root, path string, limit int64) ([]byte, error) {
	f, size, err := openSized(root, path, false)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readSized(f, path, limit, size)
}

// ReadOwnFile is ReadProjectFile for a file only ccc writes (under .ccc/,
// in the user's config directory): the file itself must not be a symlink
// at all, even one that stays inside root. It is opened with O_NOFOLLOW, so
// a link planted between the check and the open is refused too.
func ReadOwnFile(root, path string, limit int64) ([]byte, error) {
	f, size, err := openSized(root, path, true)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readSized(f, path, limit, size)
}

// ReadOpened reads f, opened by OpenProjectFile or OpenOwnFile, to its end
// through limit: a file over it is an error of kind ErrTooLarge naming path.
func ReadOpened(f *os.File, path string, limit int64) ([]byte, error) {
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	return readSized(f, path, limit, size)
}

// readSized is ReadOpened of a file whose size the open just read: its
// own stat was one more system call per file (issue 26: ccc status reads a
// record per agent).
func readSized(f *os.File, path string, limit, size int64) ([]byte, error) {
	if size > limit {
		return nil, tooLarge(path, limit)
	}
	// Read into a buffer of the file's size (and room to see it grew):
	// io.ReadAll's doubling costs twice the file in garbage.
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if int64(len(data)) > limit {
		return nil, tooLarge(path, limit)
	}
	return data, nil
}

// OpenProjectFile opens path for reading after the checks of
// ReadProjectFile (inside root unless root is "", a regular file); the
// caller bounds what it reads.
func OpenProjectFile(root, path string) (*os.File, error) {
	return openChecked(root, path, false)
}

// OpenOwnFile opens path for reading after the checks of ReadOwnFile; the
// caller bounds what it reads.
func OpenOwnFile(root, path string) (*os.File, error) {
	return openChecked(root, path, true)
}

// openSized is openChecked, with the file's size from its check.
func openSized(root, path string, nofollow bool) (*os.File, int64, error) {
	var size int64
	f, err := openStat(root, path, nofollow, &size)
	return f, size, err
}

// openChecked is the one open of every file ccc reads.
func openChecked(root, path string, nofollow bool) (*os.File, error) {
	return openStat(root, path, nofollow, nil)
}

// openStat is openChecked; size, when not nil, gets the file's size.
func openStat(root, path string, nofollow bool, size *int64) (*os.File, error) {
	flags := os.O_RDONLY | openNonblock
	if nofollow {
		flags |= openNofollow
		// Said first, and before the open: "a symlink" is the problem
		// wherever it leads, and O_NOFOLLOW's ELOOP would not say why.
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			// Missing wherever its folders lead: nothing to read, and
			// nothing to say (a folder leading out is the writer's to refuse).
			return nil, err
		}
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, &FileError{Path: path, Problem: "is a symlink, not a regular file", Kind: ErrNotRegular}
		}
	}
	if root != "" {
		if err := Inside(root, path); err != nil {
			return nil, err
		}
	}
	// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
	// writer forever. It changes nothing for a regular file.
	f, err := os.OpenFile(path, flags, 0)
	if isLoop(err) {
		return nil, &FileError{Path: path, Problem: "is a symlink, not a regular file", Kind: ErrNotRegular}
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &FileError{Path: path, Problem: "is " + fileKind(fi.Mode()) + ", not a regular file", Kind: ErrNotRegular}
	}
	if size != nil {
		*size = fi.Size()
	}
	return f, nil
}

func tooLarge(path string, limit int64) error {
	return &FileError{Path: path, Problem: "is over the " + sizeText(limit) + " limit", Kind: ErrTooLarge}
}

func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0, m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "a special file"
}

// Inside reports, as a *FileError of kind ErrOutside, a path that is not
// inside root: lexically (an absolute path elsewhere, ".." climbing out) or
// once symlinks are followed (the file itself, or any directory on the way,
// pointing outside). The path need not exist: its deepest existing part is
// resolved and the rest appended. root itself counts as inside.
func Inside(root, path string) error {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	absPath, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if !within(absRoot, absPath) {
		return &FileError{Path: path, Problem: "is outside the project", Kind: ErrOutside}
	}
	realRoot := resolvedRoot(absRoot)
	rel, err := filepath.Rel(absRoot, absPath)
	if err != nil {
		return err
	}
	real, err := resolveUnder(realRoot, rel, 40)
	if err != nil {
		return &FileError{Path: path, Problem: "cannot be resolved (" + err.Error() + ")", Kind: ErrOutside}
	}
	if !within(realRoot, real) {
		return &FileError{Path: path, Problem: "resolves outside the project (to " + real + ")", Kind: ErrOutside}
	}
	return nil
}

// realRoots holds each project root's symlink-resolved path, as
// resolvedRoot first found it.
var realRoots sync.Map // clean absolute root → its real path

// resolvedRoot is absRoot with its symlinks followed, resolved once per
// process: every path check of a run resolves the same root, and walking
// its ancestors from / again for each one was most of a quiet checkpoint's
// stat calls (issue 26). The ancestors are not the project's (nothing
// committed changes them), so a run does not see them move. A root that
// cannot be resolved (not created yet) is itself, and not remembered.
func resolvedRoot(absRoot string) string {
	if r, ok := realRoots.Load(absRoot); ok {
		return r.(string)
	}
	r, err := filepath.EvalSymlinks(absRoot)
	if err != nil {
		return absRoot
	}
	realRoots.Store(absRoot, r)
	return r
}

// resolveUnder is resolve of realRoot/rel, where realRoot has no symlinks
// and rel is clean and relative with no "..": it looks only at the
// components below realRoot, one Lstat each, and hands over to resolve at
// the first symlink (rare: a checkout ccc writes into has none).
func resolveUnder(realRoot, rel string, depth int) (string, error) {
	if rel == "." {
		return realRoot, nil
	}
	parts := strings.Split(rel, string(filepath.Separator))
	cur := realRoot
	for i, part := range parts {
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			// not there: where a write would create it
			return filepath.Join(append([]string{next}, parts[i+1:]...)...), nil
		case err != nil || fi.Mode()&fs.ModeSymlink != 0:
			return resolve(filepath.Join(append([]string{next}, parts[i+1:]...)...), depth)
		}
		cur = next
	}
	return cur, nil
}

// Resolve is p, absolute, with the symlinks of its deepest existing part
// followed (dangling ones included) and the rest appended: where a read or
// a write of p would land.
func Resolve(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return resolve(abs, 40)
}

// Within says whether p is dir or below it, lexically; both are clean
// absolute paths.
func Within(dir, p string) bool { return within(dir, p) }

// within: p is dir or below it; both are clean absolute paths.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolve follows the symlinks of p's deepest existing part, dangling ones
// included (a dangling link is where a write would create its target), and
// appends the part that does not exist yet.
func resolve(p string, depth int) (string, error) {
	existing, rest := p, ""
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return p, nil
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err == nil {
		return filepath.Join(real, rest), nil
	}
	fi, lerr := os.Lstat(existing)
	if depth == 0 || lerr != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return "", err
	}
	target, rerr := os.Readlink(existing)
	if rerr != nil {
		return "", err
	}
	if !filepath.IsAbs(target) {
		dir, derr := filepath.EvalSymlinks(filepath.Dir(existing))
		if derr != nil {
			return "", derr
		}
		target = filepath.Join(dir, target)
	}
	return resolve(filepath.Join(target, rest), depth-1)
}

// ProjectDir returns root/.ccc/sub (sub may be empty) after checking that
// it stays inside root: a .ccc, or a folder under it, committed as a symlink
// to somewhere else must not make ccc write its files there.
func ProjectDir(root string, sub ...string) (string, error) {
	dir := filepath.Join(append([]string{root, Dir}, sub...)...)
	if err := Inside(root, dir); err != nil {
		return "", err
	}
	return dir, nil
}

// Position turns a 0-based byte offset into a 1-based line and column,
// for errors that say where a file ccc reads is broken.
func Position(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}
