package hook

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/internal/redact"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// APIErrorPrefix starts the blocker a StopFailure sets; the next
// successful stop resolves it.
const APIErrorPrefix = "API error: "

// captureStamp (in .ccc/) is touched whenever a capture updated the
// tracker: PostToolUse updates it again only hooks.capture_interval later.
const captureStamp = "capture-posted"

// lastSessionFile (in .ccc/) names the session whose list the last capture
// read: SessionStart source clear carries that list to the new session.
const lastSessionFile = "capture-session"

// captureOpts says what one hook's capture reads and sets.
type captureOpts struct {
	// transcript reads the transcript: the newest TodoWrite, the files
	// touched, the last assistant line. PostToolUse never does.
	transcript bool
	// completed is TaskCompleted's task id: completed, whatever the file
	// says yet (the hook runs before Claude Code writes it).
	completed string
	// apiError is a StopFailure's blocker text.
	apiError string
	// stopped is a successful stop: API error blockers are resolved.
	stopped bool
}

// captured is what a capture found and did.
type captured struct {
	root    string
	list    *capture.List
	changed bool
	doc     *progress.Document
	tr      capture.Transcript
}

// onceRoot makes env find the root once per hook, however many steps ask.
func (e Env) onceRoot() Env {
	find := e.Root
	if find == nil {
		return e
	}
	var (
		done bool
		root string
		err  error
	)
	e.Root = func(ctx context.Context, cwd string) (string, error) {
		if !done {
			root, err = find(ctx, cwd)
			done = true
		}
		return root, err
	}
	return e
}

// captureList reads the agent's list and folds it into the progress file,
// which it writes only when something changed. A project without a progress
// file gets one from the agent's first list with a task, said once on
// stderr: after `ccc init claude` nobody has to type a checkpoint first (as
// Codex and Gemini capture already did). With no list and nothing else to
// set it does nothing and says nothing, and outside a ccc project a list
// without tasks leaves it one.
func captureList(ctx context.Context, env Env, event string, in Input, o captureOpts) captured {
	root, err := env.Root(ctx, in.Cwd)
	if err != nil {
		return captured{}
	}
	fresh := false
	if err := project(root); err != nil {
		if !errors.Is(err, errNoProject) {
			return captured{}
		}
		fresh = true
	}
	c := captured{root: root}
	list, err := readList(env, event, in, o, &c.tr)
	switch {
	case errors.Is(err, capture.ErrNoList):
		if err != capture.ErrNoList { //nolint:errorlint // a reason beyond "no list" is worth a debug line
			env.debugf(event, "capture: %v", err)
		}
	case err != nil:
		env.logf(event, "capture: %v", err)
	default:
		c.list = &list
		rememberSession(root, in.SessionID)
	}
	if c.list == nil && o.apiError == "" && !o.stopped {
		return c
	}
	if fresh {
		c = c.create(env, event, root, o)
		return c
	}
	path := filepath.Join(root, ProgressFile)
	for range 2 { // once more when someone wrote the file in between
		orig, doc, err := readProgress(root, path, env.now())
		if err != nil {
			if c.list != nil || o.apiError != "" { // a stop that only looks for an API error says nothing
				env.logf(event, "capture: %v", err)
			}
			return c
		}
		c.doc = doc
		c.changed = c.fold(doc, o)
		if !c.changed {
			return c
		}
		err = projectfs.ReplaceFile(path, orig, doc.Render(), 0o644)
		if !errors.Is(err, projectfs.ErrChanged) {
			if err != nil {
				env.logf(event, "capture: %v", err)
				c.changed = false
			}
			return c
		}
	}
	env.logf(event, "capture: %s keeps changing; not written", ProgressFile)
	c.changed = false
	return c
}

// create writes the first progress file of a project from the agent's
// list; a list that adds no task leaves the directory as it was (and is
// not a boundary: captured says no list).
func (c captured) create(env Env, event, root string, o captureOpts) captured {
	if c.list == nil {
		return captured{}
	}
	doc := progress.New("", env.now())
	if !c.fold(doc, o) || doc.TaskM() == 0 {
		return captured{}
	}
	c.doc, c.changed = doc, true
	err := projectfs.ReplaceFile(filepath.Join(root, ProgressFile), nil, doc.Render(), 0o644)
	switch {
	case errors.Is(err, projectfs.ErrChanged):
		// Someone (a checkpoint, another hook) created it meanwhile: the
		// next capture folds into theirs.
		return captured{}
	case err != nil:
		env.logf(event, "capture: %v", err)
		return captured{}
	}
	env.logf(event, "created %s from the agent's task list", ProgressFile)
	return c
}

// readList is the session's list from an agent that keeps one beside the
// session (agent.TaskLister: a TodoWrite call's own input, else the task
// files), else (when asked) the transcript's newest checklist call.
func readList(env Env, event string, in Input, o captureOpts, tr *capture.Transcript) (capture.List, error) {
	lister, ok := agentOf(in).(agent.TaskLister)
	if !ok {
		return capture.List{}, capture.ErrNoList
	}
	list, err := lister.ListTasks(env.Claude, in)
	noFiles := errors.Is(err, capture.ErrNoList)
	if o.transcript {
		// The newest TodoWrite is looked for only without task files.
		got, read, terr := env.readTranscript(in, noFiles)
		switch {
		case !read:
		case terr == nil:
			*tr = got
		case errors.Is(terr, projectfs.ErrNotRegular) && !o.stopped:
			// A FIFO or a device is worth its one line (a stop says it
			// itself); a missing or torn transcript is not.
			env.logf(event, "capture: transcript: %v", terr)
		}
	}
	if noFiles && tr.Todos != nil {
		list, err = *tr.Todos, nil
	}
	if err == nil && o.completed != "" {
		for i := range list.Tasks {
			if list.Tasks[i].ID == o.completed {
				list.Tasks[i].Status = capture.Completed
			}
		}
	}
	return list, err
}

// readProgress reads and parses the progress file; a project with only a
// state file starts a new one.
func readProgress(root, path string, now time.Time) ([]byte, *progress.Document, error) {
	orig, err := projectfs.ReadProjectFile(root, path, progress.MaxSize)
	if errors.Is(err, os.ErrNotExist) {
		return nil, progress.New("", now), nil
	}
	if err != nil {
		return nil, nil, err
	}
	doc, err := progress.Parse(orig)
	if err != nil {
		return nil, nil, err
	}
	return orig, doc, nil
}

// fold applies the list and the API error blocker to doc, and regenerates
// ccc's own prompt when the tasks changed.
func (c *captured) fold(doc *progress.Document, o captureOpts) bool {
	ours := doc.PromptByCCC()
	files := doc.PromptFiles()
	changed := false
	if c.list != nil {
		changed = capture.Fold(doc, *c.list)
	}
	if o.stopped || o.apiError != "" {
		kept := doc.Blockers[:0:0]
		for _, b := range doc.Blockers {
			if strings.HasPrefix(b.Description, APIErrorPrefix) && !(b.Checkbox && b.Checked) {
				changed = changed || b.Description != o.apiError
				continue
			}
			kept = append(kept, b)
		}
		if o.apiError != "" {
			kept = append(kept, progress.Blocker{Description: o.apiError})
			changed = changed || len(kept) != len(doc.Blockers)
		}
		doc.Blockers = kept
	}
	if changed && ours {
		if rel := c.relFiles(); len(rel) > 0 {
			files = rel
		}
		doc.RefreshPrompt(files, true)
	}
	return changed
}

// relFiles are the transcript's touched files inside the project, relative
// to it; a file elsewhere is not named.
func (c *captured) relFiles() []string {
	var out []string
	for _, f := range c.tr.Files {
		rel, err := filepath.Rel(c.root, f)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			continue
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// rememberSession notes the session whose list was captured, for a later
// /clear; written only when it changes.
func rememberSession(root, session string) {
	if session == "" {
		return
	}
	dir, err := projectfs.ProjectDir(root)
	if err != nil {
		return
	}
	path := filepath.Join(dir, lastSessionFile)
	if old, err := projectfs.ReadProjectFile(root, path, 4096); err == nil && string(old) == session {
		return
	}
	if os.MkdirAll(dir, 0o755) == nil {
		_ = projectfs.WriteFileAtomic(path, []byte(session), 0o644)
	}
}

// boundary runs the automated checkpoint after a capture at one of the
// natural boundaries, and notes when it ran.
func boundary(ctx context.Context, env Env, event string, c captured, in Input) {
	p, perr := env.Prefs(c.root)
	touchStamp(c.root, env.now())
	runCheckpointAfter(ctx, env, event, CheckpointRequest{Root: c.root, Deadline: time.Duration(p.Hooks.CheckpointTimeout),
		SessionID: in.SessionID, KeepState: cccLoop(c.root)}, perr)
}

func touchStamp(root string, now time.Time) {
	dir, err := projectfs.ProjectDir(root)
	if err != nil || os.MkdirAll(dir, 0o755) != nil {
		return
	}
	path := filepath.Join(dir, captureStamp)
	if err := os.Chtimes(path, now, now); errors.Is(err, os.ErrNotExist) {
		if projectfs.WriteFileAtomic(path, nil, 0o644) == nil {
			_ = os.Chtimes(path, now, now)
		}
	}
}

// due reports whether the last capture that updated the tracker is at least
// interval old.
func due(root string, now time.Time, interval time.Duration) bool {
	dir, err := projectfs.ProjectDir(root)
	if err != nil {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, captureStamp))
	return err != nil || now.Sub(fi.ModTime()) >= interval
}

// PostToolUse captures the list after a call of a tool that changes it
// (agent.TaskLister's ChangesList: Claude Code's TaskCreate, TaskUpdate,
// TodoWrite). It reads the call's own input or the task files, never the
// transcript's list (a TodoWrite without agent_id has the transcript's tail
// read to tell a subagent's call: claudecode.SubagentCall), writes the
// progress file only when the list changed, and
// updates the tracker only when hooks.capture_interval has passed since
// the last capture that did. It prints nothing.
func PostToolUse(ctx context.Context, env Env, stdin []byte) {
	const event = "post-tool-use"
	in, err := ParseInput(stdin)
	if err != nil {
		env.logf(event, "%v", err)
		return
	}
	if l, ok := agentOf(in).(agent.TaskLister); !ok || !l.ChangesList(in.ToolName) {
		return // a matcher wider than the plugin's
	}
	if in.ToolFailed {
		env.debugf(event, "%s failed: the list did not change", in.ToolName)
		return
	}
	if in.AgentID != "" && in.ToolName == "TodoWrite" {
		subagentList(ctx, env, event, in)
		return
	}
	c := captureList(ctx, env, event, in, captureOpts{})
	if !c.changed {
		return
	}
	p, _ := env.Prefs(c.root)
	if due(c.root, env.now(), time.Duration(p.Hooks.CaptureInterval)) {
		boundary(ctx, env, event, c, in)
	}
}

// TaskCompleted captures the list with the finished task completed and
// updates the tracker: a boundary.
func TaskCompleted(ctx context.Context, env Env, stdin []byte) {
	const event = "task-completed"
	in, err := ParseInput(stdin)
	if err != nil {
		env.logf(event, "%v", err)
		return
	}
	if c := captureList(ctx, env, event, in, captureOpts{completed: in.TaskID}); c.list != nil {
		boundary(ctx, env, event, c, in)
	}
}

// PostCompact captures the list after a compaction, so that the
// SessionStart (source compact) that follows injects the captured truth.
// Claude Code reads no output from it (sdk.d.ts has no PostCompact
// hookSpecificOutput).
func PostCompact(ctx context.Context, env Env, stdin []byte) {
	const event = "post-compact"
	in, err := ParseInput(stdin)
	if err != nil {
		env.logf(event, "%v", err)
		return
	}
	captureList(ctx, env, event, in, captureOpts{transcript: true})
}

// StopFailure records the API error that ended the turn as the blocker
// "API error: …" until the next successful stop, and updates the tracker.
func StopFailure(ctx context.Context, env Env, stdin []byte) {
	const event = "stop-failure"
	in, err := ParseInput(stdin)
	if err != nil {
		env.logf(event, "%v", err)
		return
	}
	msg := capture.Clean(in.Error)
	if msg == "" {
		msg = "unknown"
	}
	if d := capture.Clean(in.ErrorDetails); d != "" {
		// Redacted before the cut: a credential cut in two is no longer
		// recognised by the checkpoint's redactor.
		msg += " — " + redact.Clip(d, 200)
	}
	if c := captureList(ctx, env, event, in, captureOpts{transcript: true, apiError: APIErrorPrefix + msg}); c.changed {
		boundary(ctx, env, event, c, in)
	}
}

// carryOver carries the list of the session before a /clear over to the
// new one, when the agent can (agent.ListCarrier), and remembers the new
// session when it did.
func carryOver(env Env, root string, in Input) error {
	c, ok := agentOf(in).(agent.ListCarrier)
	if !ok {
		return nil
	}
	last := agent.LastSession{
		File: projectfs.Dir + "/" + lastSessionFile,
		Read: func() (string, error) {
			dir, err := projectfs.ProjectDir(root)
			if err != nil {
				return "", err
			}
			raw, err := projectfs.ReadProjectFile(root, filepath.Join(dir, lastSessionFile), 4096)
			if err != nil {
				return "", nil
			}
			return string(raw), nil
		},
	}
	carried, err := c.CarryList(env.Claude, in, last)
	if carried {
		rememberSession(root, in.SessionID)
	}
	return err
}

// Subagent records a subagent's start or stop in .ccc/subagents, for
// `ccc status` to show under the session's agent. It prints nothing.
func Subagent(ctx context.Context, env Env, stdin []byte, stopped bool) {
	event := "subagent-start"
	if stopped {
		event = "subagent-stop"
	}
	in, err := ParseInput(stdin)
	if err != nil {
		env.logf(event, "%v", err)
		return
	}
	if in.AgentID == "" {
		return
	}
	root, err := env.Root(ctx, in.Cwd)
	if err != nil || project(root) != nil {
		return
	}
	s := records.Subagent{ID: in.AgentID, Type: in.AgentType, Session: in.SessionID, Status: "running", UpdatedAt: env.now().UTC()}
	for _, old := range records.ReadSubagents(root) {
		if old.ID == s.ID { // its list stays on the record
			s.Task, s.Done, s.Total = old.Task, old.Done, old.Total
		}
	}
	if stopped {
		s.Status, s.LastMessage = "stopped", lastLine(in.LastAssistantMessage)
	}
	if err := records.WriteSubagent(root, s); err != nil {
		env.logf(event, "%v", err)
	}
}

// subagentList puts a subagent's own TodoWrite list (agent_id is set only
// inside a subagent) on its record, for `ccc status`'s child row. It never
// touches the session's list; without a record (no subagent-start hook)
// it is ignored.
func subagentList(ctx context.Context, env Env, event string, in Input) {
	root, err := env.Root(ctx, in.Cwd)
	if err != nil || project(root) != nil {
		return
	}
	var rec *records.Subagent
	for _, s := range records.ReadSubagents(root) {
		if s.ID == in.AgentID {
			rec = &s
			break
		}
	}
	if rec == nil {
		env.debugf(event, "subagent %s's list ignored: no record (subagent-start hook)", in.AgentID)
		return
	}
	lister, ok := agentOf(in).(agent.TaskLister)
	if !ok {
		return
	}
	list, err := lister.ListTasks(env.Claude, in)
	if err != nil {
		env.debugf(event, "subagent %s: %v", in.AgentID, err)
		return
	}
	rec.Task, rec.Done, rec.Total = "", 0, len(list.Tasks)
	for _, t := range list.Tasks {
		switch {
		case t.Status == capture.Completed:
			rec.Done++
		case t.Status == capture.InProgress && rec.Task == "":
			rec.Task = t.ActiveForm
			if rec.Task == "" {
				rec.Task = t.Text
			}
		}
	}
	rec.UpdatedAt = env.now().UTC()
	if err := records.WriteSubagent(root, *rec); err != nil {
		env.logf(event, "%v", err)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return capture.Clean(lines[len(lines)-1])
}
