package capture

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEachLine(t *testing.T) {
	in := "a\r\n\n" + strings.Repeat("b", 100) + "\nc"
	var got []string
	skipped, err := EachLine(strings.NewReader(in), 50, func(l []byte) { got = append(got, string(l)) })
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "c"}, got)
	assert.Equal(t, 1, skipped)
}
