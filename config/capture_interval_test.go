package config_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
)

func TestCaptureInterval(t *testing.T) {
	root := t.TempDir()
	s := config.Settings{Env: config.Env{ConfigDir: t.TempDir()}}
	p := s.Project(root).Prefs
	assert.Equal(t, config.DefaultCaptureInterval, time.Duration(p.Hooks.CaptureInterval))
	require.NoError(t, os.WriteFile(filepath.Join(root, config.PrefsFile), []byte("hooks:\n  capture_interval: 90s\n"), 0o644))
	got := s.Project(root)
	require.NoError(t, got.Problems.Hooks)
	p = got.Prefs
	assert.Equal(t, 90*time.Second, time.Duration(p.Hooks.CaptureInterval))
}
