package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestChanged(t *testing.T) {
	ctx := context.Background()
	dir := seededRepo(t)
	write(t, dir, ".gitignore", "*.log\n")
	write(t, dir, "ignored.log", "x")
	write(t, dir, "a.txt", "edited\n")
	write(t, dir, "dir/with space.txt", "staged\n")
	git(t, dir, "add", "dir/with space.txt")
	require.NoError(t, os.Remove(filepath.Join(dir, "b.txt")))
	git(t, dir, "mv", "c.txt", "renamed c.txt")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "ünï"), 0o755))
	git(t, dir, "mv", "ünï 日本.txt", "ünï/日本 moved.txt")
	write(t, dir, "new dir/deeper/nëw.txt", "new\n")

	changes, err := (&Repo{Dir: dir}).Changed(ctx)
	require.NoError(t, err)
	assert.ElementsMatch(t, []Change{
		{Path: ".gitignore", Status: "??"},
		{Path: "a.txt", Status: " M"},
		{Path: "b.txt", Status: " D"},
		{Path: "dir/with space.txt", Status: "M "},
		{Path: "renamed c.txt", From: "c.txt", Status: "R "},
		{Path: "ünï/日本 moved.txt", From: "ünï 日本.txt", Status: "R "},
		{Path: "new dir/deeper/nëw.txt", Status: "??"},
	}, changes)
}

func TestChangedClean(t *testing.T) {
	changes, err := (&Repo{Dir: seededRepo(t)}).Changed(context.Background())
	require.NoError(t, err)
	assert.Empty(t, changes)
}

func TestChangedDoesNotWriteTheIndex(t *testing.T) {
	dir := seededRepo(t)
	// A new mtime with the same content is what a plain git status would
	// refresh in the index and write back.
	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(dir, "a.txt"), later, later))
	before := indexBytes(t, dir)

	changes, err := (&Repo{Dir: dir}).Changed(context.Background())
	require.NoError(t, err)
	assert.Empty(t, changes)
	assert.Equal(t, before, indexBytes(t, dir))
}

func TestParseStatus(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []Change
		wantErr string
	}{
		{name: "empty", in: ""},
		{name: "modified", in: " M a b\x00", want: []Change{{Path: "a b", Status: " M"}}},
		{name: "rename then more", in: "R  new\x00old\x00?? x\x00", want: []Change{
			{Path: "new", From: "old", Status: "R "},
			{Path: "x", Status: "??"},
		}},
		{name: "copy", in: "C  copy\x00orig\x00", want: []Change{{Path: "copy", From: "orig", Status: "C "}}},
		{name: "name with newline", in: "?? a\nb\x00", want: []Change{{Path: "a\nb", Status: "??"}}},
		{name: "unmerged", in: "UU x\x00", want: []Change{{Path: "x", Status: "UU"}}},
		{name: "too short", in: "M\x00", wantErr: "malformed entry"},
		{name: "no separator", in: "MMxa\x00", wantErr: "malformed entry"},
		{name: "rename without source", in: "R  new\x00", wantErr: "without its source"},
		{name: "unterminated", in: " M a", wantErr: "unterminated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStatus(tt.in)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestUnmerged(t *testing.T) {
	for status, want := range map[string]bool{
		"UU": true, "AA": true, "DD": true, "AU": true, "UD": true, "UA": true, "DU": true,
		"M ": false, " M": false, "A ": false, "AD": false, "D ": false, "??": false, "R ": false,
	} {
		assert.Equal(t, want, Change{Status: status}.Unmerged(), status)
	}
}
