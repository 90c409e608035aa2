package launchtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// installStep is action.yml's install step: its env: and run: script.
func installStep(t *testing.T) (env map[string]string, script string) {
	t.Helper()
	var action struct {
		Runs struct {
			Steps []struct {
				ID  string            `yaml:"id"`
				If  string            `yaml:"if"`
				Run string            `yaml:"run"`
				Env map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &action))
	for _, s := range action.Runs.Steps {
		if s.ID == "install" {
			require.Empty(t, s.If, "the install step always runs")
			return s.Env, s.Run
		}
	}
	t.Fatal("action.yml has no step with id install")
	return nil, ""
}

// actionRun is one run of the install step on a fake runner.
type actionRun struct {
	result
	outputs   string // $GITHUB_OUTPUT
	runnerTmp string
}

// runInstall runs the install step as the runner does (bash -e, the env:
// evaluated, GITHUB_ACTION_PATH the repository) with the action used at
// ref on a runner of runnerOS/runnerArch; downloads come from url.
func runInstall(t *testing.T, ref, runnerOS, runnerArch, url, toolCache string) actionRun {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found: the action's steps are bash scripts")
	}
	stepEnv, script := installStep(t)
	require.Equal(t, map[string]string{"CCC_ACTION_REF": "${{ github.action_ref }}"}, stepEnv,
		"the step reads the action's ref from its env, nothing else from expressions")
	require.NotContains(t, script, "${{", "nothing is spliced into the script")
	actionPath, err := filepath.Abs(root)
	require.NoError(t, err)
	tmp := t.TempDir()
	out := filepath.Join(tmp, "output.txt")
	require.NoError(t, os.WriteFile(out, nil, 0o600))
	runnerTmp := filepath.Join(tmp, "runner-temp")
	require.NoError(t, os.Mkdir(runnerTmp, 0o755))
	path := fakeBin(t)
	cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Env = []string{"PATH=" + path, "HOME=" + tmp, "CCC_ACTION_REF=" + ref,
		"GITHUB_ACTION_PATH=" + actionPath, "GITHUB_OUTPUT=" + out, "RUNNER_TEMP=" + runnerTmp,
		"RUNNER_TOOL_CACHE=" + toolCache, "RUNNER_OS=" + runnerOS, "RUNNER_ARCH=" + runnerArch,
		"CCC_DOWNLOAD_URL=" + url, "CCC_DOWNLOAD_TIMEOUT=5"}
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	outputs, err := os.ReadFile(out)
	require.NoError(t, err)
	return actionRun{result{so.String(), se.String(), code}, string(outputs), runnerTmp}
}

// TestActionInstallsTheReleaseBinary: at a release tag the Action takes the
// runner's archive from the release, checks it and keeps it in the tool
// cache; it builds from source (build=true) only where there is no release
// or the release cannot be used.
func TestActionInstallsTheReleaseBinary(t *testing.T) {
	needTools(t)
	rel := getRelease(t)
	tag := "v" + rel.version

	tests := []struct {
		runnerOS, runnerArch string
		goos, goarch         string
	}{
		{"macOS", "ARM64", "darwin", "arm64"},
		{"macOS", "X64", "darwin", "amd64"},
		{"Linux", "ARM64", "linux", "arm64"},
		{"Windows", "X64", "windows", "amd64"},
	}
	for _, tt := range tests {
		t.Run(tt.runnerOS+"_"+tt.runnerArch, func(t *testing.T) {
			t.Parallel()
			if tt.goos == "windows" && !haveZipTool() {
				t.Skip("no unzip for the Windows .zip archive")
			}
			srv := serve(t, rel.files, 0)
			cache := t.TempDir()
			r := runInstall(t, tag, tt.runnerOS, tt.runnerArch, srv.URL, cache)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Empty(t, r.outputs, "no build")
			assert.Contains(t, r.stdout, "ccc v"+rel.version+" from the release ("+tt.goos+"/"+tt.goarch+")")
			exe := "ccc"
			if tt.goos == "windows" {
				exe = "ccc.exe"
			}
			got, err := exec.Command("sh", filepath.Join(r.runnerTmp, exe), "post").Output()
			require.NoError(t, err)
			assert.Equal(t, "fake-ccc "+tt.goos+"/"+tt.goarch+" post\n", string(got))
			assert.FileExists(t, filepath.Join(cache, "ccc", tag, tt.goos+"_"+tt.goarch, exe), "kept in the tool cache")
			assert.Equal(t, map[string]int{"checksums.txt": 1, archiveName(rel.version, tt.goos, tt.goarch): 1}, srv.requests())

			// The next job on this runner finds the archive in the tool
			// cache, and checks it against checksums.txt again.
			r = runInstall(t, tag, tt.runnerOS, tt.runnerArch, srv.URL, cache)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Empty(t, r.outputs)
			assert.Equal(t, map[string]int{"checksums.txt": 2, archiveName(rel.version, tt.goos, tt.goarch): 1}, srv.requests())
		})
	}

	t.Run("a floating major tag uses the release too", func(t *testing.T) {
		t.Parallel()
		srv := serve(t, rel.files, 0)
		r := runInstall(t, "v"+strings.SplitN(rel.version, ".", 2)[0], "Linux", "ARM64", srv.URL, t.TempDir())
		require.Equal(t, 0, r.code, r.stderr)
		assert.Empty(t, r.outputs)
		assert.Len(t, srv.requests(), 2)
	})

	for _, ref := range []string{"main", "0123456789abcdef0123456789abcdef01234567", "v9.9.9", ""} {
		t.Run("no release at ref "+ref, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, rel.files, 0)
			r := runInstall(t, ref, "Linux", "X64", srv.URL, t.TempDir())
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, "build=true\n", r.outputs)
			assert.Empty(t, srv.requests(), "no download")
		})
	}

	t.Run("a tampered archive is refused and the source built", func(t *testing.T) {
		t.Parallel()
		name := archiveName(rel.version, "linux", "arm64")
		files := map[string][]byte{"checksums.txt": rel.files["checksums.txt"], name: append([]byte{}, rel.files[archiveName(rel.version, "linux", "amd64")]...)}
		srv := serve(t, files, 0)
		r := runInstall(t, tag, "Linux", "ARM64", srv.URL, t.TempDir())
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "build=true\n", r.outputs)
		assert.Contains(t, r.stderr, "(refused)")
		assert.Contains(t, r.stdout, "::warning::no ccc v"+rel.version+" release binary for linux/arm64; building from source")
		assert.NoFileExists(t, filepath.Join(r.runnerTmp, "ccc"))
	})

	t.Run("an unreachable release builds the source", func(t *testing.T) {
		t.Parallel()
		r := runInstall(t, tag, "Linux", "X64", closedURL(t), t.TempDir())
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "build=true\n", r.outputs)
	})
}

// TestActionVerifiesTheToolCacheOnEveryUse: on a self-hosted runner the tool
// cache outlives the job, so an earlier job can plant a ccc there (or
// replace the archive beside it). The next job never runs what it finds
// without checking it against the release's checksums.txt again: it
// unpacks its binary from a verified archive.
func TestActionVerifiesTheToolCacheOnEveryUse(t *testing.T) {
	needTools(t)
	rel := getRelease(t)
	tag := "v" + rel.version
	name := archiveName(rel.version, "linux", "arm64")
	planted := "#!/bin/sh\necho planted \"$*\"\n"
	dest := func(cache string) string { return filepath.Join(cache, "ccc", tag, "linux_arm64") }

	check := func(t *testing.T, r actionRun) {
		t.Helper()
		require.Equal(t, 0, r.code, r.stderr)
		assert.Empty(t, r.outputs, "no build")
		got, err := exec.Command("sh", filepath.Join(r.runnerTmp, "ccc"), "post").Output()
		require.NoError(t, err)
		assert.Equal(t, "fake-ccc linux/arm64 post\n", string(got), "the release's binary, not the planted one")
	}

	t.Run("a binary planted after an install", func(t *testing.T) {
		t.Parallel()
		srv := serve(t, rel.files, 0)
		cache := t.TempDir()
		check(t, runInstall(t, tag, "Linux", "ARM64", srv.URL, cache))
		writeExec(t, filepath.Join(dest(cache), "ccc"), planted)
		r := runInstall(t, tag, "Linux", "ARM64", srv.URL, cache)
		check(t, r)
		assert.Equal(t, 2, srv.requests()["checksums.txt"], "checksums.txt read on every use")
		assert.Equal(t, 1, srv.requests()[name], "the verified archive kept in the cache is used again")
	})

	t.Run("a binary planted in an empty cache", func(t *testing.T) {
		t.Parallel()
		srv := serve(t, rel.files, 0)
		cache := t.TempDir()
		writeExec(t, filepath.Join(dest(cache), "ccc"), planted)
		check(t, runInstall(t, tag, "Linux", "ARM64", srv.URL, cache))
	})

	t.Run("an archive replaced in the cache", func(t *testing.T) {
		t.Parallel()
		srv := serve(t, rel.files, 0)
		cache := t.TempDir()
		check(t, runInstall(t, tag, "Linux", "ARM64", srv.URL, cache))
		evil, err := makeArchive(name, "linux", map[string][]byte{}, []byte(planted))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dest(cache), name), evil, 0o644))
		writeExec(t, filepath.Join(dest(cache), "ccc"), planted)
		check(t, runInstall(t, tag, "Linux", "ARM64", srv.URL, cache))
		assert.Equal(t, 2, srv.requests()[name], "a cached archive that fails the check is downloaded again")
	})

	t.Run("no checksums.txt: nothing from the cache is used", func(t *testing.T) {
		t.Parallel()
		srv := serve(t, rel.files, 0)
		cache := t.TempDir()
		check(t, runInstall(t, tag, "Linux", "ARM64", srv.URL, cache))
		srv.Close()
		r := runInstall(t, tag, "Linux", "ARM64", srv.URL, cache)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "build=true\n", r.outputs, "built from source")
	})
}
