package redact

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cutPoints are the lengths ccc cuts text to before it leaves a run: the
// linear agent's plan position (120) and summary lines (200), the prompt's
// texts (1000) and quoted warnings (80), a subagent's last message (500),
// ccc status' cells (40), the SessionStart context's task and last line
// (200, 300), a sink error (120), a stop failure (200), git's and a hook's
// output (300, 400, 8000), a state value or a conflict line in an error (41).
var cutPoints = []int{40, 41, 80, 120, 200, 300, 400, 500, 1000, 8000}

// A credential straddling a cut point is redacted before the cut: no part
// of it stays, whether it is a held secret (plain or base64, as in a Basic
// header) or a token recognised by its shape (ghp_).
func TestClipRedactsBeforeTheCut(t *testing.T) {
	t.Parallel()
	const held = "lin_api_Zq8Xv2Lm4Np6Rt0Yw3Bc5Df7Gh9Jk1Ms"
	ghp := "ghp_" + strings.Repeat("a1B2c3D4e5", 3) + "F6g7H8"
	r, err := New([]string{held}, nil)
	require.NoError(t, err)
	secrets := map[string]string{
		"held":        held,
		"held base64": base64.StdEncoding.EncodeToString([]byte(held)),
		"ghp":         ghp,
	}
	for name, secret := range secrets {
		for _, n := range cutPoints {
			for _, before := range []int{n - 1 - len(secret)/2, n - 4, n - len(secret) + 3} {
				if before < 0 {
					continue
				}
				text := strings.Repeat("w", before) + " " + secret + " and more words after it"
				got := r.Clip(text, n)
				assert.LessOrEqual(t, len([]rune(got)), n, "%s at %d", name, n)
				for i := 0; i+8 <= len(secret); i++ {
					if !assert.NotContains(t, got, secret[i:i+8], "%s straddling %d (after %d bytes)", name, n, before) {
						break
					}
				}
			}
		}
	}
	assert.Equal(t, "short", r.Clip("short", 10))
	assert.Equal(t, "abcd…", r.Clip("abcdefgh", 5))
	assert.Equal(t, "abcdefgh", ClipOnly("abcdefgh", 8))
	assert.Equal(t, "ghp_shortbutnotcut", ClipOnly("ghp_shortbutnotcut", 100), "ClipOnly leaves uncut text as it is")
}
