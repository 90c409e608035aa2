package records

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"github.com/google/uuid"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// Layout of the records directory.
const (
	// HistoryDir holds an agent's earlier records, history/<agent>/<id>.json.
	HistoryDir = "history"
	// FailedDir holds failed records until the failed max age.
	FailedDir = "failed"
	// lockFile serialises writers of the directory; it is the records' own
	// lock, apart from a worktree's project lock, so a checkpoint that holds
	// its project lock can still write its record.
	lockFile = "lock"
)

// KeepHistory is how many earlier records of one agent are kept.
const KeepHistory = 100

// DefaultInterval is how often an agent is expected to checkpoint or beat,
// for nextCheckpointExpected (seed 003's 15 minutes).
const DefaultInterval = 15 * time.Minute

// errFailure is the error type of a failure reported by a checkpoint.
const errFailure = "failure"

// ErrNoRecord means an agent has no current record.
var ErrNoRecord = errors.New("no current record")

// Snapshot is what a checkpoint knows, in plain values.
type Snapshot struct {
	Agent, SessionID, Issue, Phase string
	// Status is in_progress, blocked, complete or failed; "" means blocked
	// when there are blockers, else in_progress.
	Status    string
	Current   string
	Completed []string
	Remaining []string
	// Blockers become errors {type: "blocker", blocking: true}.
	Blockers []string
	// Failures are why the work failed; each becomes an error {type:
	// "failure", blocking: true}, and any makes the status failed.
	Failures []string
	// Files are the activeTaskFiles.
	Files []string
	// Prompt is the continuation prompt.
	Prompt       string
	Branch, Head string
}

// CurrentPath is the agent's current record, <dir>/<agent>.json.
func CurrentPath(dir, agent string) string { return filepath.Join(dir, agent+".json") }

// CompletePath is where a completed record is archived.
func CompletePath(dir, agent, issue string) string {
	return filepath.Join(dir, agent+"-"+issueSlug(issue)+"-complete.json")
}

func historyPath(dir, agent, id string) string {
	return filepath.Join(dir, HistoryDir, agent, id+".json")
}

// issueSlug stands in for the issue in ids and file names.
func issueSlug(issue string) string {
	if issue == "" {
		return "none"
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r == ' ' {
			return '_'
		}
		return r
	}, issue)
}

const idStamp = "20060102-150405"

// ID is a record's id, <agent>-<issue or "none">-<YYYYMMDD-HHMMSS> (UTC), the
// form every writer of records uses: checkpoints, takeovers and imports.
func ID(agent, issue string, at time.Time) string {
	return agent + "-" + issueSlug(issue) + "-" + at.UTC().Format(idStamp)
}

// Lock takes the records directory's lock (creating the directory), waiting
// for other writers until ctx is done. Every writer of dir holds it: Write,
// Heartbeat, TakeOver, Cleanup, and anything else that writes records there.
// The returned func releases it.
func Lock(ctx context.Context, dir string) (func(), error) {
	// Every writer holds this lock, so this is where a records directory,
	// lock, history or failed folder (or the backups) symlinked out of the
	// main worktree is refused: ccc writes nothing through it.
	main := Root(dir)
	for _, p := range []string{dir, filepath.Join(dir, lockFile), filepath.Join(dir, HistoryDir), filepath.Join(dir, FailedDir),
		filepath.Join(main, projectfs.Dir, projectfs.BackupDir)} {
		if err := projectfs.Inside(main, p); err != nil {
			return nil, fmt.Errorf("records: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	fl := flock.New(filepath.Join(dir, lockFile))
	ok, err := fl.TryLockContext(ctx, 10*time.Millisecond)
	if err != nil {
		return nil, fmt.Errorf("records: lock %s: %w", fl.Path(), err)
	}
	if !ok {
		return nil, fmt.Errorf("records: lock %s: not acquired", fl.Path())
	}
	return func() { _ = fl.Unlock() }, nil
}

// Load reads an agent's current record. A record of an older schemaVersion
// is migrated and written back (the original kept beside the backups,
// never pruned); one that cannot be read is refused with its path.
func Load(dir, agent string) (*Record, error) {
	r, _, err := load(dir, agent, time.Now())
	return r, err
}

// load also returns the file's bytes, for a compare-and-swap.
func load(dir, agent string, now time.Time) (*Record, []byte, error) {
	if err := ValidAgent(agent); err != nil {
		return nil, nil, err
	}
	path := CurrentPath(dir, agent)
	data, err := readFile(dir, path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("records: agent %q in %s: %w", agent, dir, ErrNoRecord)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("records: %w", err)
	}
	r, from, err := Decode(path, data)
	if err != nil {
		return nil, data, err
	}
	if from != SchemaVersion {
		data, err = migrateFile(dir, path, data, r, from, now)
		if err != nil {
			return nil, nil, err
		}
	}
	return r, data, nil
}

// migrateFile keeps the original of a migrated record and writes the
// migrated one in its place, unless someone changed the file meanwhile (then
// the next read migrates it again). It returns the bytes now on disk.
func migrateFile(dir, path string, orig []byte, r *Record, from int, now time.Time) ([]byte, error) {
	backups := filepath.Join(Root(dir), projectfs.Dir, projectfs.BackupDir)
	if err := os.MkdirAll(backups, 0o755); err != nil {
		return nil, fmt.Errorf("records: keep the original of %s: %w", path, err)
	}
	// Not named like a rotating backup, so rotation never prunes it.
	keep := filepath.Join(backups, fmt.Sprintf("%s.schema%d.%s", filepath.Base(path), from, projectfs.Stamp(now)))
	if err := projectfs.WriteFileAtomic(keep, orig, 0o600); err != nil {
		return nil, fmt.Errorf("records: keep the original of %s: %w", path, err)
	}
	data, err := Encode(r)
	if err != nil {
		return nil, err
	}
	if err := projectfs.ReplaceFile(path, orig, data, 0o644); err != nil {
		if errors.Is(err, projectfs.ErrChanged) {
			return orig, nil
		}
		return nil, fmt.Errorf("records: write migrated %s: %w", path, err)
	}
	return data, nil
}

// Write writes the agent's record for a checkpoint: creates or updates
// <dir>/<agent>.json (id <agent>-<issue>-<YYYYMMDD-HHMMSS> UTC, made unique
// with -2, -3… when one second holds several checkpoints; createdAt kept
// while the issue stays the same; updatedAt and heartbeat.lastBeat now;
// nextCheckpointExpected one interval later). The previous record is kept
// in history/<agent>/ and as a rotating backup. A complete record is
// archived at once as <agent>-<issue>-complete.json and a failed one moves
// to failed/, leaving the agent without a current record. What the snapshot
// does not know (filesCreated, acceptance criteria, extra, imported errors)
// is carried over from the previous record of the same issue.
//
// Writes are atomic and serialised by a lock in dir. A previous record that
// cannot be read is set aside as .corrupt (never overwritten unread) and
// Write still writes: it then returns the record and a *CorruptError that
// says where the old one went. A previous record of a newer schemaVersion
// is left alone and Write fails.
func Write(ctx context.Context, dir string, s Snapshot, now time.Time) (*Record, error) {
	if err := ValidAgent(s.Agent); err != nil {
		return nil, err
	}
	if s.Status != "" && !ValidStatus(s.Status) {
		return nil, fmt.Errorf("records: status %q is not one of in_progress, blocked, complete, failed", s.Status)
	}
	now = now.UTC()
	unlock, err := Lock(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer unlock()

	path := CurrentPath(dir, s.Agent)
	prev, prevData, err := load(dir, s.Agent, now)
	var warning error
	var corrupt *CorruptError
	switch {
	case errors.Is(err, ErrNoRecord):
	case errors.As(err, &corrupt):
		aside, aerr := projectfs.SetAside(Root(dir), path, now)
		if aerr != nil {
			return nil, fmt.Errorf("records: %w; and it could not be set aside: %v", err, aerr)
		}
		warning = &CorruptError{Path: path, Msg: corrupt.Msg + " (set aside as " + aside + "; a fresh record was written)"}
	case err != nil:
		return nil, err
	}

	rec := build(prev, s, now)
	rec.ID = uniqueID(dir, rec, prev)
	data, err := Encode(rec)
	if err != nil {
		return nil, err
	}
	var keep kept
	if prev != nil {
		if keep, err = keepPrevious(dir, s.Agent, path, prev, prevData, now); err != nil {
			return nil, err
		}
	}
	switch rec.Status {
	case StatusComplete:
		archive := CompletePath(dir, rec.Agent, rec.Issue)
		if old, err := readFile(dir, archive); err == nil {
			// The same issue completed before: that archive joins the history,
			// or, unreadable, is set aside rather than overwritten.
			r, _, derr := Decode(archive, old)
			if derr == nil {
				// A copy, not a link: the archive is replaced below, and a
				// failure there must not leave history sharing it.
				_, derr = keepHistory(dir, rec.Agent, r, old, "")
			} else {
				_, derr = projectfs.SetAside(Root(dir), archive, now)
			}
			if derr != nil {
				return nil, derr
			}
		}
		err = moveOut(path, archive, data)
	case StatusFailed:
		err = moveOut(path, filepath.Join(dir, FailedDir, rec.ID+".json"), data)
	default:
		err = projectfs.WriteFileAtomic(path, data, 0o644)
	}
	if err != nil {
		keep.unshare()
		return nil, fmt.Errorf("records: write %s: %w", rec.Agent, err)
	}
	return rec, warning
}

// kept is where keepPrevious kept a record that is about to be replaced:
// its history entry and its backup, hard links to the file (issue 26: each
// was a 2 MB copy of a 10,000-task record) or copies where a link cannot be
// made.
type kept struct {
	live  string // the record's path
	data  []byte // its bytes, as read
	paths []string
}

// keepPrevious keeps the record at path (read as data, decoded as prev) in
// agent's history and as a rotating backup, before it is replaced.
func keepPrevious(dir, agent, path string, prev *Record, data []byte, now time.Time) (kept, error) {
	k := kept{live: path, data: data}
	h, err := keepHistory(dir, agent, prev, data, path)
	if h != "" {
		k.paths = append(k.paths, h)
	}
	if err != nil {
		k.unshare()
		return k, err
	}
	b, err := projectfs.BackupOf(Root(dir), path, data, now, true)
	if err != nil {
		k.unshare()
		return k, fmt.Errorf("records: %w", err)
	}
	if b != "" {
		k.paths = append(k.paths, b)
	}
	return k, nil
}

// unshare undoes the links when the record they keep was not replaced after
// all: a history entry or backup that is still the live file would change
// with it.
func (k kept) unshare() {
	for _, p := range k.paths {
		_ = projectfs.Unshare(p, k.live, k.data)
	}
}

// moveOut writes a finished record to its archive, then removes the current
// one: a crash in between leaves both, never neither.
func moveOut(current, archive string, data []byte) error {
	if err := projectfs.Inside(filepath.Dir(current), archive); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(archive), 0o755); err != nil {
		return err
	}
	if err := projectfs.WriteFileAtomic(archive, data, 0o644); err != nil {
		return err
	}
	if err := os.Remove(current); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// build fills a record from a snapshot and the agent's previous record.
func build(prev *Record, s Snapshot, now time.Time) *Record {
	same := prev != nil && prev.Issue == s.Issue
	r := &Record{
		SchemaVersion:      SchemaVersion,
		Agent:              s.Agent,
		SessionID:          s.SessionID,
		Issue:              s.Issue,
		Status:             s.Status,
		Phase:              s.Phase,
		CurrentStep:        s.Current,
		CompletedSteps:     slices.Clone(s.Completed),
		NextSteps:          slices.Clone(s.Remaining),
		FilesCreated:       []string{},
		FilesModified:      slices.Clone(s.Files),
		ResumeInstructions: s.Prompt,
		CreatedAt:          now,
		UpdatedAt:          now,
		Branch:             s.Branch,
		Head:               s.Head,
		Heartbeat:          Beat{LastBeat: now, IntervalSeconds: int(DefaultInterval / time.Second)},
	}
	if r.SessionID == "" && prev != nil {
		r.SessionID = prev.SessionID
	}
	if r.SessionID == "" {
		r.SessionID = uuid.NewString()
	}
	if len(s.Failures) > 0 {
		r.Status = StatusFailed
	}
	if r.Status == "" {
		r.Status = StatusInProgress
		if len(s.Blockers) > 0 {
			r.Status = StatusBlocked
		}
	}
	if prev != nil && prev.Heartbeat.IntervalSeconds > 0 {
		r.Heartbeat.IntervalSeconds = prev.Heartbeat.IntervalSeconds
	}
	r.NextCheckpointExpected = now.Add(time.Duration(r.Heartbeat.IntervalSeconds) * time.Second)
	if r.Status == StatusComplete {
		r.CompletedAt = now
	}
	var prevOutputs map[string]*string
	var prevBlockers map[string]time.Time
	if same {
		r.CreatedAt = prev.CreatedAt
		if r.CreatedAt.IsZero() {
			r.CreatedAt = now
		}
		if r.Phase == "" {
			r.Phase = prev.Phase
		}
		r.FilesCreated = slices.Clone(nonNil(prev.FilesCreated))
		r.AcceptanceCriteriaMet = cloneMap(prev.AcceptanceCriteriaMet)
		r.Extra = cloneMap(prev.Extra)
		prevOutputs = outputs(prev.Subtasks.Items)
		prevBlockers = map[string]time.Time{}
		for _, e := range prev.Errors {
			if e.Type == "blocker" || e.Type == errFailure {
				prevBlockers[e.Type+"\x00"+e.Message] = e.Timestamp
			} else {
				r.Errors = append(r.Errors, e) // imported or recorded by someone else
			}
		}
	}
	for _, e := range []struct {
		typ  string
		msgs []string
	}{{"blocker", s.Blockers}, {errFailure, s.Failures}} {
		for _, m := range e.msgs {
			at, ok := prevBlockers[e.typ+"\x00"+m]
			if !ok || at.IsZero() {
				at = now // when it was first seen
			}
			r.Errors = append(r.Errors, Error{Type: e.typ, Message: m, Timestamp: at, Blocking: true})
		}
	}
	r.Subtasks.Items = make([]Subtask, 0, len(s.Completed)+1+len(s.Remaining))
	item := func(id, status string) {
		r.Subtasks.Items = append(r.Subtasks.Items, Subtask{ID: id, Status: status, Output: prevOutputs[id]})
	}
	for _, t := range s.Completed {
		item(t, "complete")
	}
	if s.Current != "" {
		item(s.Current, "in_progress")
	}
	for _, t := range s.Remaining {
		item(t, "pending")
	}
	r.Subtasks.Total = len(r.Subtasks.Items)
	r.Subtasks.Completed = len(s.Completed)
	if r.Subtasks.Total > 0 {
		r.Subtasks.Percent = r.Subtasks.Completed * 100 / r.Subtasks.Total
	}
	if r.Status == StatusComplete && len(s.Remaining) == 0 && s.Current == "" {
		r.Subtasks.Percent = 100
	}
	return r
}

// outputs maps each subtask id to its output, the last of an id winning. A
// missing id reads as nil too, so a subtask without output takes no entry:
// a record of 10,000 tasks has none.
func outputs(items []Subtask) map[string]*string {
	m := map[string]*string{}
	for _, it := range items {
		if it.Output != nil {
			m[it.ID] = it.Output
		} else if len(m) > 0 {
			delete(m, it.ID)
		}
	}
	return m
}

func cloneMap[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// uniqueID is the record's id, suffixed when the previous record or the
// history already has it (several checkpoints in one second).
func uniqueID(dir string, r, prev *Record) string {
	base := ID(r.Agent, r.Issue, r.UpdatedAt)
	id := base
	for n := 2; ; n++ {
		taken := prev != nil && prev.ID == id
		if !taken {
			_, err := os.Stat(historyPath(dir, r.Agent, id))
			taken = err == nil
		}
		if !taken {
			return id
		}
		id = base + "-" + strconv.Itoa(n)
	}
}

// keepHistory stores a replaced record in history, byte for byte, and
// prunes the agent's history to the newest KeepHistory; it returns the
// entry's path. agent is the one whose file it was, not what the file says:
// a hand-edited agent field must not choose where ccc writes. src, when not
// "", is the file data was read from, about to be replaced by rename: the
// entry is then a hard link to it (projectfs.KeepCopy), and the caller
// that fails to replace src unshares it.
func keepHistory(dir, agent string, prev *Record, data []byte, src string) (string, error) {
	path := historyPath(dir, agent, historyID(agent, prev))
	if err := projectfs.Inside(dir, path); err != nil { // history/<agent> symlinked out
		return "", fmt.Errorf("records: history: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("records: history: %w", err)
	}
	// A copy of a record that is itself written durably: no fsync.
	if _, err := projectfs.KeepCopy(src, path, data, 0o644, src != ""); err != nil {
		return "", fmt.Errorf("records: history: %w", err)
	}
	return path, pruneHistory(filepath.Dir(path)) // path also on error: it was written
}

// historyID is the name a record gets in history: its id, unless that
// cannot name a file.
func historyID(agent string, r *Record) string {
	if ValidAgent(r.ID) != nil {
		return ID(agent, r.Issue, r.UpdatedAt)
	}
	return r.ID
}

// stampRE finds the time in an id: -YYYYMMDD-HHMMSS, maybe suffixed -N.
var stampRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-(\d{8}-\d{6})(?:-(\d+))?\.json$`) })

// pruneHistory orders by the time in the file name, not by reading every
// file: ids carry it, and the issue part may contain dashes.
func pruneHistory(agentDir string) error {
	entries, err := os.ReadDir(agentDir)
	if err != nil {
		return fmt.Errorf("records: history: %w", err)
	}
	if len(entries) <= KeepHistory {
		return nil
	}
	type named struct {
		name, key string
	}
	var files []named
	for _, e := range entries {
		m := stampRE().FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		files = append(files, named{e.Name(), fmt.Sprintf("%s-%06d", m[1], n)})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].key > files[j].key })
	for _, f := range files[min(len(files), KeepHistory):] {
		if err := os.Remove(filepath.Join(agentDir, f.name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("records: history: %w", err)
		}
	}
	return nil
}

// Heartbeat records that the agent is alive: it changes only
// heartbeat.lastBeat and nextCheckpointExpected of the current record (not
// updatedAt, no history, no backup), so it is cheap enough to run every few
// minutes. Every other key keeps its value and its place in the file, even
// one this version does not know; a record without an interval is given
// the next checkpoint DefaultInterval from now, without storing the
// interval. An agent without a current record gets ErrNoRecord.
func Heartbeat(ctx context.Context, dir, agent string, now time.Time) (*Record, error) {
	if err := ValidAgent(agent); err != nil {
		return nil, err
	}
	now = now.UTC()
	if _, err := os.Stat(CurrentPath(dir, agent)); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("records: agent %q in %s: %w", agent, dir, ErrNoRecord)
	}
	unlock, err := Lock(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	r, data, err := load(dir, agent, now)
	if err != nil {
		return nil, err
	}
	interval := time.Duration(r.Heartbeat.IntervalSeconds) * time.Second
	if interval <= 0 {
		interval = DefaultInterval
	}
	r.Heartbeat.LastBeat = now
	r.NextCheckpointExpected = now.Add(interval)
	beat, err := marshal(r.Heartbeat.LastBeat)
	if err != nil {
		return nil, err
	}
	next, err := marshal(r.NextCheckpointExpected)
	if err != nil {
		return nil, err
	}
	hb, _ := topValue(data, "heartbeat")
	if hb, err = setKeys(hb, map[string]json.RawMessage{"lastBeat": beat}); err != nil {
		// Not an object (null): write the heartbeat whole.
		if hb, err = marshal(r.Heartbeat); err != nil {
			return nil, err
		}
	}
	out, err := setKeys(data, map[string]json.RawMessage{"heartbeat": hb, "nextCheckpointExpected": next})
	if err != nil {
		return nil, fmt.Errorf("records: heartbeat %s: %w", agent, err)
	}
	if err := projectfs.WriteFileAtomic(CurrentPath(dir, agent), out, 0o644); err != nil {
		return nil, fmt.Errorf("records: heartbeat %s: %w", agent, err)
	}
	return r, nil
}

// Takeover is the outcome of handing a crashed agent's work to a new owner.
type Takeover struct {
	Old *Record `json:"old"`
	New *Record `json:"new"`
	// CrashedPath is where the old record now lives.
	CrashedPath string `json:"crashedPath"`
}

// TakeOver hands agent's work to newAgent (agent itself when empty), as in
// seed 003's reassignment: the old record is renamed to
// <agent>_crashed_<epoch>.json and a fresh record is written for the new
// owner with a new session id, status in_progress, and the same issue,
// steps, files and continuation prompt. A newAgent that already has a
// record of its own is refused.
func TakeOver(ctx context.Context, dir, agent, newAgent string, now time.Time) (*Takeover, error) {
	if newAgent == "" {
		newAgent = agent
	}
	for _, a := range []string{agent, newAgent} {
		if err := ValidAgent(a); err != nil {
			return nil, err
		}
	}
	now = now.UTC()
	unlock, err := Lock(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	old, _, err := load(dir, agent, now)
	if err != nil {
		return nil, err
	}
	if newAgent != agent {
		if _, err := os.Stat(CurrentPath(dir, newAgent)); err == nil {
			return nil, fmt.Errorf("records: %s already has a record of its own: take it over or finish it first, or choose another name", newAgent)
		}
	}
	crashed := filepath.Join(dir, fmt.Sprintf("%s_crashed_%d.json", agent, now.Unix()))
	if _, err := os.Stat(crashed); err == nil {
		return nil, fmt.Errorf("records: %s already exists: try again in a second", crashed)
	}
	if err := os.Rename(CurrentPath(dir, agent), crashed); err != nil {
		return nil, fmt.Errorf("records: takeover: %w", err)
	}

	n := *old
	n.Agent = newAgent
	n.SessionID = uuid.NewString()
	n.Status = StatusInProgress
	n.CreatedAt, n.UpdatedAt, n.CompletedAt = now, now, time.Time{}
	n.Heartbeat.LastBeat = now
	if n.Heartbeat.IntervalSeconds <= 0 {
		n.Heartbeat.IntervalSeconds = int(DefaultInterval / time.Second)
	}
	n.NextCheckpointExpected = now.Add(time.Duration(n.Heartbeat.IntervalSeconds) * time.Second)
	n.CompletedSteps = slices.Clone(old.CompletedSteps)
	n.NextSteps = slices.Clone(old.NextSteps)
	n.FilesCreated = slices.Clone(old.FilesCreated)
	n.FilesModified = slices.Clone(old.FilesModified)
	n.Errors = slices.Clone(old.Errors)
	n.Subtasks.Items = slices.Clone(old.Subtasks.Items)
	n.AcceptanceCriteriaMet = cloneMap(old.AcceptanceCriteriaMet)
	n.Extra = cloneMap(old.Extra)
	n.ID = uniqueID(dir, &n, old)
	data, err := Encode(&n)
	if err != nil {
		return nil, err
	}
	if err := projectfs.WriteFileAtomic(CurrentPath(dir, newAgent), data, 0o644); err != nil {
		return nil, fmt.Errorf("records: takeover: write %s: %w", newAgent, err)
	}
	return &Takeover{Old: old, New: &n, CrashedPath: crashed}, nil
}
