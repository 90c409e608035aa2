package claudecode

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// CarryList copies the task folder of the session before a /clear to the
// new session's, which Claude Code would otherwise start empty. A folder
// the new session already has is left alone, and so is a named list
// ($CLAUDE_CODE_TASK_LIST_ID), which survives /clear by itself.
//
// The old session is followed only when it is a session id (Claude Code's
// id alphabet, so it names a folder inside tasks/) of this project, one
// whose transcript Claude Code keeps beside the new session's
// (transcript_path). Anything else is ignored, with an error saying so.
func (Agent) CarryList(env *config.ClaudeEnv, in agent.Input, last agent.LastSession) (bool, error) {
	session := in.SessionID
	if env == nil || session == "" || env.TaskListID != "" {
		return false, nil
	}
	old, err := last.Read()
	if err != nil {
		return false, err
	}
	if old == session || len(old) == 0 {
		return false, nil
	}
	if !ValidSessionID(old) {
		return false, fmt.Errorf("ignoring %s: not a session id", last.File)
	}
	if !sameProjectSession(in.TranscriptPath, old) {
		return false, fmt.Errorf("ignoring %s: session %s is not one of this project's Claude Code sessions (no transcript beside %s)",
			last.File, old, in.TranscriptPath)
	}
	from, to := TaskDir(*env, old), TaskDir(*env, session)
	ents, err := os.ReadDir(from)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if _, err := os.Stat(to); err == nil {
		return false, nil
	}
	if err := os.MkdirAll(to, 0o700); err != nil {
		return false, err
	}
	n := 0
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || !(strings.HasSuffix(name, ".json") || name == ".highwatermark") {
			continue // the lock stays behind
		}
		if n++; n > MaxTasks {
			break
		}
		data, err := projectfs.ReadProjectFile("", filepath.Join(from, name), 1<<20)
		if err != nil {
			continue
		}
		if err := projectfs.WriteFileAtomic(filepath.Join(to, name), data, 0o600); err != nil {
			return false, fmt.Errorf("carrying the task list over: %w", err)
		}
	}
	return true, nil
}

// sameProjectSession reports whether Claude Code keeps a transcript of
// session beside transcript, the hook's own: Claude Code files a project's
// sessions in one folder (~/.claude/projects/<project>/<session>.jsonl), so
// a session of another project, or a made-up one, has none there.
func sameProjectSession(transcript, session string) bool {
	if transcript == "" || !filepath.IsAbs(transcript) {
		return false
	}
	fi, err := os.Lstat(filepath.Join(filepath.Dir(transcript), session+".jsonl"))
	return err == nil && fi.Mode().IsRegular()
}
