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
	p, _ := config.Load(root)
	assert.Equal(t, config.DefaultCaptureInterval, time.Duration(p.Hooks.CaptureInterval))
	require.NoError(t, os.WriteFile(filepath.Join(root, config.PrefsFile), []byte("hooks:\n  capture_interval: 90s\n"), 0o644))
	p, problems := config.Load(root)
	require.NoError(t, problems.Hooks)
	assert.Equal(t, 90*time.Second, time.Duration(p.Hooks.CaptureInterval))
}
