// Package capture reads an agent's own checklist and folds it into the progress file.
package capture

type Status string // "pending" | "in_progress" | "completed" | "cancelled" | "blocked"

type Task struct {
	ID         string // the agent's stable id ("3" for Claude's task files; "todo-2" index-based for TodoWrite/plans)
	Text       string // subject / content / step / description
	Status     Status
	ActiveForm string   // Claude's activeForm, optional
	BlockedBy  []string // ids
}

type List struct {
	Agent  string // "claude" | "codex" | "gemini"
	Source string // file the list was read from (for messages)
	Tasks  []Task
}
