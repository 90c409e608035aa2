package install

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUnifiedDiff(t *testing.T) {
	assert.Empty(t, unifiedDiff("f", []byte("a\n"), []byte("a\n")))
	assert.Equal(t, "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n", unifiedDiff("f", []byte("a\nb\nd\n"), []byte("a\nc\nd\n")))
	assert.Equal(t, "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+x\n", unifiedDiff("f", nil, []byte("x\n")))
}
