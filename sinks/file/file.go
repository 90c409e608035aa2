// Package file is the sink that writes the status into a Markdown file of
// the project (STATUS.md unless configured), for people who keep their
// status in the repository or want a local copy. Every agent owns one
// section of the file, between two hidden marker lines; whatever else the
// file holds is kept byte for byte. Writes are atomic and compare-and-swap:
// an edit made by someone else meanwhile is never overwritten, the write is
// retried on the new content instead.
package file

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/comment"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/markdown"
	"github.com/ccc-checkpoint/ccc/sinks"
)

// Name is the sink's registry name; DefaultPath its file when none is
// configured.
const (
	Name        = "file"
	DefaultPath = "STATUS.md"
)

// FS is the file system the sink writes through; tests replace it to
// inject faults.
type FS interface {
	// Edit replaces the file at path with what edit returns for its
	// current content (nil when the file does not exist), atomically,
	// and fails with projectfs.ErrChanged when someone else wrote the file
	// meanwhile. An edit that returns the content unchanged writes
	// nothing.
	Edit(ctx context.Context, path string, edit func(old []byte) ([]byte, error)) error
}

// OS is the real file system.
type OS struct{}

// Edit implements FS with projectfs.ReplaceFile.
func (OS) Edit(ctx context.Context, path string, edit func([]byte) ([]byte, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// OS has no root: Upsert checked the path is in the project; this
	// refuses what the path turned into since (a FIFO, a device, a huge file).
	old, err := projectfs.ReadProjectFile("", path, projectfs.MaxCopySize)
	if errors.Is(err, fs.ErrNotExist) {
		old, err = nil, nil
	}
	if err != nil {
		return err
	}
	data, err := edit(old)
	if err != nil || (old != nil && string(data) == string(old)) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return projectfs.ReplaceFile(path, old, data, 0o644)
}

// Config configures the sink.
type Config struct {
	// Root is the project root that relative paths are resolved against.
	Root string
	// FS defaults to OS.
	FS FS
	// Retries of a write that met a concurrent edit or a transient error:
	// exponential backoff from InitialInterval up to MaxInterval, at most
	// MaxAttempts writes. Sleep and Now are the clock, replaceable in tests.
	InitialInterval, MaxInterval time.Duration
	MaxAttempts                  int
	Sleep                        func(context.Context, time.Duration) error
	Now                          func() time.Time
	// NewID makes the id of a new section.
	NewID func() string
}

// Sink writes agents' statuses into one Markdown file.
type Sink struct{ cfg Config }

// New returns a sink, filling unset Config fields with defaults.
func New(cfg Config) *Sink {
	if cfg.FS == nil {
		cfg.FS = OS{}
	}
	if cfg.InitialInterval <= 0 {
		cfg.InitialInterval = 20 * time.Millisecond
	}
	if cfg.MaxInterval <= 0 {
		cfg.MaxInterval = time.Second
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 5
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sinks.Sleep
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewID == nil {
		cfg.NewID = newID
	}
	return &Sink{cfg: cfg}
}

func newID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "s-" + hex.EncodeToString(b[:])
}

// Name implements sinks.Sink.
func (s *Sink) Name() string { return Name }

// Title implements sinks.Sink.
func (s *Sink) Title() string { return "File" }

// Phrase implements sinks.Phraser: the sink writes sections, not comments.
func (s *Sink) Phrase(a sinks.Action, target string) string {
	return fmt.Sprintf("%s section in %s", a, target)
}

// CheckTarget refuses a configured path that would make the sink write
// outside the project root: an absolute path, one with a ".." element, or
// one whose file or any folder on the way is a symlink pointing out. The
// path comes from .ccc-preferences.yaml, which the repository controls: a
// clone must not be able to append to ~/.bashrc or ~/.gitconfig.
func CheckTarget(root, target string) error {
	if filepath.IsAbs(target) || slices.Contains(strings.Split(filepath.ToSlash(target), "/"), "..") {
		return fmt.Errorf("sinks.file.path %q names a path outside the project; the file sink writes only inside it", target)
	}
	if err := projectfs.Inside(root, filepath.Join(root, target)); err != nil {
		problem := err.Error()
		var fe *projectfs.FileError
		if errors.As(err, &fe) {
			problem = fe.Problem
		}
		return fmt.Errorf("sinks.file.path %q %s; the file sink writes only inside it", target, problem)
	}
	path := filepath.Join(root, target)
	if gitDir(root, target, path) {
		return fmt.Errorf("sinks.file.path %q is inside the git directory; the file sink never writes there", target)
	}
	// Only ccc's own status file: a file of the project without a ccc
	// status section (a Makefile, .envrc, a workflow) must not get the
	// agent's text appended. A missing or empty file is a new status file.
	data, err := projectfs.ReadProjectFile(root, path, projectfs.MaxCopySize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("sinks.file.path %q: %w", target, err)
	case len(bytes.TrimSpace(data)) > 0 && !bytes.Contains(data, []byte(beginPrefix)):
		return fmt.Errorf("sinks.file.path %q is not ccc's status file (it holds no ccc status section); the file sink writes only a new file or one with a section (docs/trackers.md)", target)
	}
	return nil
}

// gitDir says whether path (target under root) is in a git directory: a
// path element named .git (any case: macOS and Windows fold it), or,
// symlinks followed, inside the git directory or the common directory that
// root's .git file names (a worktree's, a submodule's). Found without
// spawning git; the hooks' budget is small.
func gitDir(root, target, path string) bool {
	for _, el := range strings.Split(filepath.ToSlash(target), "/") {
		if strings.EqualFold(el, ".git") {
			return true
		}
	}
	real, err := projectfs.Resolve(path)
	if err != nil {
		return true // a loop: nothing to write to anyway
	}
	for _, dir := range gitDirs(root) {
		if rd, err := projectfs.Resolve(dir); err == nil && projectfs.Within(rd, real) {
			return true
		}
	}
	return false
}

// gitDirs are the git directory of the repository root is in and its
// common directory, found by walking up to the first .git (a folder, or a
// file "gitdir: <dir>" whose dir may hold a "commondir" file).
func gitDirs(root string) []string {
	dir, err := filepath.Abs(root)
	if err != nil {
		return nil
	}
	for {
		dotgit := filepath.Join(dir, ".git")
		fi, err := os.Lstat(dotgit)
		switch {
		case err == nil && fi.IsDir():
			return []string{dotgit}
		case err == nil && fi.Mode().IsRegular():
			data, err := projectfs.ReadProjectFile("", dotgit, 4096)
			if err != nil {
				return nil
			}
			gd, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
			if !ok {
				return nil
			}
			gd = strings.TrimSpace(gd)
			if !filepath.IsAbs(gd) {
				gd = filepath.Join(dir, gd)
			}
			dirs := []string{gd}
			if c, err := projectfs.ReadProjectFile("", filepath.Join(gd, "commondir"), 4096); err == nil {
				common := strings.TrimSpace(string(c))
				if !filepath.IsAbs(common) {
					common = filepath.Join(gd, common)
				}
				dirs = append(dirs, filepath.Clean(common))
			}
			return dirs
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}

// Path resolves a configured path against the project root.
func (s *Sink) Path(target string) string {
	if filepath.IsAbs(target) {
		return filepath.Clean(target)
	}
	return filepath.Join(s.cfg.Root, target)
}

// Body is the section's text: the status and a visible line naming the
// agent, since several agents may share the file. The status's fields are
// a list (a rendered repository file has no hard line breaks), and a code
// block or HTML block the status leaves open is closed before the agent
// line, so that neither that line nor the section markers after it render
// as code.
func Body(status, agent string) string {
	status = markdown.CloseOpen(comment.FieldList(strings.TrimRight(status, "\n")))
	return status + "\n\n_ccc agent `" + strings.ReplaceAll(agent, "`", "") + "`_\n"
}

// Upsert implements sinks.Sink. d.Target.Issue is the file's path. It
// rewrites the section d.Prev names, else the agent's first section, else
// appends one; the section's id is persisted (d.Persist) before it is
// first written, so a write that landed unseen is reported as a create by
// the next run and never doubled.
func (s *Sink) Upsert(ctx context.Context, d sinks.Delivery) (sinks.Result, error) {
	target := strings.TrimSpace(d.Target.Issue)
	agent := d.Target.Agent
	if target == "" {
		return sinks.Result{Action: sinks.Skipped, Ref: d.Prev}, sinks.Skip("no status file (set sinks.file.path)")
	}
	if err := CheckTarget(s.cfg.Root, target); err != nil {
		return sinks.Result{Action: sinks.Skipped, Ref: d.Prev}, sinks.Skip("%v", err)
	}
	fail := func(f *failure, requests int, ref sinks.Ref) (sinks.Result, error) {
		return sinks.Result{Action: sinks.Failed, Ref: ref, Requests: requests},
			&sinks.Error{Cause: f.cause, Permanent: f.permanent, Err: fmt.Errorf("file: %s: %w", target, f.err)}
	}
	if strings.TrimSpace(agent) == "" {
		return fail(&failure{cause: "no agent name", permanent: true, err: errors.New("no agent name")}, 0, d.Prev)
	}
	path := s.Path(target)
	body := Body(d.Body, agent)
	var budget time.Duration
	if dl, ok := ctx.Deadline(); ok {
		budget = dl.Sub(s.cfg.Now())
	}

	var (
		requests int
		created  string // the id of the section this delivery created
		ref      = d.Prev
		action   sinks.Action
		id       string
	)
	edit := func(old []byte) ([]byte, error) {
		doc, err := parse(target, old)
		if err != nil {
			return nil, err
		}
		i := doc.find(d.Prev.ID, agent)
		if i < 0 {
			i = doc.find(d.Prev.PendingID, agent)
		}
		if i < 0 {
			i = doc.find(created, agent)
		}
		if i < 0 {
			i = doc.findAgent(agent)
		}
		if i >= 0 {
			id = doc.sections[i].id
			action = sinks.Updated
			if id == created || (d.Prev.ID == "" && id == d.Prev.PendingID) {
				action = sinks.Created
			}
			return doc.set(i, agent, id, body), nil
		}
		if created == "" {
			pending := sinks.Ref{PendingID: s.cfg.NewID()}
			if d.Persist != nil {
				if err := d.Persist(pending); err != nil {
					return nil, &persistError{err}
				}
			}
			created, ref = pending.PendingID, pending
		}
		id, action = created, sinks.Created
		return doc.set(-1, agent, id, body), nil
	}
	policy := sinks.RetryPolicy{Initial: s.cfg.InitialInterval, Max: s.cfg.MaxInterval, MaxAttempts: s.cfg.MaxAttempts, Sleep: s.cfg.Sleep, Now: s.cfg.Now}
	f := sinks.Retry(ctx, policy, func() *failure {
		requests++
		return classify(ctx, target, budget, s.cfg.FS.Edit(ctx, path, edit))
	}, func(last *failure) *failure {
		return &failure{cause: sinks.ContextCause(ctx, budget), permanent: true, err: ctx.Err()}
	})
	if f != nil {
		return fail(f, requests, ref)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	return sinks.Result{Action: action, Ref: sinks.Ref{ID: id, URL: u.String()}, Requests: requests}, nil
}

// failure is one classified failed write.
type failure struct {
	cause     string
	permanent bool
	err       error
}

func (f *failure) Permanent() bool           { return f.permanent }
func (f *failure) RetryAfter() time.Duration { return 0 }

type persistError struct{ err error }

func (e *persistError) Error() string {
	return "could not store the pending section id: " + e.err.Error()
}
func (e *persistError) Unwrap() error { return e.err }

// classify words a write's error for the report. A concurrent edit and the
// errors a busy or network file system gives are worth another try; a
// corrupt file, permissions, a full disk are not.
func classify(ctx context.Context, target string, budget time.Duration, err error) *failure {
	if err == nil {
		return nil
	}
	var corrupt *CorruptError
	var perr *persistError
	switch {
	case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		return &failure{cause: sinks.ContextCause(ctx, budget), permanent: true, err: err}
	case errors.As(err, &corrupt):
		return &failure{cause: fmt.Sprintf("%s:%d: unreadable status section", corrupt.Path, corrupt.Line), permanent: true, err: err}
	case errors.As(err, &perr):
		return &failure{cause: "could not store the pending section id", permanent: true, err: err}
	case errors.Is(err, projectfs.ErrChanged):
		return &failure{cause: target + " changed while being written", err: err}
	case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EBUSY), errors.Is(err, syscall.EINTR),
		errors.Is(err, syscall.EIO), errors.Is(err, syscall.ETIMEDOUT), errors.Is(err, syscall.ESTALE):
		return &failure{cause: "writing " + target + ": " + errnoText(err), err: err}
	}
	return &failure{cause: "writing " + target + ": " + errnoText(err), permanent: true, err: err}
}

// errnoText is the system's words for err without the path, which the
// cause already names.
func errnoText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	var perr *fs.PathError
	if errors.As(err, &perr) {
		return perr.Err.Error()
	}
	return sinks.Short(err.Error())
}

// Health implements sinks.HealthChecker: the file (or its directory) is
// writable and every section in it is readable. It writes nothing.
func (s *Sink) Health(ctx context.Context, target string) (sinks.Health, error) {
	if strings.TrimSpace(target) == "" {
		return sinks.Health{}, sinks.Skip("no status file (set sinks.file.path)")
	}
	if err := CheckTarget(s.cfg.Root, target); err != nil {
		return sinks.Health{Target: target}, sinks.Skip("%v", err)
	}
	path := s.Path(target)
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	h := sinks.Health{Target: target, TargetURL: u.String()}
	data, err := projectfs.ReadProjectFile(s.cfg.Root, path, projectfs.MaxCopySize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		dir := filepath.Dir(path)
		for {
			if _, serr := os.Stat(dir); serr == nil || filepath.Dir(dir) == dir {
				break
			}
			dir = filepath.Dir(dir)
		}
		if err := writable(dir); err != nil {
			return h, &sinks.Error{Cause: "cannot create " + target + ": " + errnoText(err), Permanent: true, Err: err}
		}
		h.Target = target + " (created at the first checkpoint)"
		return h, nil
	case err != nil:
		return h, &sinks.Error{Cause: "reading " + target + ": " + errnoText(err), Permanent: true, Err: err}
	}
	if _, err := parse(target, data); err != nil {
		return h, &sinks.Error{Cause: err.Error(), Permanent: true, Err: err}
	}
	if err := writable(filepath.Dir(path)); err != nil {
		return h, &sinks.Error{Cause: "cannot replace " + target + ": " + errnoText(err), Permanent: true, Err: err}
	}
	return h, nil
}

// writable checks that a file can be created in dir, the way an atomic
// write needs.
func writable(dir string) error {
	f, err := os.CreateTemp(dir, ".ccc-health-*")
	if err != nil {
		return err
	}
	name := f.Name()
	_ = f.Close()
	return os.Remove(name)
}
