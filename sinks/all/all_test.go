package all

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/sinks"
)

func TestRegistryBuildsEverySink(t *testing.T) {
	r := Registry()
	assert.Equal(t, []string{"linear", "linear-agent", "github", "jira", "gitlab", "file"}, r.Names())
	env := sinks.Env{Version: "test"}
	for _, name := range r.Names() {
		s, err := r.New(name, env)
		require.NoError(t, err)
		assert.Equal(t, name, s.Name())
		_, ok := s.(sinks.HealthChecker)
		assert.True(t, ok, "%s can be checked by ccc doctor", name)
	}
}

// An app token makes the agent session the default instead of the comment;
// a personal key alone keeps the comment, as before.
func TestAppTokenChoosesTheAgentSink(t *testing.T) {
	r := Registry()
	for _, tt := range []struct {
		env  map[string]string
		want []string
	}{
		{map[string]string{"LINEAR_API_KEY": "lin_api_x"}, []string{"linear"}},
		{map[string]string{"LINEAR_OAUTH_TOKEN": "lin_oauth_x"}, []string{"linear-agent"}},
		{map[string]string{"LINEAR_API_KEY": "lin_api_x", "LINEAR_OAUTH_TOKEN": "lin_oauth_x"}, []string{"linear-agent"}},
		{map[string]string{}, []string{"linear"}},
	} {
		env := sinks.Env{Settings: config.Settings{Env: config.EnvOf(tt.env)}}
		names, _ := r.Choose(sinks.Choice{Env: sinks.ResolveEnv{Env: env}})
		assert.Equal(t, tt.want, names, "%v", tt.env)
	}
}

// The hooks reach the sink people answer through by its capability: the
// agent session with an app token, and none with a personal key alone.
func TestConversationIsTheAgentSessionWithAnAppToken(t *testing.T) {
	r := Registry()
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"LINEAR_API_KEY": "lin_api_x"}, ""},
		{map[string]string{"LINEAR_OAUTH_TOKEN": "lin_oauth_x"}, "linear-agent"},
		{map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_TOKEN": "t"}, ""},
	} {
		tt.env["CCC_CONFIG_DIR"] = t.TempDir() // no stored sign-in
		c, ok := r.Conversation(sinks.Env{Settings: config.Settings{Env: config.EnvOf(tt.env)}, Root: t.TempDir()})
		if tt.want == "" {
			assert.False(t, ok, "%v", tt.env)
			continue
		}
		require.True(t, ok, "%v", tt.env)
		assert.Equal(t, tt.want, c.Name())
	}
}

// A sink checks the target the command line names for it; one that takes
// none accepts anything.
func TestCheckFlag(t *testing.T) {
	r := Registry()
	assert.NoError(t, r.CheckFlag("github", "owner/repo#12"))
	assert.Error(t, r.CheckFlag("github", "owner/repo"))
	assert.NoError(t, r.CheckFlag("linear", "anything"))
}
