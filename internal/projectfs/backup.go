package projectfs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// BackupDir holds timestamped copies of the files ccc overwrites.
const BackupDir = "backups"

// KeepBackups is how many backups of one file are kept.
const KeepBackups = 10

// StampLayout is the one timestamp layout of the copies ccc keeps (backups,
// corrupt files set aside, files a restore or a resume replaced, records
// migrated to a new schema): UTC, fixed width, so a name's order is its
// time's order.
const StampLayout = "20060102T150405.000000000Z"

// Stamp formats t in StampLayout, in UTC.
func Stamp(t time.Time) string { return t.UTC().Format(StampLayout) }

// ParseStamp reads a stamp written by Stamp.
func ParseStamp(s string) (time.Time, error) { return time.Parse(StampLayout, s) }

// Backup copies the file at path into root/.ccc/backups as
// <name>.<UTC timestamp> and prunes that file's backups to the newest
// KeepBackups. Backups hold distinct contents: when one already kept has
// the same bytes, that one is returned (the newest) or renamed to the new
// stamp (an older one, so newest-first order stays the order of the
// file's versions) instead of adding a copy; ten writes of one content
// never push out older versions. A content that differs from the newest
// backup only in its timestamps (every checkpoint stamps the state's
// lastUpdatedAt, the progress file's Session, a record's updatedAt)
// replaces that backup instead of adding one, so ten checkpoints that
// changed nothing else keep the older versions too. A missing file needs
// no backup: it returns "", nil.
func Backup(root, path string, now time.Time) (string, error) {
	data, err := ReadProjectFile(root, path, MaxCopySize)
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("backup: %w", err)
	}
	return backup(root, path, data, now, false)
}

// BackupOf is Backup of a file the caller has just read, through the
// project's reader, as data: the file is not read again (a record of 10,000
// tasks is 2 MB, and the second read was most of its backup's cost, issue
// 26). link is KeepCopy's: true only for a file ccc replaces by rename and
// never edits in place (a record), whose backup is then a hard link to it;
// the caller that then fails to replace the file calls Unshare on the path
// returned.
func BackupOf(root, path string, data []byte, now time.Time, link bool) (string, error) {
	if int64(len(data)) > MaxCopySize {
		return "", fmt.Errorf("backup: %w", tooLarge(path, MaxCopySize))
	}
	if err := Inside(root, path); err != nil {
		return "", fmt.Errorf("backup: %w", err)
	}
	return backup(root, path, data, now, link)
}

func backup(root, path string, data []byte, now time.Time, link bool) (string, error) {
	base := filepath.Base(path)
	name := base + "." + Stamp(now)
	// One listing serves the whole backup (it was three: the kept copy, the
	// newest, the prune), a directory read and a path check each (issue 26).
	// A backup another process adds meanwhile is pruned by the next one.
	paths, listErr := Backups(root, base)
	if same, newest := keptBackup(paths, data); same != "" {
		if newest {
			return same, nil
		}
		dest := filepath.Join(filepath.Dir(same), name)
		if err := os.Rename(same, dest); err == nil {
			return dest, nil
		}
	}
	// A backup is a copy of a file that is itself written durably: no
	// fsync (writeCopy's durable false).
	dest, err := keepCopy(root, name, data, path, link)
	if err != nil {
		return "", err
	}
	if listErr != nil {
		return dest, prune(root, base, nil) // lists again, and says why it cannot
	}
	kept := append(make([]string, 0, len(paths)+1), dest)
	newest := true
	for _, prev := range paths {
		if prev == dest {
			continue
		}
		if newest {
			// The newest other backup may be anything the repository
			// committed under that name (a FIFO, a link to /dev/zero): it is
			// read as ccc's own file or not at all.
			newest = false
			if sameButStampsAs(root, prev, data) {
				// Superseded: the new copy holds the same version; one left
				// behind is only one backup more.
				superseded := prev
				_ = later(func() error { _ = os.Remove(superseded); return nil })
				continue
			}
		}
		kept = append(kept, prev)
	}
	return dest, later(func() error { return prune(root, base, kept) })
}

// lateWork is the removals of old backups that wait for the end of a run
// (PruneLater): how many callers hold it, how many removals are running,
// and the errors they returned.
var lateWork struct {
	mu      sync.Mutex
	idle    *sync.Cond // pending fell to 0
	holders int
	pending int
	errs    []error
}

// PruneLater makes the backups taken until done is called remove the
// copies they replace (the oldest past KeepBackups, a newest one that
// differed only in its stamps) in the background, rather than before they
// return: an unlink is a journal update, 0.2–0.5 ms each, and a checkpoint
// made two or three of them on its way to the tracker (issue 26). done
// waits for every removal running and returns what failed (a failed
// removal only leaves an extra backup, which the next backup prunes).
// Calls may nest and overlap.
func PruneLater() (done func() error) {
	lateWork.mu.Lock()
	lateWork.holders++
	lateWork.mu.Unlock()
	return func() error {
		lateWork.mu.Lock()
		defer lateWork.mu.Unlock()
		for lateWork.pending > 0 {
			lateWork.idle.Wait()
		}
		lateWork.holders--
		err := errors.Join(lateWork.errs...)
		lateWork.errs = nil
		return err
	}
}

// later runs f now, or in the background while PruneLater is held.
func later(f func() error) error {
	lateWork.mu.Lock()
	if lateWork.holders == 0 {
		lateWork.mu.Unlock()
		return f()
	}
	if lateWork.idle == nil {
		lateWork.idle = sync.NewCond(&lateWork.mu)
	}
	lateWork.pending++
	lateWork.mu.Unlock()
	go func() {
		err := f()
		lateWork.mu.Lock()
		defer lateWork.mu.Unlock()
		if err != nil {
			lateWork.errs = append(lateWork.errs, err)
		}
		if lateWork.pending--; lateWork.pending == 0 {
			lateWork.idle.Broadcast()
		}
	}()
	return nil
}

// stampRe matches the timestamps ccc and CCC write: RFC 3339 (to the
// second or finer, Z or an offset) and the progress file's "2006-01-02 15:04
// UTC".
var stampRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}| UTC)?`)
})

// sameButStamps reports whether a and b differ at most in their timestamps:
// whether they read the same once each stamp is replaced by "T"
// (stampRe().ReplaceAll). It compares the two as it goes rather than
// building both replaced texts, and runs the expression only where a stamp
// can start (nextStamp): a record of 10,000 tasks is megabytes, and the
// expression over every byte of both, and their copies, were most of its
// checkpoint's CPU and memory (issue 26).
func sameButStamps(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	return sameStreams(&stampless{data: a, whole: true}, &stampless{data: b, whole: true})
}

// sameButStampsAs is sameButStamps of the backup at p, read as ReadOwnFile
// reads it, and data; the backup is read only as far as the comparison
// goes: the newest backup of a record most often differs from the next
// within its first few kilobytes, and reading its 2 MB whole (10,000 tasks)
// was a twentieth of a checkpoint (issue 26).
func sameButStampsAs(root, p string, data []byte) bool {
	f, size, err := openSized(root, p, true)
	if err != nil {
		return false
	}
	defer f.Close()
	if size > MaxCopySize {
		return false
	}
	b := &stampless{data: make([]byte, 0, min(size+1, 64<<10)), src: f, size: size}
	return sameStreams(&stampless{data: data, whole: true}, b) && !b.over
}

func sameStreams(ra, rb *stampless) bool {
	var ca, cb []byte
	for {
		if len(ca) == 0 {
			ca = ra.chunk()
		}
		if len(cb) == 0 {
			cb = rb.chunk()
		}
		if len(ca) == 0 || len(cb) == 0 {
			return len(ca) == 0 && len(cb) == 0
		}
		n := min(len(ca), len(cb))
		if !bytes.Equal(ca[:n], cb[:n]) {
			return false
		}
		ca, cb = ca[n:], cb[n:]
	}
}

// stampless reads data with each stamp replaced by "T", a chunk at a time.
// With src, data is what has been read of it so far, and more is read only
// when a chunk needs it.
type stampless struct {
	data  []byte
	pos   int
	j, m  int // the next stamp at or after pos; m == 0: not looked for yet
	done  bool
	whole bool      // data holds the whole text
	src   io.Reader // the rest of the text, when not whole
	over  bool      // src held more than MaxCopySize
	size  int64     // src's size when it was opened
}

// chunk returns the next part: the text up to the next stamp, or "T" for
// the stamp; nil at the end.
func (s *stampless) chunk() []byte {
	for {
		if s.pos >= len(s.data) {
			if s.whole {
				return nil
			}
			s.fill()
			continue
		}
		if s.m == 0 && !s.done {
			j, m, safe := nextStampIn(s.data, s.pos, s.whole)
			switch {
			case m > 0:
				s.j, s.m = j, m
			case s.whole:
				s.done = true
			case safe > s.pos: // no stamp starts before safe: that text is plain
				c := s.data[s.pos:safe]
				s.pos = safe
				return c
			default: // a stamp may start, or go on, past what has been read
				s.fill()
				continue
			}
		}
		if s.done {
			c := s.data[s.pos:]
			s.pos = len(s.data)
			return c
		}
		if s.pos < s.j {
			c := s.data[s.pos:s.j]
			s.pos = s.j
			return c
		}
		s.pos, s.m = s.j+s.m, 0
		return []byte("T")
	}
}

// fill reads more of src into data: up to 64 KB at first, then the rest of
// its size (one allocation more, not a doubling's garbage). At the end of
// src, or past MaxCopySize, data is whole.
func (s *stampless) fill() {
	want := max(64<<10, len(s.data))
	if len(s.data)+want > cap(s.data) {
		s.data = slices.Grow(s.data, max(want, int(s.size)+1-len(s.data)))
	}
	n, err := s.src.Read(s.data[len(s.data) : len(s.data)+want])
	s.data = s.data[:len(s.data)+n]
	if err != nil || n == 0 {
		s.whole = true
	}
	if len(s.data) > MaxCopySize {
		s.whole, s.over = true, true
	}
}

// nextStamp finds the first stamp at or after from: its start and length,
// or -1.
func nextStamp(data []byte, from int) (start, n int) {
	start, n, _ = nextStampIn(data, from, true)
	return start, n
}

// nextStampIn is nextStamp of a text of which data may be only the start
// (whole false): it returns a stamp only when what follows data cannot
// change it, and otherwise -1 and safe, the end of the text after from in
// which no stamp starts. A stamp starts with four digits and a "-", so the
// expression runs, anchored, only where the byte after four digits is a
// "-": those places in order are where the unanchored search would try, and
// the first that matches is its match.
func nextStampIn(data []byte, from int, whole bool) (start, n, safe int) {
	re := stampStartRe()
	for p := from + 4; p < len(data); p++ {
		k := bytes.IndexByte(data[p:], '-')
		if k < 0 {
			break
		}
		p += k
		j := p - 4
		if !digits(data[j:p]) {
			continue
		}
		m, sure := matchAnchored(re, data[j:], whole)
		if !sure {
			return -1, 0, j
		}
		if m > 0 {
			return j, m, j
		}
	}
	if whole {
		return -1, 0, len(data)
	}
	// The last four bytes may be the digits of a stamp whose "-" is unread.
	return -1, 0, max(from, len(data)-4)
}

// stampStartRe is stampRe anchored at the start.
var stampStartRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:` + stampRe().String() + `)`) })

// stampHead is the length of a stamp's part that is not optional
// ("2006-01-02T15:04"): with it all read, whether a stamp starts is known.
const stampHead = 16

// matchAnchored returns the length of re's match at the start of s (0 for
// none), trying a short window first: Go's regexp prepares state in
// proportion to its input, and a stamp is short unless its fraction of a
// second is long. sure is false when s is not the whole text (whole false)
// and what follows it could change the answer.
func matchAnchored(re *regexp.Regexp, s []byte, whole bool) (n int, sure bool) {
	for w := 64; ; w *= 8 {
		win := s[:min(len(s), w)]
		loc := re.FindIndex(win)
		if loc == nil {
			return 0, whole || len(win) >= stampHead
		}
		// A match that ends near the window's end may have been cut
		// short: a long fraction, or a zone (at most 6 bytes) cut off.
		if loc[1] < len(win)-8 {
			return loc[1], true
		}
		if len(win) == len(s) {
			return loc[1], whole
		}
	}
}

func digits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// SetAside keeps a copy of a corrupt file (suffix .corrupt) that rotation
// never prunes, so the user can always recover what was there. A file that
// stays broken is read on every run: when a copy with the same bytes is
// already kept, SetAside returns that one instead of adding another.
func SetAside(root, path string, now time.Time) (string, error) {
	data, err := ReadProjectFile(root, path, MaxCopySize)
	if err != nil {
		return "", fmt.Errorf("set aside: %w", err)
	}
	base := filepath.Base(path)
	if same := keptCopy(root, base, data); same != "" {
		return same, nil
	}
	// Durable: the file set aside is usually about to be overwritten, and
	// then this copy is the only one.
	return writeCopy(root, base+"."+Stamp(now)+".corrupt", data, true)
}

// keptCopy finds a .corrupt copy of the file named base holding exactly
// data, newest first; "" when there is none.
func keptCopy(root, base string, data []byte) string {
	dir := filepath.Join(root, Dir, BackupDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for i := len(entries) - 1; i >= 0; i-- { // ReadDir sorts by name: the stamp orders them
		name := entries[i].Name()
		stamp, ok := strings.CutPrefix(name, base+".")
		if !ok || !entries[i].Type().IsRegular() {
			continue
		}
		if stamp, ok = strings.CutSuffix(stamp, ".corrupt"); !ok {
			continue
		}
		if _, err := ParseStamp(stamp); err != nil {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := entries[i].Info(); err != nil || fi.Size() != int64(len(data)) {
			continue
		}
		if kept, err := ReadOwnFile(root, p, MaxCopySize); err == nil && bytes.Equal(kept, data) {
			return p
		}
	}
	return ""
}

// keptBackup finds the rotating backup among paths (Backups' list) that
// holds exactly data, and whether it is the newest; "" when there is none.
// The candidates are read beneath the backups folder (Folder: an open of
// one name, an fstat, one read) with data's size as the limit, so one of
// another size costs no read: a state file's backups are all one size
// (fixed-width stamps), and each was a stat, a path walk of three lstats,
// an open, an fstat, two reads and a close, ten per backup (issue 26).
func keptBackup(paths []string, data []byte) (path string, newest bool) {
	if len(paths) == 0 {
		return "", false
	}
	dir, err := OpenFolder(filepath.Dir(paths[0]))
	if err != nil {
		return "", false
	}
	defer func() { _ = dir.Close() }() // read-only: nothing a close could lose
	var buf []byte
	for i, p := range paths {
		got, err := dir.Read(filepath.Base(p), int64(len(data)), buf)
		if err != nil {
			continue // another size (over the limit), gone, or not ccc's own file
		}
		if bytes.Equal(got, data) {
			return p, i == 0
		}
		buf = got
	}
	return "", false
}

// holds reports whether f, read from where it is to its end, holds exactly
// data, reading 64 KB at a time.
func holds(f *os.File, data []byte) bool {
	buf := make([]byte, min(64<<10, len(data)+1))
	for {
		n, err := io.ReadFull(f, buf[:min(len(buf), len(data)+1)])
		if n > len(data) || !bytes.Equal(buf[:n], data[:n]) {
			return false
		}
		data = data[n:]
		if err != nil {
			return (err == io.EOF || err == io.ErrUnexpectedEOF) && len(data) == 0
		}
	}
}

// keepCopy is writeCopy of a backup (not durable), or KeepCopy's link to
// src when link is true.
func keepCopy(root, name string, data []byte, src string, link bool) (string, error) {
	if !link {
		return writeCopy(root, name, data, false)
	}
	dest, err := backupPath(root, name)
	if err != nil {
		return "", err
	}
	if _, err := KeepCopy(src, dest, data, 0o600, true); err != nil {
		return "", fmt.Errorf("backup: %w", err)
	}
	return dest, nil
}

// backupPath is root/.ccc/backups/name, the folder made if need be.
func backupPath(root, name string) (string, error) {
	dir, err := ProjectDir(root, BackupDir)
	if err != nil {
		return "", fmt.Errorf("backup: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("backup: %w", err)
	}
	return filepath.Join(dir, name), nil
}

// writeCopy writes data as root/.ccc/backups/name; durable fsyncs it (and
// the directory) as WriteFileAtomic does, otherwise it is a WriteCopy.
func writeCopy(root, name string, data []byte, durable bool) (string, error) {
	dest, err := backupPath(root, name)
	if err != nil {
		return "", err
	}
	level := syncNone
	if durable {
		level = syncAll
	}
	if err := write(dest, data, 0o600, nil, level); err != nil {
		return "", fmt.Errorf("backup: %w", err)
	}
	return dest, nil
}

// Backups lists the rotating backups of the file named base, newest first.
func Backups(root, base string) ([]string, error) {
	dir, err := ProjectDir(root, BackupDir)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		name := e.Name()
		stamp, ok := strings.CutPrefix(name, base+".")
		if !ok || e.IsDir() {
			continue
		}
		if _, err := ParseStamp(stamp); err != nil {
			continue // a .corrupt copy or someone else's file
		}
		names = append(names, name)
	}
	// The stamp is fixed-width, so name order is time order.
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = filepath.Join(dir, n)
	}
	return paths, nil
}

// prune removes the backups of base past KeepBackups; paths is their list,
// newest first, or nil to list them.
func prune(root, base string, paths []string) error {
	if paths == nil {
		var err error
		if paths, err = Backups(root, base); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
	}
	for _, p := range paths[min(len(paths), KeepBackups):] {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("backup: %w", err)
		}
	}
	return nil
}
