package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// Task statuses, shared by the record's subtask items and the progress
// document's lists.
const (
	taskComplete   = "complete"
	taskInProgress = "in_progress"
	taskPending    = "pending"
	taskFailed     = "failed"
	taskBlocked    = "blocked"
)

// task is one unit of work in the source: a milestone, a phase, a subtask
// or a step.
type task struct {
	id     string
	status string
	output *string
}

// draft collects what a converter finds in a source file; finish turns it
// into the record and the progress document.
type draft struct {
	path   string
	format Format
	opts   Options

	rec records.Record
	// agent is the agent the file names.
	agent string
	// issueKeys are candidate issue keys (KEY-123), best first; the first
	// valid one becomes the issue.
	issueKeys []string
	// taskID names the work when the file has no issue key (task id,
	// feature, initiative or project name); taskIDAt is where it came from.
	taskID   string
	taskIDAt *object
	taskKey  string
	// sourceID is the file's own checkpoint id, kept in extra unless the
	// record's id is the same.
	sourceID   string
	sourceIDAt *object

	tasks []task
	// current is the id of the task in progress when the file says so
	// apart from the tasks' statuses.
	current string
	// explicitSubtasks: the file gave its own subtask counts.
	explicitSubtasks bool
	criteria         []string // acceptance criteria in file order
	blockers         []string
	next             string
	fields           []progress.Field
	// latest is the newest timestamp read anywhere in the file, the update
	// time of a file that states none.
	latest   time.Time
	extra    map[string]json.RawMessage
	warnings []string
}

func newDraft(path string, format Format, opts Options) *draft {
	return &draft{path: path, format: format, opts: opts, extra: map[string]json.RawMessage{}}
}

func (d *draft) warnf(format string, args ...any) {
	d.warnings = append(d.warnings, fmt.Sprintf(format, args...))
}

func (d *draft) field(name, value string) {
	if value = strings.Join(strings.Fields(value), " "); value != "" {
		d.fields = append(d.fields, progress.Field{Name: name, Value: value})
	}
}

// setTaskID names the work by o's key k, unless something already did.
func (d *draft) setTaskID(o *object, k string) {
	if d.taskID != "" {
		return
	}
	if v := o.peekStr(k); v != "" {
		d.taskID, d.taskIDAt, d.taskKey = v, o, k
		d.issueKeys = append(d.issueKeys, v)
	}
}

// issueFields are the keys under which the protocols' files (and the
// checkpoint records of teams that added one) hold a tracker issue.
var issueFields = []string{"issue", "linearIssue", "linear_issue", "activeIssue", "issue_key", "issueKey", "issue_id"}

// status sets the record's status from o's key k.
func (d *draft) status(o *object, k string) {
	var s string
	if !o.value(k, &s, "a string") {
		return
	}
	st, lossless := normStatus(s)
	switch {
	case placeholderRe().MatchString(strings.TrimSpace(s)):
		d.warnf("%s: template placeholder %s, not a status; kept in extra", o.path(k), s)
	case st == "":
		d.warnf("%s: unknown status %q; kept in extra", o.path(k), s)
	case lossless:
		d.rec.Status = st
		o.use(k)
	default:
		// WAITING, stalled, pending: the record's four statuses cannot say
		// it, so the original stays in extra too.
		d.rec.Status = st
		d.warnf("%s: %q is recorded as %s; the original is kept in extra", o.path(k), s, st)
	}
}

// normStatus maps a protocol's status onto the record's four. lossless is
// false when the mapping drops a distinction the source made.
func normStatus(s string) (st string, lossless bool) {
	k := strings.ToLower(strings.TrimSpace(s))
	k = strings.NewReplacer("-", "_", " ", "_").Replace(k)
	switch k {
	case "in_progress", "inprogress":
		return records.StatusInProgress, true
	case "active", "running", "started", "resuming", "resumed", "waiting", "pending", "not_started", "alive":
		return records.StatusInProgress, false
	case "blocked":
		return records.StatusBlocked, true
	case "stalled", "stuck", "on_hold":
		return records.StatusBlocked, false
	case "complete", "completed", "done":
		return records.StatusComplete, true
	case "success", "succeeded", "finished":
		return records.StatusComplete, false
	case "failed":
		return records.StatusFailed, true
	case "failure", "error", "aborted", "abandoned", "crashed":
		return records.StatusFailed, false
	}
	return "", false
}

// normTask maps a task's status onto the five a task can have; an unknown
// one is kept as written (and treated as pending).
func normTask(s string) string {
	k := strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(s)))
	switch k {
	case "complete", "completed", "done", "success", "succeeded", "finished", "passed":
		return taskComplete
	case "in_progress", "inprogress", "active", "running", "started", "current":
		return taskInProgress
	case "pending", "todo", "not_started", "queued", "":
		return taskPending
	case "failed", "failure", "error":
		return taskFailed
	case "blocked", "stalled":
		return taskBlocked
	}
	return strings.TrimSpace(s)
}

// safeNameRe is what an agent name may hold: it names files.
var safeNameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._-]+`) })

// SafeName makes a name usable as a file name and an id segment: runs of
// other characters become "-", and no leading dot or dash is left.
func SafeName(s string) string {
	s = safeNameRe().ReplaceAllString(strings.TrimSpace(s), "-")
	return strings.Trim(s, ".-")
}

func (d *draft) finish(root *object) (*Imported, error) {
	r := &d.rec
	r.SchemaVersion = records.SchemaVersion

	agent, from := d.agent, "the file"
	if agent == "" {
		agent, from = d.opts.Agent, "--agent"
	}
	if agent == "" {
		agent, from = strings.TrimSuffix(filepath.Base(d.path), filepath.Ext(d.path)), "the file name"
	}
	safe := SafeName(agent)
	if safe == "" {
		return nil, &Error{Path: d.path, Err: errors.New("no usable agent name in the file; pass --agent")}
	}
	if safe != agent {
		d.warnf("agent %q (from %s) is not a safe file name; using %q", agent, from, safe)
	}
	r.Agent = safe

	for _, k := range issueFields {
		if v := root.peekStr(k); v != "" {
			if n, ok := progress.NormalIssue(v); ok {
				v = n // cia-12 is CIA-12
			}
			d.issueKeys = append([]string{v}, d.issueKeys...)
			if progress.ValidIssue(v) {
				root.use(k)
			}
		}
	}
	key := ""
	if i := slices.IndexFunc(d.issueKeys, progress.ValidIssue); i >= 0 {
		key = d.issueKeys[i]
	}
	r.Issue = key
	if r.Issue == "" {
		r.Issue = d.taskID
	}
	if d.taskIDAt != nil && r.Issue == d.taskID {
		d.taskIDAt.use(d.taskKey)
	}

	now := d.opts.Now.UTC().Truncate(time.Second)
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = r.CreatedAt
	}
	if r.UpdatedAt.IsZero() && !d.latest.IsZero() {
		r.UpdatedAt = d.latest
		d.warnf("no update time in the file; its newest timestamp, %s, is used", d.latest.Format(time.RFC3339))
	}
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = now
		d.warnf("no usable update time in the file; the import time is used")
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = r.UpdatedAt
	}

	d.settleTasks()
	if r.Status == "" {
		r.Status = d.derivedStatus()
	}
	if r.Status == records.StatusComplete && r.CompletedAt.IsZero() {
		r.CompletedAt = r.UpdatedAt
	}
	var unmet []string
	for _, c := range d.criteria {
		if !r.AcceptanceCriteriaMet[c] {
			unmet = append(unmet, c)
		}
	}
	if r.Status == records.StatusComplete && len(unmet) > 0 {
		d.warnf("status is complete but acceptance criteria are not met: %s", strings.Join(unmet, ", "))
	}

	// The form every record writer uses, stamped like a checkpoint with the
	// time of the last update.
	r.ID = records.ID(r.Agent, r.Issue, r.UpdatedAt)
	if d.sourceIDAt != nil && d.sourceID == r.ID {
		d.sourceIDAt.use("checkpoint_id")
	}

	doc, err := d.progress(key, unmet)
	if err != nil {
		return nil, err
	}
	r.ResumeInstructions = doc.Prompt()

	for k, v := range root.rest() {
		d.extra[k] = v
	}
	prov, err := json.Marshal(map[string]string{"format": string(d.format), "file": filepath.Base(d.path)})
	if err != nil {
		return nil, err
	}
	d.extra["importedFrom"] = prov
	r.Extra = d.extra
	d.fillEmpty()
	return &Imported{Source: d.path, Format: d.format, Agent: r.Agent, Record: *r, Progress: doc, Warnings: d.warnings}, nil
}

// settleTasks derives the record's steps and, unless the file counted them
// itself, its subtasks from the tasks.
func (d *draft) settleTasks() {
	r := &d.rec
	if d.current != "" && !slices.ContainsFunc(d.tasks, func(t task) bool { return t.id == d.current }) {
		d.tasks = append(d.tasks, task{id: d.current, status: taskInProgress})
	}
	for i, t := range d.tasks {
		if t.id == d.current && t.status != taskComplete {
			d.tasks[i].status = taskInProgress
			// The file's own pointer beats the statuses: another task
			// still marked in progress is queued behind it.
			r.CurrentStep = t.id
		}
	}
	for _, t := range d.tasks {
		switch {
		case t.status == taskComplete:
			r.CompletedSteps = append(r.CompletedSteps, t.id)
		case t.id == r.CurrentStep:
		case t.status == taskInProgress && r.CurrentStep == "":
			r.CurrentStep = t.id
		default:
			r.NextSteps = append(r.NextSteps, t.id)
		}
	}
	if d.explicitSubtasks {
		return
	}
	s := &r.Subtasks
	s.Total = len(d.tasks)
	for _, t := range d.tasks {
		switch t.status {
		case taskComplete:
			s.Completed++
		case taskFailed:
			s.Failed++
		}
		s.Items = append(s.Items, records.Subtask{ID: t.id, Status: t.status, Output: t.output})
	}
	if s.Total > 0 {
		s.Percent = s.Completed * 100 / s.Total
	}
}

// derivedStatus is the status a file that states none implies.
func (d *draft) derivedStatus() string {
	switch {
	case len(d.blockers) > 0 || slices.ContainsFunc(d.tasks, func(t task) bool { return t.status == taskBlocked }):
		return records.StatusBlocked
	case len(d.tasks) > 0 && !slices.ContainsFunc(d.tasks, func(t task) bool { return t.status != taskComplete }):
		return records.StatusComplete
	}
	return records.StatusInProgress
}

// progress builds the progress document a project without one gets: the
// tasks in their lists, blockers, the next action and a prompt naming the
// key files.
func (d *draft) progress(key string, unmet []string) (*progress.Document, error) {
	r := &d.rec
	doc := progress.New(key, r.UpdatedAt)
	doc.Fields = append(doc.Fields, progress.Field{Name: "Imported From", Value: filepath.Base(d.path) + " (" + d.format.Description() + ")"})
	doc.Fields = append(doc.Fields, d.fields...)
	e := progress.Edits{Session: r.UpdatedAt.UTC().Format("2006-01-02T15:04:05Z"), Next: d.next}
	blockers := slices.Clone(d.blockers)
	for _, t := range d.tasks {
		switch {
		case t.status == taskComplete:
			e.Done = append(e.Done, t.id)
		case t.id == r.CurrentStep:
			e.Current = t.id
		case t.status == taskFailed:
			e.AddTasks = append(e.AddTasks, t.id+" (failed)")
		case t.status == taskBlocked:
			e.AddTasks = append(e.AddTasks, t.id)
			blockers = append(blockers, t.id+" is blocked")
		default:
			e.AddTasks = append(e.AddTasks, t.id)
		}
	}
	done, open := d.unlisted()
	if done > 0 {
		// Before the listed ones: the file counts them as done earlier.
		e.Done = append([]string{fmt.Sprintf("%d subtask(s) done, not listed in the checkpoint", done)}, e.Done...)
	}
	if open > 0 {
		e.AddTasks = append(e.AddTasks, fmt.Sprintf("%d subtask(s) still to do, not listed in the checkpoint", open))
	}
	for _, c := range unmet {
		e.AddTasks = append(e.AddTasks, "meet acceptance criterion "+c)
	}
	e.Blockers = blockers
	if err := doc.Apply(e); err != nil {
		d.warnf("progress: %v", err)
	}
	doc.RefreshPrompt(d.keyFiles(), true)
	return doc, nil
}

// unlisted counts the subtasks a file counted but did not list (seed 002
// lists a few of its 29): done ones, and ones still to do. The progress
// document gets a task for each group, so its counts agree with the
// record's subtasks.
func (d *draft) unlisted() (done, open int) {
	if !d.explicitSubtasks {
		return 0, 0
	}
	s := d.rec.Subtasks
	var listedDone, listedFailed int
	for _, it := range s.Items {
		switch it.Status {
		case taskComplete:
			listedDone++
		case taskFailed:
			listedFailed++
		}
	}
	done = max(s.Completed-listedDone, 0)
	failed := max(s.Failed-listedFailed, 0)
	open = max(s.Total-len(s.Items)-done-failed, 0)
	return done, open
}

// maxKeyFiles keeps the prompt short: a sitebuilder checkpoint can list
// hundreds of created files.
const maxKeyFiles = 8

func (d *draft) keyFiles() []string {
	var files []string
	for _, f := range slices.Concat(d.rec.FilesModified, d.rec.FilesCreated) {
		if !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	if len(files) > maxKeyFiles {
		files = append(files[:maxKeyFiles], fmt.Sprintf("and %d more", len(files)-maxKeyFiles))
	}
	return files
}

// fillEmpty writes empty lists and objects as [] and {}, never null, so a
// record always has the same shape.
func (d *draft) fillEmpty() {
	r := &d.rec
	for _, p := range []*[]string{&r.CompletedSteps, &r.NextSteps, &r.FilesCreated, &r.FilesModified} {
		if *p == nil {
			*p = []string{}
		}
	}
	if r.Subtasks.Items == nil {
		r.Subtasks.Items = []records.Subtask{}
	}
	if r.Errors == nil {
		r.Errors = []records.Error{}
	}
	if r.AcceptanceCriteriaMet == nil {
		r.AcceptanceCriteriaMet = map[string]bool{}
	}
}
