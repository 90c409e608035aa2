package gitrepo

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSnapshotIgnoresCCCFilesForCleanliness sets up the README's layout:
// only .ccc/ is ignored; the progress and state files are committed, and
// step 1 of every checkpoint has just rewritten them.
func TestSnapshotIgnoresCCCFilesForCleanliness(t *testing.T) {
	tests := []struct {
		name        string
		change      func(t *testing.T, dir string)
		wantSkipped string
		wantFiles   []string
	}{
		{
			name: "only ccc's own files changed",
			change: func(t *testing.T, dir string) {
				write(t, dir, ".ccc-progress.md", "# Session Progress\n\n**Session:** later\n")
				write(t, dir, ".ccc-state.json", "{\"linearIssue\": \"CIA-1\", \"activeTaskFiles\": [\"a.go\"]}\n")
				write(t, dir, "sub/.ccc-state.json", "{}\n") // a ccc project below the top level
			},
			wantSkipped: "working tree clean",
		},
		{
			name: "an in-scope change is committed, ccc's files are not",
			change: func(t *testing.T, dir string) {
				write(t, dir, ".ccc-progress.md", "# Session Progress\n\n**Session:** later\n")
				write(t, dir, "a.go", "package a // edited\n")
			},
			wantFiles: []string{"a.go"},
		},
		{
			name: "an out-of-scope change still makes the tree dirty",
			change: func(t *testing.T, dir string) {
				write(t, dir, ".ccc-progress.md", "# Session Progress\n\n**Session:** later\n")
				write(t, dir, "b.go", "package b // edited\n")
			},
			wantSkipped: "no in-scope changes (unchanged: a.go)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newRepo(t)
			write(t, dir, ".gitignore", ".ccc/\n")
			write(t, dir, "a.go", "package a\n")
			write(t, dir, "b.go", "package b\n")
			write(t, dir, ".ccc-progress.md", "# Session Progress\n")
			write(t, dir, ".ccc-state.json", "{}\n")
			write(t, dir, "sub/.ccc-state.json", "{\"x\": 1}\n")
			git(t, dir, "add", ".")
			git(t, dir, "commit", "-q", "-m", "base")
			write(t, dir, ".ccc/lock", "")
			tt.change(t, dir)
			before := head(t, dir)

			res, err := (&Repo{Dir: dir}).Snapshot(context.Background(), []string{"a.go", ".ccc-progress.md"}, msg)
			require.NoError(t, err)
			assert.Equal(t, tt.wantSkipped, res.Skipped)
			assert.Equal(t, tt.wantFiles, res.Files)
			if tt.wantSkipped != "" {
				assert.Equal(t, before, head(t, dir), "no commit")
				return
			}
			assert.Equal(t, "M\ta.go\n", committed(t, dir), "ccc's files are never committed")
			assert.Contains(t, status(t, dir), " M .ccc-progress.md", "and stay changed in the work tree")
		})
	}
}

func TestScopeRefusal(t *testing.T) {
	dir := newRepo(t)
	for path, want := range map[string]string{
		"a.go":             "",
		"pkg/b.go":         "",
		"-rf":              "starts with '-'",
		".ccc/lock":        "under .ccc/ (ccc's own files)",
		".ccc-state.json":  "ccc's state file",
		"../outside.go":    "outside the repository",
		"":                 "empty path",
		dir + "/inside.go": "",
	} {
		assert.Equal(t, want, ScopeRefusal(dir, path), path)
	}
}
