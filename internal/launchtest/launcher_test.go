package launchtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostUname is what uname says on this machine in the launcher's terms.
func hostUname(t *testing.T) (s, m string) {
	t.Helper()
	switch runtime.GOOS {
	case "linux":
		s = "Linux"
	case "darwin":
		s = "Darwin"
	default:
		t.Skipf("the launcher tests run on Linux and macOS, not %s", runtime.GOOS)
	}
	switch runtime.GOARCH {
	case "amd64":
		m = "x86_64"
	case "arm64":
		m = "arm64"
	default:
		t.Skipf("no release for %s", runtime.GOARCH)
	}
	return s, m
}

// cachedBinary is where the launcher keeps a platform's binary under home.
func cachedBinary(home, version, goos, goarch string) string {
	cache := filepath.Join(home, ".cache", "ccc")
	if goos == "darwin" {
		cache = filepath.Join(home, "Library", "Caches", "ccc")
	}
	exe := "ccc"
	if goos == "windows" {
		exe = "ccc.exe"
	}
	return filepath.Join(cache, "v"+version, goos+"_"+goarch, exe)
}

// TestLauncherPicksTheArchiveForThisMachine: the launcher downloads the one
// archive for the OS/arch uname reports, verifies it, caches the binary and
// runs it with the arguments given.
func TestLauncherPicksTheArchiveForThisMachine(t *testing.T) {
	needTools(t)
	rel := getRelease(t)
	hostS, hostM := hostUname(t)
	tests := []struct {
		unameS, unameM string
		goos, goarch   string
	}{
		{"Linux", "x86_64", "linux", "amd64"},
		{"Linux", "aarch64", "linux", "arm64"},
		{"Darwin", "x86_64", "darwin", "amd64"},
		{"Darwin", "arm64", "darwin", "arm64"},
		{"MINGW64_NT-10.0-19045", "x86_64", "windows", "amd64"},
	}
	for _, tt := range tests {
		t.Run(tt.goos+"_"+tt.goarch, func(t *testing.T) {
			t.Parallel()
			if tt.goos == "windows" && !haveZipTool() {
				t.Skip("no unzip: the launcher unpacks Windows .zip archives with unzip or bsdtar")
			}
			srv := serve(t, rel.files, 0)
			home := t.TempDir()
			env := map[string]string{"FAKE_UNAME_S": tt.unameS, "FAKE_UNAME_M": tt.unameM}
			real := tt.unameS == hostS && tt.unameM == hostM ||
				tt.goos == runtime.GOOS && tt.goarch == runtime.GOARCH
			args := []string{"status", "--json"}
			if real {
				args = []string{"--version"}
			}
			r := launch(t, fakeBin(t), home, srv.URL, env, args...)
			require.Equal(t, 0, r.code, r.stderr)
			if real {
				assert.Equal(t, "ccc v"+rel.version+" (commit abc1234, 2026-11-25)\n", r.stdout)
			} else {
				assert.Equal(t, fmt.Sprintf("fake-ccc %s/%s status --json\n", tt.goos, tt.goarch), r.stdout)
			}
			assert.Empty(t, r.stderr)
			assert.Equal(t, map[string]int{"checksums.txt": 1, archiveName(rel.version, tt.goos, tt.goarch): 1}, srv.requests())
			assert.FileExists(t, cachedBinary(home, rel.version, tt.goos, tt.goarch))
		})
	}
}

func haveZipTool() bool {
	_, err := exec.LookPath("unzip")
	return err == nil
}

// TestLauncherRefusesATamperedArchive: an archive whose SHA-256 is not the
// one in checksums.txt is never unpacked or run; a hook degrades to one
// stderr line and exit 0, anything else fails.
func TestLauncherRefusesATamperedArchive(t *testing.T) {
	needTools(t)
	rel := getRelease(t)
	home := t.TempDir()
	marker := filepath.Join(home, "tampered-binary-ran")
	name := archiveName(rel.version, "linux", "amd64")
	evil, err := makeArchive(name, "linux", map[string][]byte{"README.md": nil, "LICENSE": nil},
		[]byte("#!/bin/sh\ntouch '"+marker+"'\necho pwned\n"))
	require.NoError(t, err)
	files := map[string][]byte{"checksums.txt": rel.files["checksums.txt"], name: evil}
	srv := serve(t, files, 0)
	env := map[string]string{"FAKE_UNAME_S": "Linux", "FAKE_UNAME_M": "x86_64"}
	path := fakeBin(t)

	r := launch(t, path, home, srv.URL, env, "hook", "stop")
	assert.Equal(t, 0, r.code, "a hook never fails")
	assert.Empty(t, r.stdout, "a hook says nothing to Claude Code")
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
	assert.Contains(t, r.stderr, name+" does not match its SHA-256 in checksums.txt (refused)")
	assert.Contains(t, r.stderr, "install it: https://github.com/ccc-checkpoint/ccc#install")
	assert.NoFileExists(t, marker, "the tampered binary never ran")
	assert.NoFileExists(t, cachedBinary(home, rel.version, "linux", "amd64"))

	// Another home: not a hook, so it fails.
	home2 := t.TempDir()
	r = launch(t, path, home2, srv.URL, env, "status")
	assert.Equal(t, 1, r.code)
	assert.Empty(t, r.stdout)
	assert.Contains(t, r.stderr, "(refused)")
	assert.NoFileExists(t, marker)
	assert.NoFileExists(t, cachedBinary(home2, rel.version, "linux", "amd64"))
}

// closedURL is a URL nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return "http://" + addr + "/releases/download/v0"
}

// TestLauncherUnreachableServer: without the network, a hook degrades (one
// stderr line, exit 0, empty stdout) and later hooks do not wait for the
// network again; with Go on PATH the launcher falls back to go install.
func TestLauncherUnreachableServer(t *testing.T) {
	needTools(t)
	rel := getRelease(t)
	env := map[string]string{"FAKE_UNAME_S": "Linux", "FAKE_UNAME_M": "x86_64"}

	t.Run("hook degrades", func(t *testing.T) {
		t.Parallel()
		home := t.TempDir()
		r := launch(t, fakeBin(t), home, closedURL(t), env, "hook", "session-start")
		assert.Equal(t, 0, r.code)
		assert.Empty(t, r.stdout)
		assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
		assert.Regexp(t, `^ccc: cannot get ccc v`+rel.version+`: cannot download http://127\.0\.0\.1:\d+/releases/download/v0/checksums\.txt; install it: https://github\.com/ccc-checkpoint/ccc#install\n$`, r.stderr)
	})

	t.Run("a failed download is not retried by every hook", func(t *testing.T) {
		t.Parallel()
		srv := serve(t, map[string][]byte{}, 0) // a release without files: 404
		home, path := t.TempDir(), fakeBin(t)
		for range 3 {
			r := launch(t, path, home, srv.URL, env, "hook", "stop")
			assert.Equal(t, 0, r.code)
			assert.Empty(t, r.stdout)
			assert.Contains(t, r.stderr, "cannot download "+srv.URL+"/checksums.txt")
		}
		assert.Equal(t, map[string]int{"checksums.txt": 1}, srv.requests())
	})

	// fakeGo stands in for go: `go install …@vX` writes a ccc into $GOBIN
	// and logs its arguments.
	fakeGo := func(t *testing.T, path string) string {
		t.Helper()
		log := filepath.Join(t.TempDir(), "go.log")
		writeExec(t, filepath.Join(path, "go"), `#!/bin/sh
echo "$*" >>'`+log+`'
[ "$1" = install ] || exit 2
printf '#!/bin/sh\necho "built-ccc $*"\n' >"$GOBIN/ccc"
chmod 755 "$GOBIN/ccc"
`)
		return log
	}

	t.Run("go install when Go is here", func(t *testing.T) {
		t.Parallel()
		home, path := t.TempDir(), fakeBin(t)
		log := fakeGo(t, path)
		r := launch(t, path, home, closedURL(t), env, "status")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "built-ccc status\n", r.stdout)
		got, err := os.ReadFile(log)
		require.NoError(t, err)
		assert.Equal(t, "install github.com/ccc-checkpoint/ccc/cmd/ccc@v"+rel.version+"\n", string(got))
		assert.FileExists(t, cachedBinary(home, rel.version, "linux", "amd64"))
	})

	t.Run("a hook builds in the background and is skipped", func(t *testing.T) {
		t.Parallel()
		home, path := t.TempDir(), fakeBin(t)
		fakeGo(t, path)
		r := launch(t, path, home, closedURL(t), env, "hook", "stop")
		assert.Equal(t, 0, r.code)
		assert.Empty(t, r.stdout)
		assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
		assert.Contains(t, r.stderr, "building ccc v"+rel.version+" with go install in the background (this hook is skipped)")
		// The build puts the binary in the cache, then releases the lock
		// (which the background build itself takes); then the next hook
		// runs it.
		bin := cachedBinary(home, rel.version, "linux", "amd64")
		lock := filepath.Join(filepath.Dir(filepath.Dir(bin)), ".lock")
		for i := 0; i < 200; i++ {
			_, berr := os.Stat(bin)
			if _, err := os.Lstat(lock); os.IsNotExist(err) && berr == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		r = launch(t, path, home, closedURL(t), env, "hook", "stop")
		assert.Equal(t, result{stdout: "built-ccc hook stop\n"}, r)
	})
}

// TestLauncherSecondRunUsesTheCache: once a version is downloaded the
// launcher needs no network.
func TestLauncherSecondRunUsesTheCache(t *testing.T) {
	needTools(t)
	rel := getRelease(t)
	srv := serve(t, rel.files, 0)
	home, path := t.TempDir(), fakeBin(t)
	env := map[string]string{"FAKE_UNAME_S": "Darwin", "FAKE_UNAME_M": "arm64"}
	r := launch(t, path, home, srv.URL, env, "go")
	require.Equal(t, 0, r.code, r.stderr)
	srv.Close()
	r = launch(t, path, home, srv.URL, env, "hook", "session-start")
	assert.Equal(t, result{stdout: "fake-ccc darwin/arm64 hook session-start\n"}, r)
	assert.Equal(t, map[string]int{"checksums.txt": 1, archiveName(rel.version, "darwin", "arm64"): 1}, srv.requests())
}

// TestLauncherTenConcurrentStartsDownloadOnce: hooks that start together
// share one download (a lock), and all of them run the binary.
func TestLauncherTenConcurrentStartsDownloadOnce(t *testing.T) {
	needTools(t)
	rel := getRelease(t)
	srv := serve(t, rel.files, 300*time.Millisecond)
	home, path := t.TempDir(), fakeBin(t)
	env := map[string]string{"FAKE_UNAME_S": "Linux", "FAKE_UNAME_M": "aarch64"}
	var wg sync.WaitGroup
	results := make([]result, 10)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = launch(t, path, home, srv.URL, env, "hook", "stop")
		}()
	}
	wg.Wait()
	for i, r := range results {
		assert.Equal(t, result{stdout: "fake-ccc linux/arm64 hook stop\n"}, r, "start %d", i)
	}
	assert.Equal(t, map[string]int{"checksums.txt": 1, archiveName(rel.version, "linux", "arm64"): 1}, srv.requests())
}

// TestLauncherUsesCccOnPathWhenNewEnough: a ccc on PATH at least as new as
// the plugin, or a development build, is run without any download; an older
// one, a prerelease or another copy of the launcher is passed over.
func TestLauncherUsesCccOnPathWhenNewEnough(t *testing.T) {
	needTools(t)
	rel := getRelease(t)
	require.Equal(t, "0.1.0", rel.version, "the cases below are written for 0.1.0; update them with the version")
	tests := []struct {
		printed string
		used    bool
	}{
		{"ccc v0.1.0", true},
		{"ccc v0.1.0 (commit abc1234, 2026-11-25)", true},
		{"ccc v0.1.1", true},
		{"ccc v0.10.0", true},
		{"ccc v1.0.0-rc1", true},
		{"ccc v0.0.9", false},
		{"ccc v0.1.0-rc1", false},
		{"ccc (devel) (commit abc1234, modified)", true},
		{"ccc v0.0.0-20261125134500-abc1234def56", true},
		{"ccc v0.0.0", false},
		{"something else", false},
	}
	for _, tt := range tests {
		t.Run(tt.printed, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, rel.files, 0)
			home, path := t.TempDir(), fakeBin(t)
			other := t.TempDir()
			writeExec(t, filepath.Join(other, "ccc"), "#!/bin/sh\n[ \"$1\" = --version ] && { echo '"+tt.printed+"'; exit 0; }\necho \"path-ccc $*\"\n")
			env := map[string]string{"FAKE_UNAME_S": "Linux", "FAKE_UNAME_M": "aarch64"}
			r := launch(t, other+":"+path, home, srv.URL, env, "go")
			require.Equal(t, 0, r.code, r.stderr)
			if tt.used {
				assert.Equal(t, "path-ccc go\n", r.stdout)
				assert.Empty(t, srv.requests(), "no download")
			} else {
				assert.Equal(t, "fake-ccc linux/arm64 go\n", r.stdout)
			}
		})
	}

	t.Run("the hook's stdin reaches the binary, not the version check", func(t *testing.T) {
		t.Parallel()
		srv := serve(t, rel.files, 0)
		home, path, other := t.TempDir(), fakeBin(t), t.TempDir()
		// This ccc reads stdin even for --version: the launcher must not
		// let it take the hook's input.
		writeExec(t, filepath.Join(other, "ccc"), "#!/bin/sh\nif [ \"$1\" = --version ]; then cat >/dev/null; echo 'ccc v9.0.0'; exit 0; fi\necho \"stdin: $(cat)\"\n")
		r := launchWithStdin(t, `{"session_id": "8f3c2a1e"}`, other+":"+path, home, srv.URL, nil, "hook", "stop")
		assert.Equal(t, result{stdout: "stdin: {\"session_id\": \"8f3c2a1e\"}\n"}, r)
	})

	t.Run("launchers on PATH are passed over", func(t *testing.T) {
		t.Parallel()
		srv := serve(t, rel.files, 0)
		home, path := t.TempDir(), fakeBin(t)
		// Claude Code puts the plugin's bin/ on the Bash tool's PATH, and an
		// older plugin version may be installed too.
		copyDir := filepath.Join(t.TempDir(), "plugin")
		launcher, err := os.ReadFile(launcherPath(t))
		require.NoError(t, err)
		writeExec(t, filepath.Join(copyDir, "bin", "ccc"), string(launcher))
		writeExec(t, filepath.Join(copyDir, ".claude-plugin", "plugin.json"), `{"name": "ccc", "version": "0.0.1"}`)
		env := map[string]string{"FAKE_UNAME_S": "Linux", "FAKE_UNAME_M": "aarch64"}
		p := filepath.Dir(launcherPath(t)) + ":" + filepath.Join(copyDir, "bin") + ":" + path
		r := launch(t, p, home, srv.URL, env, "go")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "fake-ccc linux/arm64 go\n", r.stdout)
	})
}

// TestLauncherUsesADevelopmentBuildOnPath: `claude --plugin-dir ./plugin`
// with a ccc built from the checkout on PATH runs that build, offline, and
// says so once per cache rather than on every hook.
func TestLauncherUsesADevelopmentBuildOnPath(t *testing.T) {
	needTools(t)
	rel := getRelease(t)
	home, path, dev := t.TempDir(), fakeBin(t), t.TempDir()
	devCcc := filepath.Join(dev, "ccc")
	writeExec(t, devCcc, "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'ccc (devel) (commit abc1234, modified)'; exit 0; }\necho \"dev-ccc $*\"\n")
	url := closedURL(t)
	r := launch(t, dev+":"+path, home, url, nil, "hook", "stop")
	assert.Equal(t, 0, r.code)
	assert.Equal(t, "dev-ccc hook stop\n", r.stdout)
	assert.Equal(t, "ccc: using the development build "+devCcc+" ((devel)) on PATH instead of ccc v"+rel.version+" (shown once; CCC_BIN chooses a binary)\n", r.stderr)
	for range 2 {
		r = launch(t, dev+":"+path, home, url, nil, "hook", "stop")
		assert.Equal(t, result{stdout: "dev-ccc hook stop\n"}, r, "the notice is shown once")
	}
}

// TestLauncherCccBin: CCC_BIN names the binary to run, as-is (no version
// check, no download); one that is not an executable file is refused, and a
// hook still exits 0.
func TestLauncherCccBin(t *testing.T) {
	needTools(t)
	home, path, dir := t.TempDir(), fakeBin(t), t.TempDir()
	mine := filepath.Join(dir, "my-ccc")
	writeExec(t, mine, "#!/bin/sh\necho \"my-ccc $*\"\n")
	url := closedURL(t)
	r := launch(t, path, home, url, map[string]string{"CCC_BIN": mine}, "hook", "stop")
	assert.Equal(t, result{stdout: "my-ccc hook stop\n"}, r)

	for _, bad := range []string{dir, filepath.Join(dir, "missing")} {
		r = launch(t, path, home, url, map[string]string{"CCC_BIN": bad}, "hook", "stop")
		assert.Equal(t, result{stderr: "ccc: CCC_BIN=" + bad + " is not an executable file; install it: https://github.com/ccc-checkpoint/ccc#install\n"}, r)
		r = launch(t, path, home, url, map[string]string{"CCC_BIN": bad}, "status")
		assert.Equal(t, 1, r.code)
	}
}

// TestLauncherStartsNothingBeforeTheBinary: on the hooks' path, the
// launcher finds its directory and reads the plugin's version with the
// shell alone, so a hook pays for sh and ccc, not for dirname, sed and head
// each time (issue 24: a PostToolUse hook's CPU as the plugin wires it).
// PATH holds sh only: any other program it started would fail the run.
func TestLauncherStartsNothingBeforeTheBinary(t *testing.T) {
	needTools(t)
	sh, err := exec.LookPath("sh")
	require.NoError(t, err)
	path := t.TempDir()
	require.NoError(t, os.Symlink(sh, filepath.Join(path, "sh")))
	mine := filepath.Join(t.TempDir(), "my-ccc")
	writeExec(t, mine, "#!/bin/sh\necho \"my-ccc $*\"\n")
	r := launch(t, path, t.TempDir(), closedURL(t), map[string]string{"CCC_BIN": mine}, "hook", "post-tool-use")
	assert.Equal(t, result{stdout: "my-ccc hook post-tool-use\n"}, r)
}
