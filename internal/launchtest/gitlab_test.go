package launchtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/ccc-checkpoint/ccc/internal/fake/gitlabfake"
)

// gitlabTemplate is ci/gitlab/ccc-post.yml's job: its variables and its
// script, as GitLab runs it (one sh script).
func gitlabTemplate(t *testing.T) (vars map[string]string, script string) {
	t.Helper()
	var tpl map[string]struct {
		Variables map[string]string `yaml:"variables"`
		Script    []string          `yaml:"script"`
	}
	data, err := os.ReadFile(filepath.Join(root, "ci", "gitlab", "ccc-post.yml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &tpl))
	job, ok := tpl[".ccc-post"]
	require.True(t, ok, "ci/gitlab/ccc-post.yml defines .ccc-post")
	return job.Variables, strings.Join(job.Script, "\n")
}

// The template installs the release it names (the plugin's version),
// checks it against checksums.txt, and posts to the merge request of a
// merge request pipeline; a tampered archive posts nothing.
func TestGitLabTemplatePostsFromCI(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the template installs the linux binary")
	}
	vars, script := gitlabTemplate(t)
	version := pluginVersion(t)
	assert.Equal(t, version, vars["CCC_VERSION"], "the template installs this release")
	assert.Equal(t, "https://github.com/ccc-checkpoint/ccc/releases/download/v$CCC_VERSION", vars["CCC_RELEASE_URL"])

	rel := getRelease(t)
	run := func(t *testing.T, files map[string][]byte) (*gitlabfake.Server, string, error) {
		srv := serve(t, files, 0)
		gl := gitlabfake.New()
		t.Cleanup(gl.Close)
		gl.AddMergeRequest("acme/app!7", "Ship it")
		work := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(work, "report.md"), []byte("## Nightly\n\nAll green.\n"), 0o644))
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = work
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TMPDIR=" + t.TempDir(),
			"CCC_VERSION=" + version, "CCC_RELEASE_URL=" + srv.URL, "CCC_CONFIG_DIR=" + t.TempDir(),
			"GITLAB_CI=true", "CI_SERVER_URL=" + gl.URL, "CI_PROJECT_PATH=acme/app", "CI_MERGE_REQUEST_IID=7",
			"GITLAB_TOKEN=" + gitlabfake.Token, "CCC_BODY_FILE=report.md", "CCC_SINKS=gitlab"}
		out, err := cmd.CombinedOutput()
		return gl, string(out), err
	}

	t.Run("release", func(t *testing.T) {
		gl, out, err := run(t, rel.files)
		require.NoError(t, err, out)
		assert.Contains(t, out, ": OK", "sha256sum checked the archive")
		assert.Contains(t, out, "GitLab update: created comment on acme/app!7")
		notes := gl.Notes("acme/app!7")
		require.Len(t, notes, 1)
		assert.True(t, strings.HasPrefix(notes[0].Body, "## Nightly"), notes[0].Body)
		assert.NotContains(t, out, gitlabfake.Token)
	})
	t.Run("tampered archive", func(t *testing.T) {
		files := map[string][]byte{}
		for k, v := range rel.files {
			files[k] = v
		}
		name := archiveName(version, "linux", runtime.GOARCH)
		files[name] = append(append([]byte(nil), files[name]...), 0)
		gl, out, err := run(t, files)
		require.Error(t, err, out)
		assert.Contains(t, out, "FAILED")
		assert.Empty(t, gl.Notes("acme/app!7"), "nothing ran")
	})
}
