package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/internal/redact"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
)

// echoSink fails every delivery with an error that echoes its credential, base64-encoded, as a
// careless server does.
type echoSink struct{ key string }

func (echoSink) Name() string  { return "echo" }
func (echoSink) Title() string { return "Echo" }
func (s echoSink) Upsert(context.Context, sinks.Delivery) (sinks.Result, error) {
	echo := base64.StdEncoding.EncodeToString([]byte(`{"token":"` + s.key + `"}`))
	return sinks.Result{Requests: 1}, &sinks.Error{Cause: "HTTP 401: " + echo + " for ghp_" + strings.Repeat("Zq9", 12)}
}

// The annotations and the step summary, public on a public repository, never carry what a
// failing sink echoed.
func TestAnnotationsAndSummaryAreRedacted(t *testing.T) {
	t.Parallel()
	key := "lin" + "_api_" + strings.Repeat("Rt5", 13) + "W"
	red, err := redact.New([]string{key}, nil)
	require.NoError(t, err)
	root := t.TempDir()
	cp := &checkpoint.Context{Root: root, Now: time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC), Profile: checkpoint.Automated,
		Agent: "main", Edits: progress.Edits{Issue: "CIA-9", Current: "a"}, Issue: "CIA-9",
		Trackers: []checkpoint.Tracker{{Sink: echoSink{key: key}}}, Redactor: red}
	r := checkpoint.Run(context.Background(), cp, cp.Profile.Steps(cp))

	var ann bytes.Buffer
	annotate(&ann, r)
	assert.Contains(t, ann.String(), "::error title=ccc%3A Echo failed::HTTP 401: ")
	summary := filepath.Join(root, "summary.md")
	require.NoError(t, appendSummary(summary, "ccc checkpoint", r))
	data, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Contains(t, string(data), "[REDACTED:github-token]")

	b64 := base64.StdEncoding.EncodeToString([]byte(key))
	for name, out := range map[string]string{"annotations": ann.String(), "summary": string(data)} {
		assert.Contains(t, out, "[REDACTED:secret]", name)
		assert.NotContains(t, out, "ghp_", name)
		assert.NotContains(t, out, key, name)
		assert.NotContains(t, out, b64[8:32], name)
	}
}
