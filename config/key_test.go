package config

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUserKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "conf")
	getenv := Env{ConfigDir: dir}
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

	// A key someone made readable is made 0600 again and still used
	// (CheckPrivateFiles says so on stderr, once).
	require.NoError(t, os.Chmod(filepath.Join(dir, KeyName), 0o644))
	again, err = UserKey(getenv)
	require.NoError(t, err)
	assert.Equal(t, key, again)
	fi, err = os.Stat(filepath.Join(dir, KeyName))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	require.NoError(t, os.Remove(filepath.Join(dir, KeyName)))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, KeyName)))
	_, err = UserKey(getenv)
	assert.ErrorContains(t, err, "is a symlink, not a regular file")
}

// The private files of the config directory (the signing key, the token
// store): a symlink (even to a regular file), a FIFO or a device is
// refused at once, naming the path; a file others can read is made 0600
// and said once; a missing file is no problem.
func TestCheckPrivateFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "linear-oauth.json")

	notes, err := CheckPrivateFiles(dir, path)
	require.NoError(t, err)
	assert.Empty(t, notes)

	require.NoError(t, os.WriteFile(path, []byte("{}"), 0o644))
	require.NoError(t, os.Chmod(path, 0o644))
	notes, err = CheckPrivateFiles(dir, path)
	require.NoError(t, err)
	assert.Equal(t, []string{path + " was readable by others (mode 0644); made it 0600"}, notes)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	notes, err = CheckPrivateFiles(dir, path)
	require.NoError(t, err)
	assert.Empty(t, notes, "said once")

	for name, plant := range map[string]func() error{
		"symlink to a regular file": func() error { return os.Symlink(filepath.Join(dir, "elsewhere"), path) },
		"symlink to /dev/zero":      func() error { return os.Symlink("/dev/zero", path) },
		"fifo":                      func() error { return syscall.Mkfifo(path, 0o600) },
	} {
		require.NoError(t, os.Remove(path))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "elsewhere"), []byte("{}"), 0o600))
		require.NoError(t, plant(), name)
		_, err = CheckPrivateFiles(dir, path)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), path+" is a ", name)
		assert.Contains(t, err.Error(), "not a regular file", name)
	}
}
