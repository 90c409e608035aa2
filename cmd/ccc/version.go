package main

import (
	"runtime/debug"
	"slices"
	"strings"
	"time"
)

// version is a release build's version, set with
// -ldflags "-X main.version=v1.2.3". Empty: the Go build info says.
var version string

// commit and date are a release build's commit and commit time (RFC 3339),
// set with -ldflags "-X main.commit=… -X main.date=…" (.goreleaser.yaml).
// They stand in for the build info's VCS settings when it has none (a
// build from a source archive, or with -buildvcs=false).
var commit, date string

// buildInfo is the binary's build info, nil when it has none, with commit
// and date added where it has no VCS settings of its own.
func buildInfo() *debug.BuildInfo {
	bi, _ := debug.ReadBuildInfo()
	return stamped(bi, commit, date)
}

// stamped returns bi with vcs.revision and vcs.time set from commit and
// date unless bi has them already. bi is not changed; nil stays nil unless
// there is something to add.
func stamped(bi *debug.BuildInfo, commit, date string) *debug.BuildInfo {
	add := map[string]string{"vcs.revision": commit, "vcs.time": date}
	var out debug.BuildInfo
	if bi != nil {
		out = *bi
		out.Settings = slices.Clone(bi.Settings)
		for _, s := range bi.Settings {
			if s.Value != "" {
				delete(add, s.Key)
			}
		}
	}
	changed := false
	for _, key := range []string{"vcs.revision", "vcs.time"} {
		if add[key] != "" {
			out.Settings = append(out.Settings, debug.BuildSetting{Key: key, Value: add[key]})
			changed = true
		}
	}
	if !changed {
		return bi
	}
	return &out
}

// versionString is what `ccc --version` prints after "ccc ": the version
// (version when set, else the module version `go install …@v1.2.3` stamps,
// "(devel)" when there is none) and what the build info knows of the
// commit: "v1.2.3 (commit abc1234, 2026-11-25)", "(devel) (commit abc1234,
// modified)". bi may be nil.
func versionString(version string, bi *debug.BuildInfo) string {
	if bi == nil {
		bi = &debug.BuildInfo{}
	}
	v := version
	if v == "" {
		v = bi.Main.Version
	}
	if v == "" {
		v = "(devel)"
	}
	var vcs []string
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		vcs = append(vcs, "commit "+rev[:min(len(rev), 7)])
	}
	if t, err := time.Parse(time.RFC3339, settings["vcs.time"]); err == nil {
		vcs = append(vcs, t.UTC().Format(time.DateOnly))
	}
	if settings["vcs.modified"] == "true" {
		vcs = append(vcs, "modified")
	}
	if len(vcs) == 0 {
		return v
	}
	return v + " (" + strings.Join(vcs, ", ") + ")"
}
