package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
)

// ProgressFile is the session's handoff document.
const ProgressFile = ".ccc-progress.md"

// project reports whether root holds a ccc project: a progress document or
// a state file. The hooks other than stop do nothing anywhere else, so a
// plugin installed for every project never litters the others.
func project(root string) error {
	for _, name := range []string{ProgressFile, state.FileName} {
		if _, err := os.Stat(filepath.Join(root, name)); err == nil {
			return nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return fmt.Errorf("no %s or %s in %s: %w", ProgressFile, state.FileName, root, errNoProject)
}

// errNoProject is project's answer for a directory with neither file.
var errNoProject = errors.New("not a ccc project")

// PreCompact saves progress before Claude Code compacts the context: the
// automated checkpoint profile, within its deadline. It prints nothing, so
// it never stands in the way of the compaction. While the state holds a CCC
// loop, the checkpoint leaves it as the stop hook, its owner, left it.
func PreCompact(ctx context.Context, env Env, stdin []byte) {
	env = env.onceRoot().withLockWaits()
	const event = "pre-compact"
	in, err := env.parse(stdin)
	if err != nil {
		env.logf(event, "%v", err)
		return
	}
	root, err := env.Root(ctx, in.Cwd)
	if err == nil {
		captureAgentList(ctx, env, event, in, root)
		err = project(root)
	}
	if err != nil {
		env.logf(event, "%v", err)
		return
	}
	captureList(ctx, env, event, in, captureOpts{transcript: true})
	p, perr := env.Prefs(root)
	touchStamp(root, env.now())
	runCheckpointAfter(ctx, env, event, CheckpointRequest{Root: root, Deadline: time.Duration(p.Hooks.CheckpointTimeout), SessionID: in.SessionID,
		KeepState: cccLoop(root)}, perr)
}

// cccLoop reports whether root's state file belongs to a CCC loop (it has a
// phase), whose keys only the stop hook may change. A file that cannot be
// read or parsed counts as one: it is left alone.
func cccLoop(root string) bool {
	data, err := projectfs.ReadProjectFile(root, state.Path(root), state.MaxSize)
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	st, err := state.Parse(data)
	if err != nil {
		return true
	}
	raw, ok := st.Raw("phase")
	return ok && string(raw) != "null"
}

// Resume is what a new session is told about the last checkpoint.
type Resume struct {
	Prompt string
	Issue  string
	TaskN  int
	TaskM  int
	// Blockers are the open blockers' descriptions.
	Blockers []string
	Age      time.Duration
	// Warnings say what moved since the checkpoint (branch, HEAD).
	Warnings []string
	// Broken says the progress file is too broken to use (path:line, the
	// problem, the fix); Prompt is then a stand-in's, or empty when there
	// was none.
	Broken string
	// PrefsReported says the loader has already said on stderr that the
	// preferences are broken: the startup check does not say it again
	// (a hook says its problems in one line).
	PrefsReported bool
	// Branch and Head are where the repository is now.
	Branch, Head string
}

// ResumeLoader reads a project's last checkpoint; ok is false when there is
// none.
type ResumeLoader func(ctx context.Context, root string) (r Resume, ok bool, err error)

// SessionStart re-injects the continuation prompt into a session that
// follows a compaction or resumes one, and into a new one when the last
// checkpoint is recent. It returns the hook's stdout.
func SessionStart(ctx context.Context, env Env, stdin []byte, load ResumeLoader) []byte {
	env = env.onceRoot()
	const event = "session-start"
	in, err := env.parse(stdin)
	if err != nil {
		env.logf(event, "%v", err)
		return nil
	}
	switch in.Source {
	case "compact", "resume", "startup", "fork": // fork: Codex, a new thread from an old one
	case "clear":
		// The user asked for a fresh context, not a fresh task list.
		if root, err := env.Root(ctx, in.Cwd); err == nil && project(root) == nil {
			if err := carryOver(env, root, in); err != nil {
				env.logf(event, "%v", err)
			}
		}
		return nil
	default:
		return nil
	}
	root, err := env.Root(ctx, in.Cwd)
	if err != nil {
		env.logf(event, "%v", err)
		return nil
	}
	captureAgentList(ctx, env, event, in, root)
	c := captureList(ctx, env, event, in, captureOpts{transcript: true})
	c.root = root
	r, ok, err := load(ctx, root)
	if err != nil {
		env.logf(event, "%v", err)
		return nil
	}
	if !ok {
		env.logf(event, "no checkpoint in %s", root)
		return nil
	}
	if r.Broken != "" {
		// The agent must learn it, however old the last checkpoint is: its
		// handoff file cannot be trusted and no checkpoint will save it.
		env.logf(event, "%s", r.Broken)
	} else if in.Source == "startup" {
		p, err := env.Prefs(root)
		if err != nil && !r.PrefsReported {
			env.logf(event, "%v", err)
		}
		if r.Age >= time.Duration(p.Hooks.SessionStartMaxAge) {
			env.logf(event, "the last checkpoint is %s old (hooks.session_start_max_age %s); not injected", FormatAge(r.Age), FormatAge(time.Duration(p.Hooks.SessionStartMaxAge)))
			return nil
		}
	}
	type specific struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	text := r.Context()
	if c.doc == nil && r.Broken == "" {
		// Parsed again only when it holds captured tasks: a big file costs.
		path := filepath.Join(root, ProgressFile)
		if data, err := projectfs.ReadProjectFile(root, path, progress.MaxSize); err == nil && bytes.Contains(data, []byte("<!-- ccc:task ")) {
			if doc, err := progress.Parse(data); err == nil {
				c.doc = doc
			}
		}
	}
	if c.doc != nil && r.Broken == "" && c.doc.TaskM() > 0 {
		tr := c.tr
		tr.Files = c.relFiles() // a file outside the project is not named
		recreate := ""
		if r, ok := agentOf(in).(agent.Resumer); ok {
			recreate = r.RecreateList()
		}
		text += "\n\n" + capture.Context(c.doc, tr, c.list != nil, recreate, capture.Where{Branch: r.Branch, Head: r.Head})
	}
	return writeJSON(struct {
		HookSpecificOutput specific `json:"hookSpecificOutput"`
	}{specific{"SessionStart", withReplies(ctx, env, root, text)}})
}

// Context is the text added to the new session: the prompt, one status
// line, and a warning line per drift.
func (r Resume) Context() string {
	var b strings.Builder
	switch {
	case r.Broken != "":
		b.WriteString("ccc: your handoff file " + ProgressFile + " is broken and no checkpoint will update it until it is fixed: " + r.Broken + "\n\n")
		if strings.TrimSpace(r.Prompt) == "" {
			return strings.TrimRight(b.String(), "\n")
		}
		b.WriteString("Continuation prompt of the last good checkpoint (the warning below says where it comes from):\n\n")
	default:
		b.WriteString("Resuming from the last ccc checkpoint. Continuation prompt (from " + ProgressFile + "):\n\n")
	}
	if p := strings.TrimSpace(r.Prompt); p != "" {
		b.WriteString(p + "\n\n")
	}
	b.WriteString(r.Status() + "\n")
	for _, w := range r.Warnings {
		b.WriteString("Warning: " + w + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// Status is the one-line summary: issue, task N of M, blockers, age.
func (r Resume) Status() string {
	var parts []string
	if r.Issue != "" {
		parts = append(parts, r.Issue)
	}
	parts = append(parts, fmt.Sprintf("task %d of %d", r.TaskN, r.TaskM))
	if len(r.Blockers) == 0 {
		parts = append(parts, "blockers: none")
	} else {
		parts = append(parts, "blockers: "+strings.Join(r.Blockers, "; "))
	}
	parts = append(parts, fmt.Sprintf("checkpoint taken %s ago", FormatAge(r.Age)))
	return "ccc status: " + strings.Join(parts, ", ") + "."
}

// FormatAge prints a duration the way people say it: 45s, 12m, 3h5m, 2d4h.
func FormatAge(d time.Duration) string {
	d = max(d, 0).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		h, m := int(d.Hours()), int(d.Minutes())%60
		if m != 0 {
			return fmt.Sprintf("%dh%dm", h, m)
		}
		return fmt.Sprintf("%dh", h)
	default:
		days, h := int(d.Hours())/24, int(d.Hours())%24
		if h != 0 {
			return fmt.Sprintf("%dd%dh", days, h)
		}
		return fmt.Sprintf("%dd", days)
	}
}

// Session copies of the progress document, kept by session-end.
const (
	SessionsDir  = "sessions"
	KeepSessions = 20
	// Not projectfs.StampLayout: pruning parses the copies' names, and a
	// new layout would leave the copies already kept unpruned.
	sessionStamp = "20060102T150405Z"
	sessionPre   = ".ccc-progress-"
	sessionExt   = ".md"
)

// SessionEnd keeps a timestamped copy of the progress document in
// .ccc/sessions (CCC put its copies at the project root), the newest
// KeepSessions of them. It returns the copy's path, "" when none was made.
func SessionEnd(ctx context.Context, env Env, stdin []byte) string {
	env = env.onceRoot().withLockWaits()
	const event = "session-end"
	in, err := env.parse(stdin)
	if err != nil {
		env.logf(event, "%v", err)
		return ""
	}
	root, err := env.Root(ctx, in.Cwd)
	if err != nil {
		env.logf(event, "%v", err)
		return ""
	}
	captureAgentList(ctx, env, event, in, root)
	// The session's last word on its list reaches the tracker: a boundary.
	if c := captureList(ctx, env, event, in, captureOpts{transcript: true}); c.list != nil {
		boundary(ctx, env, event, c, in)
	}
	data, err := projectfs.ReadProjectFile(root, filepath.Join(root, ProgressFile), progress.MaxSize)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			err = fmt.Errorf("no %s in %s: nothing to keep", ProgressFile, root)
		}
		env.logf(event, "%v", err)
		return ""
	}
	dir, err := projectfs.ProjectDir(root, SessionsDir)
	if err != nil {
		env.logf(event, "%v", err)
		return ""
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		env.logf(event, "%v", err)
		return ""
	}
	dest := filepath.Join(dir, sessionPre+env.now().UTC().Format(sessionStamp)+sessionExt)
	if err := projectfs.WriteFileAtomic(dest, data, 0o644); err != nil {
		env.logf(event, "%v", err)
		return ""
	}
	if err := pruneSessions(dir); err != nil {
		env.logf(event, "pruning old copies: %v", err)
	}
	return dest
}

// pruneSessions removes all but the newest KeepSessions copies; files that
// are not ccc's copies are left alone.
func pruneSessions(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		stamp, ok := strings.CutPrefix(e.Name(), sessionPre)
		if !ok || e.IsDir() {
			continue
		}
		if stamp, ok = strings.CutSuffix(stamp, sessionExt); !ok {
			continue
		}
		if _, err := time.Parse(sessionStamp, stamp); err != nil {
			continue
		}
		names = append(names, e.Name())
	}
	// The stamp is fixed-width, so name order is time order.
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	for _, n := range names[min(len(names), KeepSessions):] {
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// withReplies adds the replies people wrote in Linear since the hooks last
// looked to text (the agent's additional context or a block's reason).
func withReplies(ctx context.Context, env Env, root, text string) string {
	if env.Replies == nil {
		return text
	}
	replies, by := env.Replies(ctx, root)
	if replies != "" {
		text = strings.TrimRight(text, "\n") + "\n\n" + replies
	}
	if by != "" {
		// A stop read here is acknowledged in Linear: unless it is said
		// now, the agent never learns of it.
		text = strings.TrimRight(text, "\n") + "\n\n" + by + " stopped this work from Linear: do not continue the task; " +
			"tell the user it was stopped and wait for their instructions."
	}
	return text
}
