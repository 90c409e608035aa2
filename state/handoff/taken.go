package handoff

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// takenDir holds, under .ccc, which checkpoint each agent of this
// worktree took over from another machine, so that every later entry of
// that agent still says so (Meta.TakenFrom) without reading the branch in
// a hook.
const takenDir = "handoff"

func takenPath(root, agent string) (string, error) {
	dir, err := projectfs.ProjectDir(root, takenDir)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "taken-"+url.PathEscape(agent)), nil
}

// takenFields are what the tag of a takenover file covers.
func takenFields(agent, id string) []string { return []string{"ccc/handoff/taken/v1", agent, id} }

// RememberTakeover records that agent took over checkpoint id, signed with
// the user key: a file a repository plants there is not believed.
func RememberTakeover(root, agent, id string, key []byte) error {
	path, err := takenPath(root, agent)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return projectfs.WriteFileAtomic(path, []byte(id+"\n"+projectfs.Tag(key, takenFields(agent, id)...)+"\n"), 0o644)
}

// TakenOver is the checkpoint agent took over (RememberTakeover), "" when
// none, or when the file is not one this user's ccc wrote.
func TakenOver(root, agent string, key []byte) string {
	path, err := takenPath(root, agent)
	if err != nil {
		return ""
	}
	data, err := projectfs.ReadOwnFile(root, path, 4<<10)
	if err != nil { // none, or not a file ccc would have written
		return ""
	}
	id, tag, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
	if !projectfs.ValidTag(key, tag, takenFields(agent, id)...) {
		return ""
	}
	return id
}
