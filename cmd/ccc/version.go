package main

import (
	"runtime/debug"
	"strings"
	"time"
)

// version is a release build's version, set with
// -ldflags "-X main.version=v1.2.3". Empty: the Go build info says.
var version string

// buildInfo is the binary's build info, nil when it has none.
func buildInfo() *debug.BuildInfo {
	bi, _ := debug.ReadBuildInfo()
	return bi
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
