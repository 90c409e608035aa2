package config

import (
	"testing"
	"time"

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

func TestHandoffRetention(t *testing.T) {
	t.Parallel()
	n := func(v int) *int { return &v }
	d := func(v time.Duration) *Duration { x := Duration(v); return &x }
	prefs := func(keep *int, keepFor *Duration) Prefs {
		var p Prefs
		p.Handoff.Keep, p.Handoff.KeepFor = keep, keepFor
		return p
	}
	for _, tc := range []struct {
		name       string
		repo, user Prefs
		keep       int
		keepFor    time.Duration
	}{
		{name: "the defaults", keep: 1000, keepFor: 90 * 24 * time.Hour},
		{name: "the repository's", repo: prefs(n(50), d(time.Hour)), keep: 50, keepFor: time.Hour},
		{name: "the user's own wins, key by key", repo: prefs(n(50), d(time.Hour)), user: prefs(n(7), nil), keep: 7, keepFor: time.Hour},
		{name: "0 turns a limit off", user: prefs(n(0), d(0)), keep: 0, keepFor: 0},
		{name: "a negative count is the default", repo: prefs(n(-3), nil), keep: 1000, keepFor: 90 * 24 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			keep, keepFor := HandoffRetention(tc.repo, tc.user)
			assert.Equal(t, tc.keep, keep)
			assert.Equal(t, tc.keepFor, keepFor)
		})
	}
}
