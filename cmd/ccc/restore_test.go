package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/restore"
)

func TestRestoreFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		want  RestoreOptions
		usage bool
	}{
		{name: "repair", args: nil, want: RestoreOptions{}},
		{name: "one file", args: []string{"--file", "progress"}, want: RestoreOptions{Files: []string{"progress"}}},
		{name: "several files", args: []string{"--file", "state,record", "--agent", "a", "--json"},
			want: RestoreOptions{Files: []string{"state", "record"}, Agent: "a", JSON: true}},
		{name: "list", args: []string{"--list"}, want: RestoreOptions{List: true}},
		{name: "unknown file", args: []string{"--file", "prefs"}, usage: true},
		{name: "agent not a file name", args: []string{"--agent", "a/b"}, usage: true},
		{name: "arguments", args: []string{"state"}, usage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *RestoreOptions
			dir := ""
			err := impExec(NewCmdRestore(&Factory{}, &dir, func(o *RestoreOptions) error { got = o; return nil }), tt.args...)
			if tt.usage {
				var ue *usageError
				require.ErrorAs(t, err, &ue)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, *got)
		})
	}
}

// rstBackups writes each version to path and backs it up at successive
// times, oldest first, as ccc's own writes do; the file is then removed.
func rstBackups(t *testing.T, root, path string, versions ...string) []string {
	t.Helper()
	var out []string
	at := impNow.Add(-time.Hour)
	for _, v := range versions {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(v), 0o644))
		b, err := projectfs.Backup(root, path, at)
		require.NoError(t, err)
		out = append(out, b)
		at = at.Add(time.Minute)
	}
	require.NoError(t, os.Remove(path))
	return out
}

const rstProgress = "# Session Progress\n\n**Issue:** CIA-1\n\n## Current Task\n- parser\n"

func rstRecord(agent, step string) string {
	return `{"schemaVersion": 1, "agent": "` + agent + `", "status": "in_progress", "currentStep": "` + step + `"}` + "\n"
}

// TestRestoreSkipsCorruptBackups: for each file, the newest backup is
// corrupt (in that file's own way) and the next one is restored; the file it
// replaces is backed up first.
func TestRestoreSkipsCorruptBackups(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file     string
		path     func(root string) string
		versions []string // oldest first; the last is the corrupt newest
		current  string
		agent    string
	}{
		{file: "state", path: state.Path,
			versions: []string{`{"linearIssue": "CIA-1"}`, `{"linearIssue": "CIA-2"}`, `{"linearIssue": "CIA-`},
			current:  `{"linearIssue": "CIA-3"}`},
		{file: "progress", path: func(root string) string { return filepath.Join(root, progress.FileName) },
			versions: []string{rstProgress, rstProgress + "- older\n", rstProgress + "\x00\x00\x00"},
			current:  rstProgress + "- now\n"},
		{file: "progress", path: func(root string) string { return filepath.Join(root, progress.FileName) },
			versions: []string{rstProgress, rstProgress + "- older\n", "  \n"},
			current:  rstProgress + "- now\n"},
		// A backup with a merge conflict is broken (progress.Check): never put back.
		{file: "progress", path: func(root string) string { return filepath.Join(root, progress.FileName) },
			versions: []string{rstProgress, rstProgress + "- older\n", "<<<<<<< HEAD\n" + rstProgress + "=======\n" + rstProgress + ">>>>>>> x\n"},
			current:  rstProgress + "- now\n"},
		{file: "record", agent: "a", path: func(root string) string { return filepath.Join(root, ".ccc", "checkpoints", "a.json") },
			versions: []string{rstRecord("a", "one"), rstRecord("a", "two"), `{"agent": "a", "status": "in_progress"}`},
			current:  rstRecord("a", "three")},
		{file: "record", agent: "a", path: func(root string) string { return filepath.Join(root, ".ccc", "checkpoints", "a.json") },
			versions: []string{rstRecord("a", "one"), rstRecord("a", "two"), rstRecord("b", "not mine")},
			current:  rstRecord("a", "three")},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, _, errOut, root := impFactory(t)
			path := tt.path(root)
			rstBackups(t, root, path, tt.versions...)
			require.NoError(t, os.WriteFile(path, []byte(tt.current), 0o644))

			require.NoError(t, restoreRun(t.Context(), f, &RestoreOptions{Files: []string{tt.file}, Agent: tt.agent}))
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, tt.versions[1], string(got), "the newest valid backup")
			assert.Contains(t, errOut.String(), "Skipped backup")
			assert.Contains(t, errOut.String(), "Restored "+rootRel(root, path))

			all, err := projectfs.Backups(root, filepath.Base(path))
			require.NoError(t, err)
			kept, err := os.ReadFile(all[0])
			require.NoError(t, err)
			assert.Equal(t, tt.current, string(kept), "the replaced file is the newest backup")
		})
	}
}

// TestRestoreRepairs: without --file only a corrupt file is restored; a
// valid one and a missing one are left alone, and the corrupt one is set
// aside where rotation cannot prune it.
func TestRestoreRepairs(t *testing.T) {
	t.Parallel()
	f, _, errOut, root := impFactory(t)
	rstBackups(t, root, state.Path(root), `{"a": 1}`)
	require.NoError(t, os.WriteFile(state.Path(root), []byte(`{"a": `), 0o644))
	ppath := filepath.Join(root, progress.FileName)
	rstBackups(t, root, ppath, rstProgress)
	require.NoError(t, os.WriteFile(ppath, []byte(rstProgress+"- mine\n"), 0o644))

	require.NoError(t, restoreRun(t.Context(), f, &RestoreOptions{}))
	got, err := os.ReadFile(state.Path(root))
	require.NoError(t, err)
	assert.Equal(t, `{"a": 1}`, string(got))
	p, err := os.ReadFile(ppath)
	require.NoError(t, err)
	assert.Equal(t, rstProgress+"- mine\n", string(p), "a valid file is not rolled back unasked")

	aside, err := filepath.Glob(filepath.Join(root, ".ccc", "backups", ".ccc-state.json.*.corrupt"))
	require.NoError(t, err)
	require.Len(t, aside, 1)
	corrupt, err := os.ReadFile(aside[0])
	require.NoError(t, err)
	assert.Equal(t, `{"a": `, string(corrupt))
	assert.Contains(t, errOut.String(), ".ccc-progress.md is valid; name it with --file to roll it back")
	assert.Contains(t, errOut.String(), ".ccc/checkpoints/main.json is missing")
}

func TestRestoreNoValidBackupChangesNothing(t *testing.T) {
	t.Parallel()
	f, _, errOut, root := impFactory(t)
	rstBackups(t, root, state.Path(root), `[1]`, `{"a":`)
	require.NoError(t, os.WriteFile(state.Path(root), []byte(`{"a": `), 0o644))

	err := restoreRun(t.Context(), f, &RestoreOptions{})
	var exit *exitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 1, exit.code)
	got, err := os.ReadFile(state.Path(root))
	require.NoError(t, err)
	assert.Equal(t, `{"a": `, string(got))
	assert.Contains(t, errOut.String(), "Failed: .ccc-state.json: not valid (line 1: unexpected end of JSON input), and none of its 2 backup(s) is usable; left as it is")

	// Named, with no backups at all.
	err = restoreRun(t.Context(), f, &RestoreOptions{Files: []string{"progress"}})
	require.ErrorAs(t, err, &exit)
	assert.Contains(t, errOut.String(), "Failed: .ccc-progress.md: it has no backups")
	assert.NoFileExists(t, filepath.Join(root, progress.FileName))
}

// TestRestoreSkipsSameContent: the newest backup equal to the file changes
// nothing, so the one before it is the one restored; a missing file named
// with --file comes back.
func TestRestoreSkipsSameContent(t *testing.T) {
	t.Parallel()
	f, _, _, root := impFactory(t)
	path := filepath.Join(root, progress.FileName)
	rstBackups(t, root, path, rstProgress+"- old\n", rstProgress)
	require.NoError(t, os.WriteFile(path, []byte(rstProgress), 0o644))
	require.NoError(t, restoreRun(t.Context(), f, &RestoreOptions{Files: []string{"progress"}}))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, rstProgress+"- old\n", string(got))

	require.NoError(t, os.Remove(path))
	require.NoError(t, restoreRun(t.Context(), f, &RestoreOptions{Files: []string{"progress"}}))
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, rstProgress, string(got), "the newest backup is now the file the last restore replaced")
}

func TestRestoreList(t *testing.T) {
	t.Parallel()
	f, out, _, root := impFactory(t)
	rstBackups(t, root, state.Path(root), `{"a": 1}`, `{"a":`)
	rstBackups(t, root, filepath.Join(root, ".ccc", "checkpoints", "x.json"), rstRecord("x", "s"))
	before := rstTree(t, root)

	require.NoError(t, restoreRun(t.Context(), f, &RestoreOptions{List: true, JSON: true}))
	var got []struct {
		File, Agent string
		Backups     []restore.Backup
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	require.Len(t, got, 4, "state, progress and one record per agent: main (the default) and x")
	assert.Equal(t, "state", got[0].File)
	require.Len(t, got[0].Backups, 2)
	assert.False(t, got[0].Backups[0].Valid, "newest first: the corrupt one")
	assert.True(t, got[0].Backups[1].Valid)
	assert.Equal(t, impNow.Add(-time.Hour), got[0].Backups[1].Time)
	assert.Empty(t, got[1].Backups)
	assert.Equal(t, []string{"main", "x"}, []string{got[2].Agent, got[3].Agent})
	require.Len(t, got[3].Backups, 1)
	assert.True(t, got[3].Backups[0].Valid)
	assert.Equal(t, before, rstTree(t, root), "--list changes nothing")

	out.Reset()
	require.NoError(t, restoreRun(t.Context(), f, &RestoreOptions{List: true, Files: []string{"state"}}))
	assert.Contains(t, out.String(), "state (.ccc-state.json): 2 backup(s), newest first\n")
	assert.Contains(t, out.String(), "corrupt: line 1: unexpected end of JSON input")
	assert.Contains(t, out.String(), "2026-11-21 12:45:00  .ccc/backups/.ccc-state.json.20261121T124500.000000000Z  valid\n")
}

func rstTree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		out = append(out, p)
		return err
	}))
	return out
}
