package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestVersionString(t *testing.T) {
	t.Parallel()
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	const rev = "abc1234def5678abc1234def5678abc1234def56"
	tests := []struct {
		name    string
		ldflags string
		bi      *debug.BuildInfo
		want    string
	}{
		{"go install @version: module version, no VCS", "",
			&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"release build from a tag", "",
			&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"},
				Settings: vcs("vcs", "git", "vcs.revision", rev, "vcs.time", "2026-11-25T13:45:00Z", "vcs.modified", "false")},
			"v1.2.3 (commit abc1234, 2026-11-25)"},
		{"local build with changes", "",
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
				Settings: vcs("vcs.revision", rev, "vcs.modified", "true")},
			"(devel) (commit abc1234, modified)"},
		{"commit time in another zone is given in UTC", "",
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
				Settings: vcs("vcs.revision", rev, "vcs.time", "2026-11-25T23:30:00-02:00")},
			"(devel) (commit abc1234, 2026-11-26)"},
		{"-ldflags version wins over the module version", "v2.0.0",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261125134500-abc1234def56"},
				Settings: vcs("vcs.revision", rev, "vcs.time", "2026-11-25T13:45:00Z")},
			"v2.0.0 (commit abc1234, 2026-11-25)"},
		{"-ldflags version without build info", "v2.0.0", nil, "v2.0.0"},
		{"no build info at all", "", nil, "(devel)"},
		{"empty module version", "", &debug.BuildInfo{}, "(devel)"},
		{"short revision kept whole, bad time left out", "",
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "abc", "vcs.time", "yesterday")},
			"(devel) (commit abc)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, versionString(tt.ldflags, tt.bi))
		})
	}
}

func TestVersionFlagPrintsTheVersionLine(t *testing.T) {
	t.Parallel()
	f, out, _ := helpFactory()
	assert.Equal(t, 0, run([]string{"--version"}, f))
	assert.Equal(t, "ccc "+versionString(version, buildInfo())+"\n", out.String())
	assert.NotContains(t, out.String(), "dev\n")
}

// TestStampedFillsInWhatTheBuildInfoLacks: goreleaser's -X main.commit and
// main.date show in --version when the build info has no VCS settings, and
// never override the ones it has.
func TestStampedFillsInWhatTheBuildInfoLacks(t *testing.T) {
	t.Parallel()
	const rev = "abc1234def5678abc1234def5678abc1234def56"
	tests := []struct {
		name         string
		bi           *debug.BuildInfo
		commit, date string
		want         string
	}{
		{"release build without VCS info", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}},
			rev, "2026-11-25T13:45:00Z", "v1.2.3 (commit abc1234, 2026-11-25)"},
		{"no build info at all", nil, rev, "2026-11-25T13:45:00Z", "(devel) (commit abc1234, 2026-11-25)"},
		{"the build info's own VCS settings win",
			&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "fedcba9876543210"}, {Key: "vcs.time", Value: "2026-11-20T10:00:00Z"}}},
			rev, "2026-11-25T13:45:00Z", "v1.2.3 (commit fedcba9, 2026-11-20)"},
		{"go install build: nothing stamped", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}},
			"", "", "v1.2.3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var before []debug.BuildSetting
			if tt.bi != nil {
				before = append(before, tt.bi.Settings...)
			}
			assert.Equal(t, tt.want, versionString("", stamped(tt.bi, tt.commit, tt.date)))
			if tt.bi != nil {
				assert.Equal(t, before, tt.bi.Settings, "the build info is not changed")
			}
		})
	}
}
