package launchtest

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// member is one entry of a hand-made archive.
type member struct {
	name string
	kind byte // tar.TypeReg, TypeSymlink, TypeLink, TypeDir
	data string
	link string
}

// hostileArchive writes name (.tar.gz or .zip) with members as given, so a
// test can make what goreleaser never would.
func hostileArchive(t *testing.T, name string, members []member) []byte {
	t.Helper()
	var buf bytes.Buffer
	mtime := time.Date(2026, 11, 25, 13, 45, 0, 0, time.UTC)
	if strings.HasSuffix(name, ".zip") {
		zw := zip.NewWriter(&buf)
		for _, m := range members {
			h := &zip.FileHeader{Name: m.name, Method: zip.Store, Modified: mtime}
			data := m.data
			switch m.kind {
			case tar.TypeSymlink:
				h.SetMode(os.ModeSymlink | 0o777)
				data = m.link
			case tar.TypeDir:
				h.Name += "/"
				h.SetMode(os.ModeDir | 0o755)
			default:
				h.SetMode(0o755)
			}
			w, err := zw.CreateHeader(h)
			require.NoError(t, err)
			_, err = w.Write([]byte(data))
			require.NoError(t, err)
		}
		require.NoError(t, zw.Close())
		return buf.Bytes()
	}
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, m := range members {
		h := &tar.Header{Name: m.name, Mode: 0o755, ModTime: mtime, Typeflag: m.kind, Linkname: m.link}
		if m.kind == tar.TypeReg {
			h.Size = int64(len(m.data))
		}
		require.NoError(t, tw.WriteHeader(h))
		if m.kind == tar.TypeReg {
			_, err := tw.Write([]byte(m.data))
			require.NoError(t, err)
		}
	}
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	return buf.Bytes()
}

// releaseOf serves archives under their names with a checksums.txt that
// vouches for them: the checksum is right, the content is not.
func releaseOf(archives map[string][]byte) map[string][]byte {
	files := map[string][]byte{}
	var sums strings.Builder
	for name, data := range archives {
		sum := sha256.Sum256(data)
		sums.WriteString(hex.EncodeToString(sum[:]) + "  " + name + "\n")
		files[name] = data
	}
	files["checksums.txt"] = []byte(sums.String())
	return files
}

// TestLauncherTakesOnlyARegularCcc: an archive that matches checksums.txt
// but whose ccc is a symlink, a hard link, a directory, or is there twice is
// refused: nothing is made executable, nothing runs, nothing is cached.
func TestLauncherTakesOnlyARegularCcc(t *testing.T) {
	needTools(t)
	rel := getRelease(t)
	tests := []struct {
		name    string
		goos    string
		members func(key, marker string) []member
	}{
		{"symlink", "linux", func(key, _ string) []member {
			return []member{{name: "README.md", kind: tar.TypeReg}, {name: "ccc", kind: tar.TypeSymlink, link: key}}
		}},
		{"hard link", "linux", func(_, marker string) []member {
			return []member{{name: "README.md", kind: tar.TypeReg, data: "#!/bin/sh\ntouch '" + marker + "'\n"},
				{name: "ccc", kind: tar.TypeLink, link: "README.md"}}
		}},
		{"directory", "linux", func(_, _ string) []member {
			return []member{{name: "ccc", kind: tar.TypeDir}, {name: "ccc/x", kind: tar.TypeReg}}
		}},
		{"twice", "linux", func(_, marker string) []member {
			return []member{{name: "ccc", kind: tar.TypeReg, data: string(fakeBinary(rel.version, "linux", "amd64"))},
				{name: "ccc", kind: tar.TypeReg, data: "#!/bin/sh\ntouch '" + marker + "'\n"}}
		}},
		{"zip symlink", "windows", func(key, _ string) []member {
			return []member{{name: "ccc.exe", kind: tar.TypeSymlink, link: key}}
		}},
		{"zip twice", "windows", func(_, marker string) []member {
			return []member{{name: "ccc.exe", kind: tar.TypeReg, data: string(fakeBinary(rel.version, "windows", "amd64"))},
				{name: "ccc.exe", kind: tar.TypeReg, data: "#!/bin/sh\ntouch '" + marker + "'\n"}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.goos == "windows" && !haveZipTool() {
				t.Skip("no unzip")
			}
			home := t.TempDir()
			// A private file the symlink points at; executable content, so
			// running it would show.
			marker := filepath.Join(home, "planted-ran")
			key := filepath.Join(home, "key")
			require.NoError(t, os.WriteFile(key, []byte("#!/bin/sh\ntouch '"+marker+"'\n"), 0o600))
			name := archiveName(rel.version, tt.goos, "amd64")
			srv := serve(t, releaseOf(map[string][]byte{name: hostileArchive(t, name, tt.members(key, marker))}), 0)
			env := map[string]string{"FAKE_UNAME_S": "Linux", "FAKE_UNAME_M": "x86_64"}
			if tt.goos == "windows" {
				env["FAKE_UNAME_S"] = "MINGW64_NT-10.0-19045"
			}
			r := launch(t, fakeBin(t), home, srv.URL, env, "hook", "stop")
			assert.Equal(t, 0, r.code)
			assert.Empty(t, r.stdout)
			assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
			assert.Contains(t, r.stderr, "has no single regular file ccc")
			assert.NoFileExists(t, marker, "nothing from the archive ran")
			fi, err := os.Stat(key)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the link's target keeps its mode")
			_, err = os.Lstat(cachedBinary(home, rel.version, tt.goos, "amd64"))
			assert.True(t, os.IsNotExist(err), "nothing cached")
		})
	}
}

// TestLauncherIgnoresRelativePathEntries: a ccc in a relative PATH entry
// (node_modules/.bin, ".", the empty entry) is the repository's, not the
// user's: the launcher never runs it.
func TestLauncherIgnoresRelativePathEntries(t *testing.T) {
	needTools(t)
	rel := getRelease(t)
	for _, entry := range []string{"node_modules/.bin", ".", ""} {
		t.Run("entry "+entry, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, rel.files, 0)
			home, path := t.TempDir(), fakeBin(t)
			dir := entry
			if dir == "" {
				dir = "."
			}
			writeExec(t, filepath.Join(home, dir, "ccc"), "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'ccc v9.9.9'; exit 0; }\necho \"repository-ccc $*\"\n")
			env := map[string]string{"FAKE_UNAME_S": "Linux", "FAKE_UNAME_M": "aarch64"}
			r := launch(t, entry+":"+path, home, srv.URL, env, "hook", "stop")
			assert.Equal(t, result{stdout: "fake-ccc linux/arm64 hook stop\n"}, r)
		})
	}
}

// TestLauncherExpiresAStaleLock: a download lock left without a pid (its
// holder died between mkdir and writing it) or older than any download
// (its pid reused by an unrelated live process) does not make every hook
// wait.
func TestLauncherExpiresAStaleLock(t *testing.T) {
	needTools(t)
	rel := getRelease(t)
	tests := []struct {
		name string
		pid  string
		age  time.Duration
	}{
		{"no pid", "", 0},
		{"a live pid, 11 minutes old", "live", 11 * time.Minute},
		{"a link to a dead pid", "dead", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, rel.files, 0)
			home, path := t.TempDir(), fakeBin(t)
			lock := filepath.Join(filepath.Dir(filepath.Dir(cachedBinary(home, rel.version, "linux", "arm64"))), ".lock")
			if tt.pid == "dead" {
				// The launcher's own layout: a link to its holder's pid.
				// A process that has exited (and been waited for).
				c := exec.Command("true")
				require.NoError(t, c.Run())
				require.NoError(t, os.MkdirAll(filepath.Dir(lock), 0o755))
				require.NoError(t, os.Symlink(strconv.Itoa(c.Process.Pid), lock))
			} else {
				require.NoError(t, os.MkdirAll(lock, 0o755))
			}
			if tt.pid == "live" {
				// This test's own pid: alive for the whole run.
				require.NoError(t, os.WriteFile(filepath.Join(lock, "pid"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644))
			}
			if tt.age > 0 {
				old := time.Now().Add(-tt.age)
				require.NoError(t, os.Chtimes(lock, old, old))
			}
			env := map[string]string{"FAKE_UNAME_S": "Linux", "FAKE_UNAME_M": "aarch64"}
			start := time.Now()
			r := launch(t, path, home, srv.URL, env, "hook", "stop")
			took := time.Since(start)
			t.Logf("took %v", took)
			assert.Equal(t, result{stdout: "fake-ccc linux/arm64 hook stop\n"}, r)
			assert.Less(t, took, 5*time.Second, "a stale lock is not waited for")
		})
	}
}
