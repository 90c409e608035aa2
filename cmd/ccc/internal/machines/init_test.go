package machines

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/state/handoff"
)

// ccc init handoff adds this machine's key only when told to: a yes on a
// terminal, or --yes; never silently, never twice, never into a file it
// cannot read.
func TestInitAddsTheKeyOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	self, err := Identify(key)
	require.NoError(t, err)
	path := filepath.Join(root, handoff.SignersFile)
	run := func(answer string, ask, yes bool) (string, string) {
		var out, errOut bytes.Buffer
		require.NoError(t, Init(strings.NewReader(answer), ask, &out, &errOut, root, self, yes, true))
		return out.String(), errOut.String()
	}

	out, errOut := run("", false, false) // no terminal, no --yes
	assert.Equal(t, handoff.SignersLine(self.Signer, self.Machine)+"\n", out, "the line is printed for the user")
	assert.Contains(t, errOut, "Not added")
	assert.NoFileExists(t, path)

	_, errOut = run("n\n", true, false)
	assert.Contains(t, errOut, "Add this machine")
	assert.NoFileExists(t, path)

	_, errOut = run("y\n", true, false)
	assert.Contains(t, errOut, "Added "+self.Machine)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	keys, err := handoff.ParseSigners(data)
	require.NoError(t, err)
	assert.Equal(t, map[string]bool{self.Signer.Public(): true}, keys)

	_, errOut = run("", false, true)
	assert.Contains(t, errOut, "already lists")
	again, _ := os.ReadFile(path)
	assert.Equal(t, data, again)

	require.NoError(t, os.WriteFile(path, []byte("garbage here\n"), 0o644))
	var o, e bytes.Buffer
	err = Init(strings.NewReader(""), false, &o, &e, root, self, true, true)
	assert.ErrorContains(t, err, ".ccc-signers:1:")
	kept, _ := os.ReadFile(path)
	assert.Equal(t, "garbage here\n", string(kept), "a file ccc cannot read is never rewritten")
}
