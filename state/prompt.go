package state

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PromptFile, under Dir, remembers which continuation prompt ccc wrote last.
// It lives in ccc's own directory rather than in .ccc-state.json because the
// stop hook's checkpoints must leave CCC's state file byte for byte as the
// hook wrote it, yet they refresh the prompt too.
const PromptFile = "prompt"

// PromptHash returns the identifier SavePromptHash stored for root, "" when
// there is none (a fresh clone, a project from before ccc recorded it) or
// it cannot be read.
func PromptHash(root string) string {
	data, err := os.ReadFile(filepath.Join(root, Dir, PromptFile))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// SavePromptHash records the identifier of the prompt ccc just wrote.
// Callers hold Lock.
func SavePromptHash(root, hash string) error {
	dir := filepath.Join(root, Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("state: prompt: %w", err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, PromptFile), []byte(hash+"\n"), 0o644); err != nil {
		return fmt.Errorf("state: prompt: %w", err)
	}
	return nil
}
