// Package agent is what ccc knows about one coding agent (Claude Code,
// Codex CLI, Gemini CLI), behind one small interface: its name and how to
// tell its hook payloads apart. Everything else an agent may do is an
// optional capability discovered by type assertion (TaskLister,
// LogLister, TranscriptReader, InputReader, EventNamer, Resumer,
// HookInstaller, OptionsInstaller, ListCarrier).
// Each agent is a package of its own below this one; agent/all is the one
// explicit list of them. The hooks never ask which agent they serve: they
// ask whether it can do a thing.
package agent

import (
	"bytes"
	"encoding/json"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/install"
	"github.com/ccc-checkpoint/ccc/config"
)

// Agent is one coding agent whose hooks run ccc.
type Agent interface {
	// Name is the agent's name on the command line (--agent, ccc init)
	// and in the marks of the tasks captured from its list: lowercase,
	// one word, never changed once released.
	Name() string
	// Detect says how surely a hook payload is this agent's, from what
	// only this agent sends. It must not fail: a payload without any sign
	// of the agent is None.
	Detect(p Payload) Evidence
}

// Evidence is how surely a payload is an agent's: the highest wins; on a
// tie, the agent listed first in agent/all; with None everywhere, the
// default agent.
type Evidence int

const (
	// None: nothing in the payload is this agent's own.
	None Evidence = iota
	// Field: a field only this agent sends today (Codex's turn_id).
	Field
	// Log: its transcript path has the shape of this agent's own log, or
	// a field the other agents send under other names (Gemini's timestamp).
	Log
	// Named: the log's file name is this agent's (Codex's rollout-*.jsonl).
	Named
	// Own: an event name or field no other agent has (Gemini's AfterAgent,
	// prompt_response).
	Own
)

// Payload is a hook's stdin as one JSON object, decoded once: its
// top-level fields as written.
type Payload map[string]json.RawMessage

// String is the field's value when it is a JSON string, else "".
func (p Payload) String(key string) string {
	raw := p[key]
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return ""
	}
	return s
}

// IsString reports whether the field is there as a JSON string ("" too).
func (p Payload) IsString(key string) bool {
	raw := bytes.TrimSpace(p[key])
	return len(raw) > 0 && raw[0] == '"'
}

// Has reports whether the field is there at all, null included.
func (p Payload) Has(key string) bool { return len(p[key]) > 0 }

// Input is the part of a hook's stdin that ccc reads. Fields of another
// JSON type than the agents send are read as absent.
type Input struct {
	SessionID      string
	TranscriptPath string
	// Cwd is the session's working directory, which the agents send with
	// every event; the project root is found from it.
	Cwd string
	// LastAssistantMessage is sent with Stop by recent Claude Code and
	// Codex versions; an agent that names it otherwise fills it in
	// (InputReader).
	LastAssistantMessage string
	// Source is SessionStart's startup, resume, clear, compact or (Codex) fork.
	Source string
	// Trigger is PreCompact's manual or auto.
	Trigger string
	// Agent is who sent the input: --agent, else the registry's detection.
	Agent Agent
	// Event is hook_event_name, the agent's own name for the event.
	Event string
	// ToolName and ToolInput are a tool event's tool (PostToolUse,
	// Gemini's AfterTool).
	ToolName  string
	ToolInput json.RawMessage
	// ToolFailed says the agent refused or failed the call (Claude Code's
	// PostToolUseFailure, a tool_response with is_error or error): the call
	// changed nothing, and its input is not the list.
	ToolFailed bool
	// TaskID and TaskSubject are TaskCreated's and TaskCompleted's.
	TaskID      string
	TaskSubject string
	// AgentID, AgentType, AgentTranscriptPath are a subagent's
	// (SubagentStart, SubagentStop).
	AgentID             string
	AgentType           string
	AgentTranscriptPath string
	// Error and ErrorDetails are StopFailure's API error.
	Error        string
	ErrorDetails string
}

// InputReader fills in what an agent sends under its own names, after the
// common fields are read (Gemini's prompt_response is the last assistant
// message).
type InputReader interface {
	ReadInput(p Payload, in *Input)
}

// EventNamer maps the agent's own event names to ccc's hooks ("AfterAgent"
// → "stop"), so that `ccc hook <its event>` works.
type EventNamer interface {
	Events() map[string]string
}

// TaskLister reads a checklist the agent keeps in files of its own beside
// the session (Claude Code's task files), or that a tool call's input holds
// whole (TodoWrite). env is what Claude Code told the hook in its
// environment (where the files are; nil: nothing). No list:
// capture.ErrNoList.
type TaskLister interface {
	ListTasks(env *config.ClaudeEnv, in Input) (capture.List, error)
	// ChangesList reports whether a call of the tool changes the list:
	// after another tool, post-tool-use captures nothing.
	ChangesList(tool string) bool
}

// ListCarrier carries the checklist of the session a new one replaces over
// to it (Claude Code's /clear starts a session whose task list is empty).
// last is the session whose list ccc captured last in the project, read
// from a project file a cloned repository can plant: the carrier follows it
// only to a session of its own, and says why not in its error. carried
// says a list was copied.
type ListCarrier interface {
	CarryList(env *config.ClaudeEnv, in Input, last LastSession) (carried bool, err error)
}

// LastSession is where a ListCarrier finds the session whose list ccc
// captured last in a project.
type LastSession struct {
	// File names it in messages (".ccc/capture-session").
	File string
	// Read is the session's id, "" when none is known; read only when the
	// carrier needs it.
	Read func() (string, error)
}

// LogLister reads the checklist from the session's own log (or from the
// input of the tool call that wrote it, when the event is that call), so
// any event can capture it. No list: capture.ErrNoList.
type LogLister interface {
	ListFromLog(in Input) (capture.List, error)
}

// TranscriptReader reads the agent's transcript backwards, once per hook:
// the newest checklist call when wantTodos, the files touched lately, the
// last assistant text. A path with no file is an error wrapping
// os.ErrNotExist.
type TranscriptReader interface {
	ReadTranscript(path string, wantTodos bool) (capture.Transcript, error)
}

// Resumer words the request to re-create a lost checklist, in the agent's
// own tool names, for the context a resumed session is given.
type Resumer interface {
	RecreateList() string
}

// HookInstaller writes, checks and removes ccc's hooks in a project's
// configuration for the agent (ccc init, ccc doctor). Install and Remove
// are idempotent and never touch a hook that is not ccc's; with dryRun
// they only say what they would change.
type HookInstaller interface {
	// ConfigFile is the project file the hooks go into, relative to the
	// root (".codex/hooks.json").
	ConfigFile() string
	InstallHooks(root string, dryRun bool) (install.Result, error)
	RemoveHooks(root string, dryRun bool) (install.Result, error)
	CheckHooks(root string) (install.Check, error)
	// InitHelp is the help of `ccc init <name>`, which every installer
	// gets.
	InitHelp() InitHelp
}

// InitHelp is the help of one agent's `ccc init <name>`; the command adds
// the flags and the EXIT STATUS.
type InitHelp struct {
	Short, Long, Example string
	// Unreadable names the file in EXIT STATUS 1: "<it> cannot be read as
	// JSON, or cannot be written".
	Unreadable string
}

// InstallOption is a flag of `ccc init <name>` beyond --dry-run and
// --remove: a switch, off unless given.
type InstallOption struct {
	Name, Usage string
}

// OptionsInstaller is a HookInstaller with options of its own (Claude
// Code's --enable-todo-tools).
type OptionsInstaller interface {
	HookInstaller
	InstallOptions() []InstallOption
	// InstallWith is InstallHooks with the options given on (by Name).
	InstallWith(root string, dryRun bool, on map[string]bool) (install.Result, error)
}

// ToolResponseFailed reports whether a tool event's tool_response says the
// call failed: an object with "is_error": true or a non-empty "error"
// (Gemini CLI's AfterTool sends {llmContent, returnDisplay, error}).
func ToolResponseFailed(raw json.RawMessage) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	var r struct {
		IsError bool            `json:"is_error"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return false
	}
	switch e := string(r.Error); {
	case r.IsError:
		return true
	case e == "" || e == "null" || e == `""` || e == "false" || e == "{}":
		return false
	}
	return true
}
