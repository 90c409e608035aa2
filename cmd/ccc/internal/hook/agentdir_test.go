package hook

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
)

func TestAgentDir(t *testing.T) {
	t.Parallel()
	work, started := t.TempDir(), t.TempDir()
	file := filepath.Join(work, "notes.txt")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	claude := func(dir string) config.Env {
		var env config.Env
		env.Claude.ProjectDir = dir
		return env
	}
	for _, tc := range []struct {
		name, dir, cwd string
		env            config.Env
		want           string
	}{
		{name: "stdin's cwd", cwd: work, env: claude(started), want: work},
		{name: "unset cwd: CLAUDE_PROJECT_DIR", env: claude(started), want: started},
		{name: "relative cwd: CLAUDE_PROJECT_DIR", cwd: "sub", env: claude(started), want: started},
		{name: "missing cwd: CLAUDE_PROJECT_DIR", cwd: filepath.Join(work, "gone"), env: claude(started), want: started},
		{name: "cwd is a file: CLAUDE_PROJECT_DIR", cwd: file, env: claude(started), want: started},
		{name: "neither", env: claude("")},
		{name: "--dir wins", dir: started, cwd: work},
		{name: "CCC_PROJECT_ROOT wins", cwd: work, env: config.Env{ProjectRoot: started}},
	} {
		got, ok := AgentDir(tc.dir, tc.env, tc.cwd)
		assert.Equal(t, tc.want, got, tc.name)
		assert.Equal(t, tc.want != "", ok, tc.name)
	}
}
