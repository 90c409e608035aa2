package records

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"

	"github.com/ccc-checkpoint/ccc/internal/redact"
)

// SubagentsDir (in .ccc/) holds one file per subagent the hooks saw start
// (Claude Code's SubagentStart and SubagentStop).
const SubagentsDir = "subagents"

// KeepSubagents is how many subagent files a project keeps, newest first.
const KeepSubagents = 50

// Subagent is one subagent of a session, as `ccc status` shows it under
// the agent whose record names that session.
type Subagent struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Session string `json:"session"`
	// Status is "running" or "stopped".
	Status      string `json:"status"`
	LastMessage string `json:"lastMessage,omitempty"`
	// Task is what the subagent's own list (its TodoWrite) has in
	// progress; Done and Total count that list. A subagent's list is
	// never the session's.
	Task      string    `json:"task,omitempty"`
	Done      int       `json:"done,omitempty"`
	Total     int       `json:"total,omitempty"`
	UpdatedAt time.Time `json:"updatedAt"`
}

var unsafeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9_-]`) })

// WriteSubagent records a subagent's state in root's .ccc/subagents and
// keeps the newest KeepSubagents files.
func WriteSubagent(root string, s Subagent) error {
	dir, err := projectfs.ProjectDir(root, SubagentsDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	s.LastMessage = redact.Clip(s.LastMessage, 500)
	s.Task = redact.Clip(s.Task, 500)
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	name := unsafeName().ReplaceAllString(s.ID, "-")
	if name == "" {
		name = "unnamed"
	}
	if err := projectfs.WriteFileAtomic(filepath.Join(dir, name+".json"), data, 0o644); err != nil {
		return err
	}
	subs := ReadSubagents(root)
	for _, old := range subs[min(len(subs), KeepSubagents):] {
		_ = os.Remove(filepath.Join(dir, unsafeName().ReplaceAllString(old.ID, "-")+".json"))
	}
	return nil
}

// ReadSubagents reads root's subagent files, newest first; a file that
// cannot be read is skipped.
func ReadSubagents(root string) []Subagent {
	dir, err := projectfs.ProjectDir(root, SubagentsDir)
	if err != nil {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Subagent
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") || len(out) > 4*KeepSubagents {
			continue
		}
		data, err := projectfs.ReadProjectFile(root, filepath.Join(dir, e.Name()), 64<<10)
		if err != nil {
			continue
		}
		var s Subagent
		if json.Unmarshal(data, &s) == nil && s.ID != "" {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].UpdatedAt.After(out[j].UpdatedAt) })
	return out
}
