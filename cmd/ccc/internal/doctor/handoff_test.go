package doctor

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/testutil"
	"github.com/ccc-checkpoint/ccc/state/handoff"
)

func TestCheckHandoff(t *testing.T) {
	testutil.IsolateGit(t)
	testutil.Identity(t)
	root := testutil.Repo(t, nil)
	ctx := context.Background()
	env := func(remote string) *Env {
		return &Env{Root: root, Timeout: 10 * time.Second,
			Settings: config.Settings{Env: config.EnvOf(map[string]string{"CCC_HANDOFF_REMOTE": remote, "CCC_CONFIG_DIR": t.TempDir()})}}
	}
	assert.Empty(t, checkHandoff(ctx, env("")), "off: nothing to say")

	got := checkHandoff(ctx, env("origin"))
	require.Len(t, got, 1)
	assert.Equal(t, Fail, got[0].Status)
	assert.Contains(t, got[0].Message, `no git remote "origin"`)

	bare := filepath.Join(t.TempDir(), "remote.git")
	testutil.Git(t, root, "init", "-q", "--bare", bare)
	testutil.Git(t, root, "remote", "add", "origin", bare)
	got = checkHandoff(ctx, env("origin"))
	require.Len(t, got, 1)
	assert.Equal(t, OK, got[0].Status, got[0].Message)

	key := make([]byte, 32)
	_, _ = rand.Read(key)
	s, err := handoff.NewSigner(key)
	require.NoError(t, err)
	e := handoff.Entry{Meta: handoff.Meta{ID: "m-1/main/1", Machine: "m-1", Agent: "main", Time: time.Now()},
		Files: map[string][]byte{handoff.ProgressFile: []byte("# Progress\n")}}
	s.Seal(&e)
	common := strings.TrimSpace(testutil.Git(t, root, "rev-parse", "--absolute-git-dir"))
	r := handoff.Repo{Dir: root, CommonDir: common}
	require.NoError(t, handoff.Write(ctx, r, e))
	got = checkHandoff(ctx, env("origin"))
	require.Len(t, got, 2)
	assert.Equal(t, OK, got[1].Status)
	assert.Regexp(t, `^epoch 0: 1 commit\(s\) since \S+ \S+; retention keeps 1000 commit\(s\) and 90d `, got[1].Message)
	assert.Equal(t, Warn, got[0].Status)
	assert.Contains(t, got[0].Message, "not published yet")
	assert.Equal(t, "run ccc sync", got[0].Hint)

	_, err = handoff.Publish(ctx, r, "origin", time.Now(), handoff.Retention{})
	require.NoError(t, err)
	got = checkHandoff(ctx, env("origin"))
	require.Len(t, got, 2)
	assert.Equal(t, OK, got[0].Status)
	assert.Contains(t, got[0].Message, "the last push went through")
}
