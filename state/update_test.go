package state

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

func TestSetIssueWritesActiveIssueOnlyWhenPresent(t *testing.T) {
	tests := []struct {
		name, in string
		keys     []string
	}{
		{"only the alias", `{"activeIssue": "OLD-1"}`, []string{"activeIssue", "linearIssue"}},
		{"both keys", `{"linearIssue": "OLD-1", "activeIssue": "OLD-1"}`, []string{"linearIssue", "activeIssue"}},
		{"no alias: none is added", `{"linearIssue": "OLD-1"}`, []string{"linearIssue"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := mustParse(t, tt.in)
			require.NoError(t, st.SetIssue("NEW-2"))
			assert.Equal(t, tt.keys, st.Keys())
			assert.Equal(t, "NEW-2", st.String("linearIssue"))
			if st.Has("activeIssue") {
				assert.Equal(t, "NEW-2", st.String("activeIssue"))
			}
		})
	}
}

func TestTouch(t *testing.T) {
	now := time.Date(2026, 11, 21, 13, 45, 6, 789, time.FixedZone("CET", 3600))
	st := mustParse(t, `{"phase": "build", "lastUpdatedAt": "2026-01-01T00:00:00Z"}`)
	require.NoError(t, st.Touch(now, false))
	assert.Equal(t, "2026-11-21T12:45:06Z", st.String("lastUpdatedAt"), "UTC, to the second, as CCC's hooks write it")
	assert.False(t, st.Has("createdAt"), "an existing file is not given a creation time")
	assert.Equal(t, []string{"phase", "lastUpdatedAt"}, st.Keys(), "the key keeps its place")
	_, err := time.Parse(time.RFC3339, st.String("lastUpdatedAt"))
	assert.NoError(t, err)

	fresh := New()
	require.NoError(t, fresh.Touch(now, true))
	assert.Equal(t, "2026-11-21T12:45:06Z", fresh.String("createdAt"))
	assert.Equal(t, "2026-11-21T12:45:06Z", fresh.String("lastUpdatedAt"))

	require.NoError(t, fresh.Touch(now.Add(time.Hour), true))
	assert.Equal(t, "2026-11-21T12:45:06Z", fresh.String("createdAt"), "createdAt is never moved")
	assert.Equal(t, "2026-11-21T13:45:06Z", fresh.String("lastUpdatedAt"))
}

func TestCorruptStateIsSetAsideOnceWhileItStaysTheSame(t *testing.T) {
	root := t.TempDir()
	bad := []byte("{\n  \"phase\": oops\n}\n")
	require.NoError(t, os.WriteFile(Path(root), bad, 0o644))

	first, err := Load(root, t0)
	require.NoError(t, err)
	require.NotNil(t, first.Corrupt)
	assert.Equal(t, first.SetAside, first.Corrupt.Copy, "the error carries where the copy went")
	assert.Equal(t, Path(root)+":2:12", first.Corrupt.Where())
	assert.True(t, strings.HasPrefix(first.Corrupt.Error(), Path(root)+":2:12: invalid character"), first.Corrupt.Error())

	for i := 1; i <= 3; i++ {
		again, err := Load(root, t0.Add(time.Duration(i)*time.Minute))
		require.NoError(t, err)
		assert.Equal(t, first.SetAside, again.SetAside, "an identical copy is reused")
	}
	assert.Len(t, corruptCopies(t, root), 1)

	// A different broken content is a different thing to recover: kept too.
	require.NoError(t, os.WriteFile(Path(root), []byte("{oops"), 0o644))
	other, err := Load(root, t0.Add(time.Hour))
	require.NoError(t, err)
	assert.NotEqual(t, first.SetAside, other.SetAside)
	assert.Len(t, corruptCopies(t, root), 2)
	kept, err := os.ReadFile(other.SetAside)
	require.NoError(t, err)
	assert.Equal(t, "{oops", string(kept))

	// Back to the first content: its copy still exists and is reused.
	require.NoError(t, os.WriteFile(Path(root), bad, 0o644))
	back, err := Load(root, t0.Add(2*time.Hour))
	require.NoError(t, err)
	assert.Equal(t, first.SetAside, back.SetAside)
	assert.Len(t, corruptCopies(t, root), 2)
}

func corruptCopies(t *testing.T, root string) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(root, projectfs.Dir, projectfs.BackupDir, FileName+".*.corrupt"))
	require.NoError(t, err)
	return matches
}
