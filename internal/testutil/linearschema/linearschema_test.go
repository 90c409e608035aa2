package linearschema

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2"
)

func TestLoad(t *testing.T) {
	s, err := Load()
	require.NoError(t, err)
	require.NotNil(t, s.Types["AgentSession"], "the schema knows Linear's agent sessions")
	_, errs := gqlparser.LoadQueryWithRules(s, `query { viewer { id name } }`, nil)
	require.Empty(t, errs)
	_, errs = gqlparser.LoadQueryWithRules(s, `query { viewer { nosuchfield } }`, nil)
	require.NotEmpty(t, errs, "validation refuses an unknown field")
}

// TestVendoredCopyIsCurrent: where the project's shared/ folder sits beside
// the repository (as in CI), the vendored copy is the same file.
func TestVendoredCopyIsCurrent(t *testing.T) {
	shared, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "schemas", "linear.graphql"))
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("no shared/ beside this checkout; the vendored copy is used as it is")
	}
	require.NoError(t, err)
	require.True(t, string(shared) == source, "shared/schemas/linear.graphql changed: copy it to internal/testutil/linearschema/linear.graphql")
}
