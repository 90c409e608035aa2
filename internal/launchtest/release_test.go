package launchtest

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// root is the repository's root, from this package's directory.
var root = filepath.Join("..", "..")

// launcherPath is the plugin's launcher.
func launcherPath(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(root, "plugin", "bin", "ccc"))
	require.NoError(t, err)
	return p
}

// pluginVersion is the version in the plugin's manifest.
func pluginVersion(t *testing.T) string {
	t.Helper()
	var m struct {
		Version string `json:"version"`
	}
	data, err := os.ReadFile(filepath.Join(root, "plugin", ".claude-plugin", "plugin.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &m))
	require.NotEmpty(t, m.Version)
	return m.Version
}

// targets are the release's platforms (.goreleaser.yaml's goos × goarch).
var targets = []struct{ os, arch string }{
	{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// archiveName is .goreleaser.yaml's archive name for a platform
// (TestGoreleaserNamesWhatTheLauncherFetches holds the two together).
func archiveName(version, goos, goarch string) string {
	ext := "tar.gz"
	if goos == "windows" {
		ext = "zip"
	}
	return fmt.Sprintf("ccc_%s_%s_%s.%s", version, goos, goarch, ext)
}

// release is a snapshot release as the server serves it: the archives and
// checksums.txt.
type release struct {
	version string
	files   map[string][]byte
}

var (
	releaseOnce sync.Once
	theRelease  *release
	releaseErr  error
)

// fakeBinary stands in for another platform's ccc: a script that prints
// the version like ccc, and else where it came from.
func fakeBinary(version, goos, goarch string) []byte {
	return []byte(fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'ccc v%s (commit abc1234, 2026-11-25)'; exit 0; fi\necho \"fake-ccc %s/%s $*\"\n",
		version, goos, goarch))
}

// getRelease builds the release once per test binary: the real ccc for
// this machine (release ldflags), a stand-in for the other platforms, each
// in the archive format and layout .goreleaser.yaml gives it (binary at the
// root, README.md, LICENSE), and checksums.txt as sha256sum writes it.
func getRelease(t *testing.T) *release {
	t.Helper()
	version := pluginVersion(t)
	releaseOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ccc-release-")
		if err != nil {
			releaseErr = err
			return
		}
		bin := filepath.Join(dir, "ccc")
		build := exec.Command("go", "build", "-trimpath", "-ldflags",
			"-X main.version=v"+version+" -X main.commit=abc1234def5678 -X main.date=2026-11-25T13:45:00Z",
			"-o", bin, "./cmd/ccc")
		build.Dir = root
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			releaseErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		real, err := os.ReadFile(bin)
		_ = os.RemoveAll(dir)
		if err != nil {
			releaseErr = err
			return
		}
		readme, err1 := os.ReadFile(filepath.Join(root, "README.md"))
		license, err2 := os.ReadFile(filepath.Join(root, "LICENSE"))
		if err1 != nil || err2 != nil {
			releaseErr = fmt.Errorf("README.md, LICENSE: %v %v", err1, err2)
			return
		}
		r := &release{version: version, files: map[string][]byte{}}
		var sums []string
		for _, tg := range targets {
			b := fakeBinary(version, tg.os, tg.arch)
			if tg.os == runtime.GOOS && tg.arch == runtime.GOARCH {
				b = real
			}
			name := archiveName(version, tg.os, tg.arch)
			data, err := makeArchive(name, tg.os, map[string][]byte{"README.md": readme, "LICENSE": license}, b)
			if err != nil {
				releaseErr = err
				return
			}
			r.files[name] = data
			sum := sha256.Sum256(data)
			sums = append(sums, hex.EncodeToString(sum[:])+"  "+name)
		}
		sort.Strings(sums)
		r.files["checksums.txt"] = []byte(strings.Join(sums, "\n") + "\n")
		theRelease = r
	})
	require.NoError(t, releaseErr)
	return theRelease
}

// makeArchive writes a release archive: the binary (ccc, ccc.exe on
// Windows) and the other files at its root.
func makeArchive(name, goos string, files map[string][]byte, binary []byte) ([]byte, error) {
	exe := "ccc"
	if goos == "windows" {
		exe = "ccc.exe"
	}
	names := []string{"LICENSE", "README.md"}
	var buf bytes.Buffer
	mtime := time.Date(2026, 11, 25, 13, 45, 0, 0, time.UTC)
	if strings.HasSuffix(name, ".zip") {
		zw := zip.NewWriter(&buf)
		add := func(n string, data []byte, mode os.FileMode) error {
			h := &zip.FileHeader{Name: n, Method: zip.Deflate, Modified: mtime}
			h.SetMode(mode)
			w, err := zw.CreateHeader(h)
			if err != nil {
				return err
			}
			_, err = w.Write(data)
			return err
		}
		if err := add(exe, binary, 0o755); err != nil {
			return nil, err
		}
		for _, n := range names {
			if err := add(n, files[n], 0o644); err != nil {
				return nil, err
			}
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	add := func(n string, data []byte, mode int64) error {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: mode, Size: int64(len(data)), ModTime: mtime, Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	if err := add(exe, binary, 0o755); err != nil {
		return nil, err
	}
	for _, n := range names {
		if err := add(n, files[n], 0o644); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// server serves a release like GitHub's download URLs do (200 with the
// file, 404 for anything else) and counts the requests per file.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

// serve starts a server for files. delay slows each archive down, so
// concurrent launchers overlap while one downloads.
func serve(t *testing.T, files map[string][]byte, delay time.Duration) *server {
	t.Helper()
	s := &server{hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		s.mu.Lock()
		s.hits[name]++
		s.mu.Unlock()
		data, ok := files[name]
		if !ok {
			http.Error(w, "Not Found", http.StatusNotFound)
			return
		}
		if strings.HasPrefix(name, "ccc_") {
			time.Sleep(delay)
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(data)
	}))
	t.Cleanup(s.Close)
	return s
}

// requests is how often each file was asked for.
func (s *server) requests() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, v := range s.hits {
		out[k] = v
	}
	return out
}

// needTools skips the test when the machine lacks what the launcher runs
// with everywhere it is used.
func needTools(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the launcher is tested with a POSIX PATH of symlinked tools; on Windows it runs under Git Bash")
	}
	for _, tool := range []string{"sh", "tar", "gzip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: the launcher is a POSIX sh script that unpacks tar.gz archives", tool)
		}
	}
	if _, err := exec.LookPath("curl"); err != nil {
		if _, err := exec.LookPath("wget"); err != nil {
			t.Skip("neither curl nor wget: the launcher downloads with one of them")
		}
	}
}

// fakeBin makes a PATH directory holding only the tools the launcher
// uses (no go, no ccc; perl for macOS's shasum), and a uname that reports $FAKE_UNAME_S and
// $FAKE_UNAME_M when they are set.
func fakeBin(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range []string{"sh", "bash", "curl", "wget", "tar", "gzip", "unzip", "sha256sum", "shasum",
		"awk", "sed", "head", "grep", "cut", "cat", "mkdir", "rm", "mv", "cp", "chmod", "dirname", "find",
		"sleep", "od", "tr", "touch", "uname", "openssl", "perl", "ln", "ls"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			continue
		}
		name := tool
		if tool == "uname" {
			name = "uname.real"
		}
		require.NoError(t, os.Symlink(p, filepath.Join(dir, name)))
	}
	writeExec(t, filepath.Join(dir, "uname"), `#!/bin/sh
case "$1" in
-s) [ -n "${FAKE_UNAME_S:-}" ] && { echo "$FAKE_UNAME_S"; exit 0; } ;;
-m) [ -n "${FAKE_UNAME_M:-}" ] && { echo "$FAKE_UNAME_M"; exit 0; } ;;
esac
exec uname.real "$@"
`)
	return dir
}

func writeExec(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o755))
}

// result is one launcher run.
type result struct {
	stdout, stderr string
	code           int
}

// launch runs the launcher with args under a clean environment: PATH is
// path, HOME is home, downloads come from url; env adds to it.
func launch(t *testing.T, path, home, url string, env map[string]string, args ...string) result {
	t.Helper()
	return launchWithStdin(t, "", path, home, url, env, args...)
}

// launchWithStdin is launch with stdin (a hook's JSON).
func launchWithStdin(t *testing.T, stdin, path, home, url string, env map[string]string, args ...string) result {
	t.Helper()
	cmd := exec.Command("sh", append([]string{launcherPath(t)}, args...)...)
	cmd.Env = []string{"PATH=" + path, "HOME=" + home, "CCC_DOWNLOAD_URL=" + url, "CCC_DOWNLOAD_TIMEOUT=5"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Dir = home
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}
}
