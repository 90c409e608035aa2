package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/importer"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state/records"
)

var impNow = time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)

// impFactory is a factory for a scratch project outside git (records then
// live in root/.ccc/checkpoints).
func impFactory(t *testing.T) (*Factory, *bytes.Buffer, *bytes.Buffer, string) {
	t.Helper()
	root := t.TempDir()
	var out, errOut bytes.Buffer
	f := &Factory{
		IO:     IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Getenv: func(k string) string { return map[string]string{"CCC_PROJECT_ROOT": root}[k] },
		Getwd:  func() (string, error) { return root, nil },
		Now:    func() time.Time { return impNow },
	}
	return f, &out, &errOut, root
}

// impSeed is one of the importer's fixtures, the seeds' own examples.
func impSeed(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("internal", "importer", "testdata", rel))
	require.NoError(t, err)
	require.FileExists(t, p)
	return p
}

func impExec(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	return cmd.Execute()
}

func TestImportFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		want  ImportOptions
		usage bool
	}{
		{name: "files", args: []string{"a.json", "b.json"}, want: ImportOptions{Files: []string{"a.json", "b.json"}}},
		{name: "all flags", args: []string{"--agent", "mig", "--dry-run", "--json", "a.json"},
			want: ImportOptions{Files: []string{"a.json"}, Agent: "mig", DryRun: true, JSON: true}},
		{name: "no file", args: nil, usage: true},
		{name: "agent not a file name", args: []string{"--agent", "../x", "a.json"}, usage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *ImportOptions
			dir := ""
			err := impExec(NewCmdImport(&Factory{}, &dir, func(o *ImportOptions) error { got = o; return nil }), tt.args...)
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

func TestImportWritesRecordAndProgress(t *testing.T) {
	t.Parallel()
	f, _, errOut, root := impFactory(t)
	ctx := t.Context()
	require.NoError(t, importRun(ctx, f, &ImportOptions{Files: []string{impSeed(t, "seed003/agent_checkpoints/primary.json")}}))

	dir := filepath.Join(root, ".ccc", "checkpoints")
	rec, err := records.Load(dir, "Agent-Primary")
	require.NoError(t, err, "records reads what import wrote")
	assert.Equal(t, "abc123def456", rec.SessionID)
	assert.Equal(t, "Writing spec.md Requirements Section 5 (Error Handling)", rec.CurrentStep)
	assert.Contains(t, rec.Extra, "coordination_state")

	md, err := os.ReadFile(filepath.Join(root, progress.FileName))
	require.NoError(t, err)
	doc, err := progress.Parse(md)
	require.NoError(t, err)
	assert.Equal(t, "Writing spec.md Requirements Section 5 (Error Handling)", doc.Current.Text)
	assert.Contains(t, errOut.String(), "Created .ccc-progress.md")

	// A second file: its record is added, the progress file is not touched.
	require.NoError(t, importRun(ctx, f, &ImportOptions{Files: []string{impSeed(t, "seed002/progress/checkpoints/migration-T060.json")}}))
	_, err = records.Load(dir, "migration")
	require.NoError(t, err)
	again, err := os.ReadFile(filepath.Join(root, progress.FileName))
	require.NoError(t, err)
	assert.Equal(t, string(md), string(again))

	// Importing the same file again replaces the record, keeping a backup.
	before, err := os.ReadFile(records.CurrentPath(dir, "Agent-Primary"))
	require.NoError(t, err)
	require.NoError(t, importRun(ctx, f, &ImportOptions{Files: []string{impSeed(t, "seed003/agent_checkpoints/primary.json")}}))
	backups, err := projectfs.Backups(root, "Agent-Primary.json")
	require.NoError(t, err)
	require.Len(t, backups, 1)
	kept, err := os.ReadFile(backups[0])
	require.NoError(t, err)
	assert.Equal(t, string(before), string(kept))
}

func TestImportEverySeedExample(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"seed000/.claude/initiative.json":                           "initiative.json",
		"seed001/orchestrate_auth_system_20251003_184530.json":      "orchestrate_auth_system_20251003_184530.json",
		"seed002/progress/checkpoints/migration-T060.json":          "migration.json",
		"seed002/progress/checkpoints/migration-T060-complete.json": "migration-T060-complete-none-complete.json",
		"seed003/agent_checkpoints/primary.json":                    "Agent-Primary.json",
		"seed003-waiting/agent_checkpoints/secondary_b.json":        "Secondary-B.json",
		"seed002/progress/checkpoints/migration-T060-start.json":    "migration.json",
		"seed000-sync/.claude/initiative.json":                      "initiative.json",
		"seed002/progress/checkpoints/migration-T060-blocked.json":  "migration-T060-blocked.json",
	}
	for rel, want := range files {
		t.Run(rel, func(t *testing.T) {
			f, _, _, root := impFactory(t)
			require.NoError(t, importRun(t.Context(), f, &ImportOptions{Files: []string{impSeed(t, rel)}}))
			dir := filepath.Join(root, ".ccc", "checkpoints")
			top, err := records.Top(dir)
			require.NoError(t, err)
			require.Len(t, top, 1)
			assert.Equal(t, want, filepath.Base(top[0].Path))
		})
	}
}

func TestImportSameAgentTwiceWarns(t *testing.T) {
	t.Parallel()
	f, _, errOut, root := impFactory(t)
	start := impSeed(t, "seed002/progress/checkpoints/migration-T060-start.json")
	mid := impSeed(t, "seed002/progress/checkpoints/migration-T060.json")
	require.NoError(t, importRun(t.Context(), f, &ImportOptions{Files: []string{start, mid}}))
	assert.Contains(t, errOut.String(), "Warning: replaces the record just imported from "+start)
	rec, err := records.Load(filepath.Join(root, ".ccc", "checkpoints"), "migration")
	require.NoError(t, err)
	assert.Equal(t, "post-20", rec.CurrentStep, "the later file wins")
}

func TestImportCompleteRecordIsArchived(t *testing.T) {
	t.Parallel()
	f, _, _, root := impFactory(t)
	require.NoError(t, importRun(t.Context(), f, &ImportOptions{Files: []string{impSeed(t, "seed002/progress/checkpoints/migration-T060-complete.json")}}))
	top, err := records.Top(filepath.Join(root, ".ccc", "checkpoints"))
	require.NoError(t, err)
	require.Len(t, top, 1)
	assert.Equal(t, records.KindComplete, top[0].Kind)
}

func TestImportDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	f, out, errOut, root := impFactory(t)
	err := importRun(t.Context(), f, &ImportOptions{DryRun: true, Files: []string{
		impSeed(t, "seed001/orchestrate_auth_system_20251003_184530.json"),
		impSeed(t, "seed003/agent_checkpoints/primary.json"),
	}})
	require.NoError(t, err)
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	assert.Empty(t, entries, "a dry run writes nothing, not even the lock")

	assert.Contains(t, out.String(), "--- .ccc/checkpoints/orchestrate_auth_system_20251003_184530.json (from ")
	assert.Contains(t, out.String(), "--- .ccc/checkpoints/Agent-Primary.json (from ")
	assert.Contains(t, out.String(), `"currentStep": "Phase 2"`)
	assert.Equal(t, 1, strings.Count(out.String(), "--- .ccc-progress.md"), "only the first file would create the progress file")
	assert.Contains(t, errOut.String(), "Would create .ccc-progress.md")
	assert.Contains(t, errOut.String(), "Dry run: nothing was written.")
}

func TestImportBadFileIsReportedOthersImported(t *testing.T) {
	t.Parallel()
	f, _, errOut, root := impFactory(t)
	bad := filepath.Join(t.TempDir(), "broken.json")
	require.NoError(t, os.WriteFile(bad, []byte("{\n  \"agent_id\": \"x\",\n  \"status\": IN_PROGRESS\n}\n"), 0o644))
	unknown := filepath.Join(t.TempDir(), "notes.json")
	require.NoError(t, os.WriteFile(unknown, []byte(`{"title": "notes"}`), 0o644))

	err := importRun(t.Context(), f, &ImportOptions{Files: []string{bad, impSeed(t, "seed003/agent_checkpoints/primary.json"), unknown}})
	var exit *exitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 1, exit.code)
	assert.EqualError(t, exit.err, "import: 2 of 3 file(s) not imported")
	assert.Contains(t, errOut.String(), "Failed: import: "+bad+":3:13: invalid character 'I'")
	assert.Contains(t, errOut.String(), "Failed: import: "+unknown+": not a checkpoint of a known protocol")

	top, err := records.Top(filepath.Join(root, ".ccc", "checkpoints"))
	require.NoError(t, err)
	require.Len(t, top, 1, "only the good file has a record")
	assert.Equal(t, "Agent-Primary", top[0].Agent)
}

func TestImportJSON(t *testing.T) {
	t.Parallel()
	f, out, _, _ := impFactory(t)
	err := importRun(t.Context(), f, &ImportOptions{JSON: true, Agent: "planner", Files: []string{
		impSeed(t, "seed000/.claude/initiative.json"), "missing.json"}})
	require.Error(t, err)
	var got struct {
		DryRun  bool
		Imports []struct {
			Source, Format, Agent, RecordPath, ProgressPath string
			Record                                          map[string]any
			Warnings                                        []string
			Error                                           *struct{ Message string }
		}
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	require.Len(t, got.Imports, 2)
	ok, failed := got.Imports[0], got.Imports[1]
	assert.Equal(t, "initiative", ok.Format)
	assert.Equal(t, "planner", ok.Agent)
	assert.Equal(t, "M2", ok.Record["currentStep"])
	assert.NotEmpty(t, ok.ProgressPath)
	assert.NotEmpty(t, ok.Warnings)
	assert.Nil(t, ok.Error)
	require.NotNil(t, failed.Error)
	assert.Contains(t, failed.Error.Message, "missing.json")
}

// TestImportRecordWriterFailure: a record that cannot be written leaves the
// progress file unwritten too, and the failure is the file's.
func TestImportRecordWriterFailure(t *testing.T) {
	t.Parallel()
	f, _, errOut, root := impFactory(t)
	opts := &ImportOptions{Files: []string{impSeed(t, "seed003/agent_checkpoints/primary.json")},
		WriteRecord: func(_ context.Context, _ string, _ *importer.Imported, _ []byte, _ time.Time, _ bool) (string, error) {
			return "", errors.New("import: disk full")
		}}
	err := importRun(t.Context(), f, opts)
	require.Error(t, err)
	assert.Contains(t, errOut.String(), "Failed: import: disk full")
	assert.NoFileExists(t, filepath.Join(root, progress.FileName))
}
