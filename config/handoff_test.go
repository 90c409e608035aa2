package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHandoffRemote(t *testing.T) {
	t.Parallel()
	prefs := func(remote string) Prefs {
		var p Prefs
		p.Handoff.Remote = remote
		return p
	}
	for _, tc := range []struct {
		name            string
		repo, user, env string
		want            string
	}{
		{name: "off by default"},
		{name: "the repository asks", repo: "origin", want: "origin"},
		{name: "the user's own wins", repo: "origin", user: "backup", want: "backup"},
		{name: "the environment wins", repo: "origin", user: "backup", env: "mirror", want: "mirror"},
		{name: "the environment turns it off", repo: "origin", env: "off"},
		{name: "the user turns it off", repo: "origin", user: "false"},
		{name: "an option is no remote", repo: "--upload-pack=x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := HandoffRemote(prefs(tc.repo), prefs(tc.user), EnvOf(map[string]string{"CCC_HANDOFF_REMOTE": tc.env}))
			assert.Equal(t, tc.want, got)
		})
	}
}
