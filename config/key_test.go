package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUserKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "conf")
	getenv := func(k string) string {
		if k == "CCC_CONFIG_DIR" {
			return dir
		}
		return ""
	}
	key, err := UserKey(getenv)
	require.NoError(t, err)
	assert.Len(t, key, 32)
	fi, err := os.Stat(filepath.Join(dir, KeyName))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	di, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), di.Mode().Perm())

	again, err := UserKey(getenv)
	require.NoError(t, err)
	assert.Equal(t, key, again, "made once, then read")

	require.NoError(t, os.Chmod(filepath.Join(dir, KeyName), 0o644))
	_, err = UserKey(getenv)
	assert.ErrorContains(t, err, "readable by others")
	assert.NotContains(t, err.Error(), string(key))

	require.NoError(t, os.Remove(filepath.Join(dir, KeyName)))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, KeyName)))
	_, err = UserKey(getenv)
	assert.ErrorContains(t, err, "not a regular file")
}
