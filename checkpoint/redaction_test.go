package checkpoint

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/internal/redact"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/outbox"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// heldKey is the credential the tests' runs hold (as if LINEAR_API_KEY), built at run time so
// that no key-shaped literal sits in the source.
var heldKey = "lin" + "_api_" + strings.Repeat("Xy7", 13) + "Q"

// classicToken is a token no run holds, found by its pattern alone.
var classicToken = "gh" + "p_" + strings.Repeat("aB3", 12)

func heldRedactor(t *testing.T) *redact.Redactor {
	t.Helper()
	r, err := redact.New([]string{heldKey}, nil)
	require.NoError(t, err)
	return r
}

// everyExit is all the report shows: its lines and its JSON.
func everyExit(t *testing.T, r Report) string {
	t.Helper()
	data, err := json.Marshal(r)
	require.NoError(t, err)
	return strings.Join(r.Lines(), "\n") + "\n" + string(data)
}

// A pre-commit hook that prints a credential fails the git step with its output as the cause:
// the report's lines and its JSON carry it redacted.
func TestReportOfAFailingHookIsRedacted(t *testing.T) {
	root := newRepo(t)
	write(t, root, ".git/hooks/pre-commit", "#!/bin/sh\necho \"error: push rejected for "+heldKey+" and "+classicToken+"\" >&2\nexit 1\n")
	require.NoError(t, os.Chmod(filepath.Join(root, ".git/hooks/pre-commit"), 0o755))
	write(t, root, state.FileName, `{"activeTaskFiles": ["parser.go"]}`)
	write(t, root, "parser.go", "package parser // changed\n")
	cp := newCP(root, Manual, progress.Edits{Issue: "CIA-30", Current: "a"})
	cp.Redactor = heldRedactor(t)
	r := runCP(cp)

	git := step(t, r, "Git snapshot")
	// git's output is redacted where it is cut (by shape: linear-key), then
	// the report by the held credential (secret): either label will do.
	assert.Regexp(t, `push rejected for \[REDACTED:(secret|linear-key)\] and \[REDACTED:github-token\]`, git.Message)
	out := everyExit(t, r)
	assert.NotContains(t, out, heldKey)
	assert.NotContains(t, out, classicToken)
}

// A server that echoes the key, base64-encoded, in its error: the report, ccc sync's cause and
// the outbox's lastError never hold it.
func TestSinkErrorEchoingTheKeyIsRedacted(t *testing.T) {
	root := t.TempDir()
	echo := base64.StdEncoding.EncodeToString([]byte(`{"message":"bad credentials","token":"` + heldKey + `"}`))
	fs := &fakeSink{errs: []error{&sinks.Error{Cause: "HTTP 401: " + echo}}}
	cp := newCP(root, Automated, progress.Edits{Issue: "CIA-31", Current: "a"})
	cp.Trackers = []Tracker{{Sink: fs}}
	cp.Redactor = heldRedactor(t)
	r := runCP(cp)

	sr := step(t, r, "Fake update").Sinks
	require.Len(t, sr, 1)
	assert.Contains(t, sr[0].Error, "HTTP 401: ")
	assert.Contains(t, sr[0].Error, "[REDACTED:secret]")
	encodedKey := base64.StdEncoding.EncodeToString([]byte(heldKey))[8:40]
	assert.NotContains(t, everyExit(t, r), encodedKey[:24])

	entries, err := outbox.List(root, t0)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Contains(t, entries[0].LastError, "[REDACTED:secret]")
	data, err := os.ReadFile(filepath.Join(root, projectfs.Dir, outbox.Dir, entries[0].Key()+".json"))
	require.NoError(t, err)
	for k := 0; k < 3; k++ {
		frag := base64.StdEncoding.EncodeToString(append(make([]byte, k), heldKey...))[4:28]
		assert.NotContains(t, string(data), frag)
	}
}

// With the user's redaction turned off for a sink, that sink and the outbox still never get a
// credential ccc holds, Markdown-escaped or not; the patterns are what is off.
func TestRedactionOffStillRedactsHeldKeys(t *testing.T) {
	root := t.TempDir()
	fs := &fakeSink{errs: []error{&sinks.Error{Cause: "HTTP 503"}}}
	cp := newCP(root, Automated, progress.Edits{Issue: "CIA-32"})
	cp.Tracker.Body = "deploy with " + strings.ReplaceAll(heldKey, "_", `\_`) + " and " + classicToken
	cp.Trackers = []Tracker{{Sink: fs}}
	cp.Redactor = heldRedactor(t)
	cp.Tracker.NoRedact = map[string]bool{"fake": true}
	r := runCP(cp)

	require.Len(t, fs.bodies, 1)
	assert.Contains(t, fs.bodies[0], "deploy with [REDACTED:secret] and "+classicToken)
	entries, err := outbox.List(root, t0)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Contains(t, entries[0].Body, "deploy with [REDACTED:secret]")
	assert.NotContains(t, entries[0].Body, `\_api\_`)
	assert.NotContains(t, r.StatusBody, classicToken, "what the run reports is fully redacted")
}

// A credential ccc holds that the agent wrote into the progress file (here Markdown-escaped
// and split by a zero-width space, both of which render as the key) is replaced in the file ccc
// rewrites, with a warning, and never reaches the record or the prompt. A token ccc does not
// hold stays in the user's file, and is redacted where it leaves.
func TestHeldKeyInTheProgressFile(t *testing.T) {
	root := newRepo(t)
	disguised := strings.ReplaceAll(heldKey[:12], "_", `\_`) + "\u200b" + heldKey[12:]
	write(t, root, progress.FileName, "# Session Progress\n\n**Issue:** CIA-33\n\n## Current Task\n- rotate "+disguised+" and "+classicToken+"\n\n## Remaining Tasks\n- tell "+heldKey+"\n")
	cp := newCP(root, Manual, progress.Edits{Next: "use " + heldKey})
	cp.Redactor = heldRedactor(t)
	cp.Git.Skip = true
	r := runCP(cp)
	require.Equal(t, OutcomeOK, r.Outcome(), r.Lines())

	file := read(t, root, progress.FileName)
	assert.NotContains(t, file, heldKey[12:])
	assert.Contains(t, file, "rotate [REDACTED:secret] and "+classicToken, "only held keys are replaced in the user's file")
	assert.Regexp(t, `persist: \d credential\(s\) ccc holds \(LINEAR_API_KEY, LINEAR_OAUTH_TOKEN, GITHUB_TOKEN, GH_TOKEN\) replaced with \[REDACTED:secret\] in \.ccc-progress\.md; the text before is in \.ccc/backups`, strings.Join(r.Warnings, "\n"))

	assert.NotContains(t, r.Prompt, heldKey[12:])
	assert.NotContains(t, r.Prompt, classicToken)
	assert.Contains(t, r.Prompt, "[REDACTED:")

	dir, err := records.Dir(context.Background(), root)
	require.NoError(t, err)
	data, err := os.ReadFile(records.CurrentPath(dir, "main"))
	require.NoError(t, err)
	assert.NotContains(t, string(data), heldKey[12:])
	assert.NotContains(t, string(data), classicToken)
	assert.Contains(t, string(data), "[REDACTED:github-token]")

	// The next run finds nothing more to replace.
	cp = newCP(root, Manual, progress.Edits{})
	cp.Redactor, cp.Git.Skip = heldRedactor(t), true
	r = runCP(cp)
	assert.NotContains(t, strings.Join(r.Warnings, "\n"), "persist:")
}

// The prompt `ccc go` and the session-start hook hand to the next session comes through the
// redactor, from a progress file ccc has not rewritten yet.
func TestResumePromptIsRedacted(t *testing.T) {
	root := t.TempDir()
	write(t, root, progress.FileName, "# Session Progress\n\n**Issue:** CIA-34\n\n## Current Task\n- a\n\n## Continuation Prompt\nResume CIA-34 with "+heldKey+" and "+classicToken+".\n")
	r, err := LoadResumeWith(context.Background(), root, t0, ResumeOptions{Redactor: heldRedactor(t), ReadOnly: true})
	require.NoError(t, err)
	assert.Equal(t, "Resume CIA-34 with [REDACTED:secret] and [REDACTED:github-token].", r.Prompt)
}
