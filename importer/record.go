package importer

import (
	"encoding/json"
	"time"
)

// SchemaVersion is the version of the checkpoint record Import produces.
const SchemaVersion = 1

// Record statuses.
const (
	StatusInProgress = "in_progress"
	StatusBlocked    = "blocked"
	StatusComplete   = "complete"
	StatusFailed     = "failed"
)

// Record is a ccc checkpoint record (.ccc/checkpoints/<agent>.json) with
// exactly the keys ccc's records use. Every key is always written, so a
// reader never has to tell a missing key from an empty one.
type Record struct {
	SchemaVersion  int           `json:"schemaVersion"`
	ID             string        `json:"id"`
	Agent          string        `json:"agent"`
	SessionID      string        `json:"sessionId"`
	Issue          string        `json:"issue"`
	Status         string        `json:"status"`
	Phase          string        `json:"phase"`
	CurrentStep    string        `json:"currentStep"`
	CompletedSteps []string      `json:"completedSteps"`
	NextSteps      []string      `json:"nextSteps"`
	Subtasks       Subtasks      `json:"subtasks"`
	FilesCreated   []string      `json:"filesCreated"`
	FilesModified  []string      `json:"filesModified"`
	Errors         []RecordError `json:"errors"`
	// AcceptanceCriteriaMet maps a criterion to whether it is met.
	AcceptanceCriteriaMet map[string]bool `json:"acceptanceCriteriaMet"`
	// ResumeInstructions is the continuation prompt.
	ResumeInstructions     string     `json:"resumeInstructions"`
	CreatedAt              *time.Time `json:"createdAt"`
	UpdatedAt              *time.Time `json:"updatedAt"`
	CompletedAt            *time.Time `json:"completedAt"`
	Heartbeat              Heartbeat  `json:"heartbeat"`
	NextCheckpointExpected *time.Time `json:"nextCheckpointExpected"`
	Branch                 string     `json:"branch"`
	Head                   string     `json:"head"`
	// Extra holds the source's fields the record has no place for, under
	// their original keys.
	Extra map[string]json.RawMessage `json:"extra"`
}

// Subtasks counts the work items of a record.
type Subtasks struct {
	Total     int       `json:"total"`
	Completed int       `json:"completed"`
	Failed    int       `json:"failed"`
	Percent   int       `json:"percent"`
	Items     []Subtask `json:"items"`
}

// Subtask is one work item; Output is what it produced (null when nothing yet).
type Subtask struct {
	ID     string  `json:"id"`
	Status string  `json:"status"`
	Output *string `json:"output"`
}

// RecordError is an error a record carries; Blocking errors stop the agent.
type RecordError struct {
	Type      string     `json:"type"`
	Message   string     `json:"message"`
	Timestamp *time.Time `json:"timestamp"`
	Blocking  bool       `json:"blocking"`
}

// Heartbeat is the agent's liveness signal.
type Heartbeat struct {
	LastBeat        *time.Time `json:"lastBeat"`
	IntervalSeconds int        `json:"intervalSeconds"`
}
