package all

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/sinks"
)

func TestRegistryBuildsEverySink(t *testing.T) {
	r := Registry()
	assert.Equal(t, []string{"linear", "github", "file"}, r.Names())
	env := sinks.Env{Getenv: func(string) string { return "" }, Version: "test"}
	for _, name := range r.Names() {
		s, err := r.New(name, env)
		require.NoError(t, err)
		assert.Equal(t, name, s.Name())
		_, ok := s.(sinks.HealthChecker)
		assert.True(t, ok, "%s can be checked by ccc doctor", name)
	}
}
