package launchtest

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInstallJourney follows docs/install.md on a fresh machine (an empty
// HOME, no ccc anywhere): the plugin's launcher downloads and verifies the
// release, then a development build on PATH takes over with one notice,
// CCC_BIN overrides both, and on another machine without network or binary
// a hook says one line and lets the session go on.
func TestInstallJourney(t *testing.T) {
	needTools(t)
	rel := getRelease(t)
	hostUname(t)
	srv := serve(t, rel.files, 0)
	home, path := t.TempDir(), fakeBin(t)

	// /plugin install ccc@ccc, then the first hook: download, verify, run.
	r := launch(t, path, home, srv.URL, nil, "--version")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "ccc v"+rel.version+" (commit abc1234, 2026-11-25)\n", r.stdout)
	assert.Empty(t, r.stderr)
	assert.Equal(t, map[string]int{"checksums.txt": 1, archiveName(rel.version, runtime.GOOS, runtime.GOARCH): 1}, srv.requests())
	assert.FileExists(t, cachedBinary(home, rel.version, runtime.GOOS, runtime.GOARCH))
	r = launchWithStdin(t, `{"session_id": "8f3c2a1e", "hook_event_name": "SessionStart", "source": "startup"}`,
		path, home, srv.URL, nil, "hook", "session-start")
	assert.Equal(t, 0, r.code, r.stderr)

	// While developing ccc: `go build -o ~/bin/ccc ./cmd/ccc` and
	// `claude --plugin-dir ./plugin`. The build is used, offline, and the
	// notice comes once.
	srv.Close()
	dev := t.TempDir()
	devCcc := filepath.Join(dev, "ccc")
	writeExec(t, devCcc, "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'ccc v0.0.0-20261125134500-abc1234def56'; exit 0; }\necho \"dev-ccc $*\"\n")
	notices := 0
	for range 3 {
		r = launch(t, dev+":"+path, home, srv.URL, nil, "hook", "stop")
		assert.Equal(t, 0, r.code)
		assert.Equal(t, "dev-ccc hook stop\n", r.stdout)
		notices += strings.Count(r.stderr, "using the development build "+devCcc)
	}
	assert.Equal(t, 1, notices)

	// CCC_BIN=/path/to/ccc wins over both.
	mine := filepath.Join(t.TempDir(), "ccc")
	writeExec(t, mine, "#!/bin/sh\necho \"mine $*\"\n")
	r = launch(t, dev+":"+path, home, srv.URL, map[string]string{"CCC_BIN": mine}, "hook", "stop")
	assert.Equal(t, result{stdout: "mine hook stop\n"}, r)

	// Another fresh machine, offline, no ccc: one clear line, exit 0.
	r = launch(t, path, t.TempDir(), closedURL(t), nil, "hook", "stop")
	assert.Equal(t, 0, r.code)
	assert.Empty(t, r.stdout)
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
	assert.Contains(t, r.stderr, "ccc: cannot get ccc v"+rel.version+": cannot download ")
	assert.Contains(t, r.stderr, "install it: https://github.com/ccc-checkpoint/ccc#install")
}
