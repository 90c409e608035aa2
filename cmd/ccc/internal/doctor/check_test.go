package doctor

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/progress"
)

func fixed(rs ...Result) func(context.Context, *Env) []Result {
	return func(context.Context, *Env) []Result { return rs }
}

// TestRun: the checks run in order, their findings named after the check
// unless they name themselves; a failed gate ends the run, a failed check
// does not.
func TestRun(t *testing.T) {
	t.Parallel()
	var ran []string
	track := func(name string, rs ...Result) func(context.Context, *Env) []Result {
		return func(context.Context, *Env) []Result { ran = append(ran, name); return rs }
	}
	got := Run(context.Background(), &Env{}, []Check{
		{Name: "a", Run: track("a", Result{Status: OK, Message: "fine"})},
		{Name: "b", Run: track("b", Result{Status: Fail, Message: "broken"}, Result{Name: "linear", Status: Warn, Message: "w"})},
		{Name: "quiet", Run: track("quiet")},
		{Name: "gate", Run: track("gate", Result{Status: Fail, Message: "no root"}), Gate: true},
		{Name: "after", Run: track("after", Result{Status: OK})},
	})
	assert.Equal(t, []string{"a", "b", "quiet", "gate"}, ran)
	assert.Equal(t, []Result{
		{Name: "a", Status: OK, Message: "fine"},
		{Name: "b", Status: Fail, Message: "broken"},
		{Name: "linear", Status: Warn, Message: "w"},
		{Name: "gate", Status: Fail, Message: "no root"},
	}, got)

	ran = nil
	Run(context.Background(), &Env{}, []Check{{Name: "gate", Run: track("gate", Result{Status: OK}), Gate: true}, {Name: "after", Run: track("after")}})
	assert.Equal(t, []string{"gate", "after"}, ran, "a gate that passes lets the rest run")
}

func TestPrint(t *testing.T) {
	t.Parallel()
	rs := []Result{{Name: "a", Status: OK, Message: "fine", Hint: "unsaid"}, {Name: "b", Status: Warn, Message: "hm", Hint: "look"}}
	var b bytes.Buffer
	failed, err := Print(&b, false, rs)
	require.NoError(t, err)
	assert.False(t, failed)
	assert.Equal(t, "✓ a: fine\n! b: hm\n    hint: look\n", b.String())

	b.Reset()
	failed, err = Print(&b, true, append(rs, Result{Name: "c", Status: Fail, Message: "x", Path: "p"}))
	require.NoError(t, err)
	assert.True(t, failed)
	assert.Contains(t, b.String(), `"ok": false`)
	assert.Contains(t, b.String(), `{
      "name": "c",
      "status": "fail",
      "message": "x",
      "path": "p"
    }`)
}

// TestChecksAreNamedOnce: each check's name appears once, and the project
// comes first, as the gate every other check needs.
func TestChecksAreNamedOnce(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range Checks {
		assert.False(t, seen[c.Name], c.Name)
		seen[c.Name] = true
		assert.NotNil(t, c.Run, c.Name)
	}
	assert.Equal(t, "project", Checks[0].Name)
	assert.True(t, Checks[0].Gate)
}

func TestCheckProject(t *testing.T) {
	t.Parallel()
	assert.Equal(t, one(OK, "/r", ""), checkProject(context.Background(), &Env{Root: "/r"}))
	got := checkProject(context.Background(), &Env{RootErr: errors.New("not in a project")})
	assert.Equal(t, Fail, got[0].Status)
	assert.Equal(t, "pass --dir or run ccc inside the project", got[0].Hint)
}

func TestCheckProgress(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	got := checkProgress(context.Background(), &Env{Root: root})
	assert.Equal(t, []Result{at(Warn, progress.FileName, "no .ccc-progress.md yet", "run ccc checkpoint to create it")}, got)

	require.NoError(t, os.WriteFile(filepath.Join(root, progress.FileName), []byte("<<<<<<< HEAD\n"), 0o644))
	got = checkProgress(context.Background(), &Env{Root: root})
	require.Len(t, got, 1)
	assert.Equal(t, Fail, got[0].Status)
}

func TestCheckPrefs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	assert.Equal(t, one(OK, "loaded", ""), checkPrefs(context.Background(), &Env{Root: root}))
	require.NoError(t, os.WriteFile(filepath.Join(root, config.PrefsFile), []byte("agents: [\n"), 0o644))
	got := checkPrefs(context.Background(), &Env{Root: root})
	require.Len(t, got, 1)
	assert.Equal(t, Fail, got[0].Status)
	assert.Equal(t, prefsHint, got[0].Hint)
}

func TestCheckIssueAndSinks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	e := &Env{Root: root, Now: time.Now(), Issue: "CIA-7",
		Trackers: func(string, config.Prefs) ([]checkpoint.Tracker, []string) {
			return nil, []string{"sink x unknown; ignored"}
		}}
	assert.Equal(t, one(OK, "CIA-7 (from --issue)", ""), checkIssue(context.Background(), e))
	got := checkSinks(context.Background(), e)
	require.Len(t, got, 2)
	assert.Equal(t, Result{Status: Warn, Message: "sink x unknown; ignored"}, got[0])
	assert.Equal(t, "no tracker configured", got[1].Message)

	assert.Equal(t, Warn, checkIssue(context.Background(), &Env{Root: root, Now: time.Now()})[0].Status)
}
