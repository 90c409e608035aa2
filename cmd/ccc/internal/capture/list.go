// Package capture is what every agent's checklist capture shares: the
// list as read (List), its fold into the progress file (Fold), the cleaning
// of captured text (Clean), the bounded readers of an agent's log
// (EachLine, OpenTail, ScanBackward) and the context a resumed session is
// given (Context). The readers of each agent's own files live in its
// package under cmd/ccc/internal/agent.
package capture

type Status string // "pending" | "in_progress" | "completed" | "cancelled" | "blocked"

type Task struct {
	ID         string // the tool's own id ("3" for Claude's task files); empty when it has none: Fold uses TextID
	Text       string // subject / content / step / description
	Status     Status
	ActiveForm string   // Claude's activeForm, optional
	BlockedBy  []string // ids
}

type List struct {
	Agent  string // the agent's name (agent.Agent.Name), in the marks of its tasks
	Source string // file the list was read from (for messages)
	Tasks  []Task
}
