// Package outbox keeps the status updates a sink could not deliver, under
// .ccc/outbox: one signed entry per (sink, target, agent), the latest body
// only, with its retry schedule, until a later run delivers it.
package outbox

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
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// Dir holds deliveries that failed, until they are delivered.
const Dir = "outbox"

// Entry is one undelivered status: the latest body for one (sink, target,
// agent). A newer body for the same key replaces the older one, since only
// the latest status matters.
type Entry struct {
	Sink   string `json:"sink"`
	Target string `json:"target"`
	Agent  string `json:"agent"`
	Body   string `json:"body"`
	// FullText says where the whole body is when a tracker truncates it
	// (empty: the progress file).
	FullText string `json:"fullText,omitempty"`
	// Attempts counts the failed deliveries of this key so far.
	Attempts  int       `json:"attempts"`
	LastError string    `json:"lastError"`
	QueuedAt  time.Time `json:"queuedAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// RenderedAt is when Body was rendered (wall clock): of two bodies for
	// one key, the one rendered later is the newer status.
	RenderedAt time.Time `json:"renderedAt,omitzero"`
	// NextAttempt is when a run should try it again (ccc sync does not wait).
	NextAttempt time.Time `json:"nextAttempt"`
	// Sig is the entry's signature with the user's key (Sign): an entry
	// without a valid one did not come from this user's ccc and is never
	// delivered.
	Sig string `json:"sig,omitempty"`
}

// Key names the entry's file: readable, and unique through a short hash.
func (e Entry) Key() string {
	sum := sha256.Sum256([]byte(e.Sink + "\x00" + e.Target + "\x00" + e.Agent))
	return fmt.Sprintf("%s-%s-%s-%s", e.Sink, safeName(e.Target), safeName(e.Agent), hex.EncodeToString(sum[:4]))
}

var unsafeChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_-]+`) })

func safeName(s string) string {
	s = unsafeChars().ReplaceAllString(s, "_")
	if len(s) > 40 {
		s = s[:40]
	}
	return s
}

// Retry schedule of queued entries: 30s after the first failure, doubling,
// at most 30 minutes apart.
const (
	retryFirst = 30 * time.Second
	retryMax   = 30 * time.Minute
)

// MaxServerWait caps how long a tracker's Retry-After or rate-limit reset
// may hold an entry back: a server's (or a proxy's) absurd hint must not
// park a status for days.
const MaxServerWait = 24 * time.Hour

// nextAttempt is when an entry that failed for the attempts-th time is due:
// after the backoff, or at asked (when the tracker named a later time, at
// most MaxServerWait from now), whichever is later.
func nextAttempt(now time.Time, attempts int, asked time.Time) time.Time {
	next := now.Add(RetryAfter(attempts))
	if limit := now.Add(MaxServerWait); asked.After(limit) {
		asked = limit
	}
	if asked.After(next) {
		next = asked
	}
	return next.UTC()
}

// RetryAfter is how long after its n-th failed attempt an entry is due.
func RetryAfter(attempts int) time.Duration {
	d := retryFirst
	for i := 1; i < attempts && d < retryMax; i++ {
		d *= 2
	}
	return min(d, retryMax)
}

// Held reports whether e waits for its tracker rather than for its
// backoff: the tracker asked for a later time (Retry-After, a rate limit's
// reset) that has not come. No run but `ccc sync` sends it anything before.
func (e Entry) Held(now time.Time) bool {
	return e.NextAttempt.After(now) && e.NextAttempt.After(e.UpdatedAt.Add(RetryAfter(e.Attempts)))
}

func outboxPath(root string, e Entry) string {
	return filepath.Join(root, projectfs.Dir, Dir, e.Key()+".json")
}

// Queue records a failed delivery: it replaces the key's older body and
// counts the attempt. A body rendered before the one already queued is not
// queued: the newer status stays. e.NextAttempt, when set, is when the
// tracker asked to be tried again (its Retry-After): the entry waits for
// the later of that and the backoff. Callers hold projectfs.Lock.
func Queue(root string, e Entry, cause string, now time.Time) (Entry, error) {
	if old, err := readEntry(root, outboxPath(root, e)); err == nil {
		if old.RenderedAt.After(e.RenderedAt) {
			return old, nil
		}
		e.Attempts, e.QueuedAt = old.Attempts, old.QueuedAt
	}
	e.Attempts++
	if e.QueuedAt.IsZero() {
		e.QueuedAt = now.UTC()
	}
	e.LastError, e.UpdatedAt = cause, now.UTC()
	e.NextAttempt = nextAttempt(now, e.Attempts, e.NextAttempt)
	dir, err := projectfs.ProjectDir(root, Dir)
	if err != nil {
		return e, fmt.Errorf("outbox: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return e, fmt.Errorf("outbox: %w", err)
	}
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return e, err
	}
	if err := projectfs.WriteFileAtomic(outboxPath(root, e), append(data, '\n'), 0o600); err != nil {
		return e, fmt.Errorf("outbox: %w", err)
	}
	return e, nil
}

// Dequeue removes the entry for delivered's key once delivered's body has
// been delivered: if the queued body is that body or was rendered no later
// (the delivered status supersedes it). A newer body queued by another run
// stays. Removing an entry that is not there is not an error. Callers hold
// Lock.
func Dequeue(root string, delivered Entry) error {
	path := outboxPath(root, delivered)
	cur, err := readEntry(root, path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if errors.Is(err, projectfs.ErrOutside) {
		return fmt.Errorf("outbox: %w", err) // never remove a file outside the project
	}
	if err == nil && cur.Body != delivered.Body && cur.RenderedAt.After(delivered.RenderedAt) {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("outbox: %w", err)
	}
	return nil
}

// Queued reads the entry queued now for e's key; an error wrapping
// os.ErrNotExist means there is none.
func Queued(root string, e Entry) (Entry, error) {
	return readEntry(root, outboxPath(root, e))
}

// List lists the queued entries, oldest first. An entry file that cannot
// be read as one is set aside (kept as .corrupt under backups) and reported
// in the error, never silently dropped; the others are still returned.
func List(root string, now time.Time) ([]Entry, error) {
	entries, bad, err := Read(root)
	if err != nil {
		return nil, err
	}
	var problems []error
	for _, b := range bad {
		err := b.Err
		aside, aerr := projectfs.SetAside(root, b.Path, now)
		if aerr == nil {
			_ = os.Remove(b.Path)
			err = fmt.Errorf("%w (moved to %s)", err, aside)
		}
		problems = append(problems, err)
	}
	return entries, errors.Join(problems...)
}

// Trusted lists the queued entries like List, keeping only those
// signed with key: the others were not queued by this user's ccc (a
// repository committed them, or a ccc older than signing queued them) and
// are set aside (kept as .corrupt under backups), never delivered, and
// named once in the error. Without a key nothing can be trusted: the
// entries stay where they are, undelivered.
func Trusted(root string, key []byte, now time.Time) ([]Entry, error) {
	entries, err := List(root, now)
	problems := []error{err}
	if len(key) == 0 {
		return nil, err
	}
	trusted := entries[:0]
	for _, e := range entries {
		if e.Verify(key) {
			trusted = append(trusted, e)
			continue
		}
		path := outboxPath(root, e)
		err := &EntryError{Path: path, Err: errors.New("not signed by this user's ccc: not delivered")}
		if aside, aerr := projectfs.SetAside(root, path, now); aerr == nil {
			_ = os.Remove(path)
			err.Err = fmt.Errorf("%w (moved to %s)", err.Err, aside)
		}
		problems = append(problems, err)
	}
	return trusted, errors.Join(problems...)
}

// BadEntry is an outbox file that cannot be read as an entry.
type BadEntry struct {
	Path string
	Err  error
}

// Read lists the queued entries, oldest first, and the files that
// are not entries, changing nothing (List sets those aside; `ccc doctor`
// only reports them).
func Read(root string) ([]Entry, []BadEntry, error) {
	dir, err := projectfs.ProjectDir(root, Dir)
	if err != nil {
		return nil, nil, fmt.Errorf("outbox: %w", err)
	}
	names, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("outbox: %w", err)
	}
	var entries []Entry
	var bad []BadEntry
	for _, n := range names {
		if n.IsDir() || !strings.HasSuffix(n.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, n.Name())
		e, err := readEntry(root, path)
		if errors.Is(err, os.ErrNotExist) {
			continue // delivered since the listing
		}
		if err != nil {
			bad = append(bad, BadEntry{Path: path, Err: err})
			continue
		}
		if n.Name() != e.Key()+".json" {
			// Never delivered nor removed under its key's name: set
			// aside rather than left to block the outbox forever.
			bad = append(bad, BadEntry{Path: path, Err: &EntryError{Path: path, Err: fmt.Errorf("its name does not match its key (%s.json)", e.Key())}})
			continue
		}
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].QueuedAt.Before(entries[j].QueuedAt) })
	return entries, bad, nil
}

// EntryError is an outbox file that cannot be read as an entry.
type EntryError struct {
	Path string
	Line int // 1-based; 0 when unknown
	Err  error
}

func (e *EntryError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("outbox: %s:%d: %v", filepath.Base(e.Path), e.Line, e.Err)
	}
	return fmt.Sprintf("outbox: %s: %v", filepath.Base(e.Path), e.Err)
}

func (e *EntryError) Unwrap() error { return e.Err }

func readEntry(root, path string) (Entry, error) {
	var e Entry
	data, err := projectfs.ReadProjectFile(root, path, projectfs.MaxOutboxSize)
	if err != nil {
		return e, err
	}
	if err := json.Unmarshal(data, &e); err != nil {
		ee := &EntryError{Path: path, Err: err}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			ee.Line, _ = projectfs.Position(data, se.Offset-1)
		}
		return e, ee
	}
	if e.Sink == "" || e.Target == "" || e.Body == "" {
		return e, &EntryError{Path: path, Err: errors.New("not an outbox entry (sink, target or body missing)")}
	}
	return e, nil
}

// LockDelivery takes the lock of one (sink, target, agent) delivery, so
// that two processes never upsert the same comment at once: both would find
// no comment yet and both would create one. It is not the project lock,
// which a delivery takes to store its reference.
func LockDelivery(ctx context.Context, root string, e Entry) (unlock func(), err error) {
	if err := projectfs.EnsureDir(root); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	return projectfs.LockIn(ctx, root, filepath.Join(root, projectfs.Dir, projectfs.DeliveryLocks), e.Key()+".lock")
}
