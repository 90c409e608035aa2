package linearagent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// memo is what the sink remembers per issue and agent between runs, beside
// the session id that the state file keeps: what Linear was last shown, so
// that the plan is sent only when it changed and each blocker, failure and
// completion is said once, and the last prompt the hooks handed on.
type memo struct {
	Session string `json:"session,omitempty"`
	URL     string `json:"url,omitempty"`
	// PlanHash hashes the plan last sent; Tasks are its tasks' texts, for
	// the tasks dropped since.
	PlanHash string   `json:"planHash,omitempty"`
	Tasks    []string `json:"tasks,omitempty"`
	// Blockers are the open blockers already asked about (elicitation).
	Blockers []string `json:"blockers,omitempty"`
	// Failed and Done: the error and the response were sent.
	Failed bool `json:"failed,omitempty"`
	Done   bool `json:"done,omitempty"`
	// Links are the external URLs already added to the session.
	Links []string `json:"links,omitempty"`
	// LastPrompt is the id of the newest prompt handed to the agent.
	LastPrompt string `json:"lastPrompt,omitempty"`
	// LastPromptAt is its createdAt: prompts are read by time, as Linear
	// does not say which way it lists them.
	LastPromptAt time.Time `json:"lastPromptAt,omitzero"`
	// Stopped: a person pressed stop, and nothing was said since; with
	// Done, no keep-alive thought is sent (it would reopen the session).
	Stopped bool `json:"stopped,omitempty"`
	// StopChecked is when the tool hooks last asked for a stop.
	StopChecked time.Time `json:"stopChecked,omitzero"`
	// Thought is when the last ephemeral thought was sent.
	Thought time.Time `json:"thought,omitzero"`
}

// memoPath is the memo's file for (issue, agent) under root's .ccc; ""
// when there is no project (tests of the sink alone).
func memoPath(root, issue, agent string) string {
	if root == "" {
		return ""
	}
	dir, err := projectfs.ProjectDir(root, "linear-agent")
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(issue + "\x00" + agent))
	return filepath.Join(dir, hex.EncodeToString(sum[:8])+".json")
}

// memoFile is the memo as stored: signed with the user's key for its
// issue and agent, so that a memo a repository committed, or one copied
// from another issue's, is not this user's and names no session to it.
type memoFile struct {
	Memo memo   `json:"memo"`
	Sig  string `json:"sig"`
}

func memoTag(key []byte, issue, agent string, m memo) string {
	data, _ := json.Marshal(m)
	return projectfs.Tag(key, "ccc/linear-agent-memo/v1", issue, agent, string(data))
}

// loadMemo reads the memo at path when this user's ccc signed it (key) for
// issue and agent; anything else is a fresh memo, which the next save
// replaces. No key trusts nothing.
func loadMemo(path string, key []byte, issue, agent string) memo {
	if path == "" {
		return memo{}
	}
	// The repository can commit .ccc/linear-agent too: a memo that is not
	// ccc's own regular file (a FIFO, a link to /dev/zero) or is over the
	// limit is a fresh one, as a broken one is.
	data, err := projectfs.ReadOwnFile(filepath.Dir(path), path, projectfs.MaxMemoSize)
	if err != nil {
		return memo{}
	}
	var f memoFile
	if json.Unmarshal(data, &f) != nil || !projectfs.ValidTag(key, f.Sig, "ccc/linear-agent-memo/v1", issue, agent, marshal(f.Memo)) {
		return memo{}
	}
	return f.Memo
}

func marshal(m memo) string {
	data, _ := json.Marshal(m)
	return string(data)
}

func saveMemo(path string, key []byte, issue, agent string, m memo) error {
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, _ := json.MarshalIndent(memoFile{Memo: m, Sig: memoTag(key, issue, agent, m)}, "", "  ")
	return projectfs.WriteFileAtomic(path, data, 0o644)
}
