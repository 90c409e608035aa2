package launchtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// semver is the version form the release and the plugin use.
var semver = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

// checkVersions says whether the plugin's version, the marketplace's entry
// and the release tag (empty: not a release) agree.
func checkVersions(plugin, marketplace, tag string) error {
	if !semver.MatchString(plugin) {
		return fmt.Errorf("plugin.json version %q is not x.y.z", plugin)
	}
	if marketplace != plugin {
		return fmt.Errorf("marketplace.json lists ccc %q, plugin.json says %q", marketplace, plugin)
	}
	if tag != "" && tag != "v"+plugin {
		return fmt.Errorf("release tag %s, but plugin.json says %s (the launcher would fetch v%s)", tag, plugin, plugin)
	}
	return nil
}

func TestCheckVersions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		plugin, market, tag string
		wantErr             string
	}{
		{"0.1.0", "0.1.0", "", ""},
		{"0.1.0", "0.1.0", "v0.1.0", ""},
		{"1.2.3-rc.1", "1.2.3-rc.1", "v1.2.3-rc.1", ""},
		{"0.1.0", "0.2.0", "", `marketplace.json lists ccc "0.2.0", plugin.json says "0.1.0"`},
		{"0.1.0", "", "", `marketplace.json lists ccc "", plugin.json says "0.1.0"`},
		{"0.1.0", "0.1.0", "v0.1.1", "release tag v0.1.1, but plugin.json says 0.1.0"},
		{"0.1.0", "0.1.0", "0.1.0", "release tag 0.1.0, but plugin.json says 0.1.0"},
		{"v0.1.0", "v0.1.0", "", `plugin.json version "v0.1.0" is not x.y.z`},
	}
	for _, tt := range tests {
		err := checkVersions(tt.plugin, tt.market, tt.tag)
		if tt.wantErr == "" {
			assert.NoError(t, err, "%+v", tt)
		} else if assert.Error(t, err, "%+v", tt) {
			assert.Contains(t, err.Error(), tt.wantErr)
		}
	}
}

// releaseTag is the tag being released: $CCC_RELEASE_TAG, else GitHub
// Actions' ref name on a tag push (release.yml runs this test), else none.
func releaseTag() string {
	if tag := os.Getenv("CCC_RELEASE_TAG"); tag != "" {
		return tag
	}
	if os.Getenv("GITHUB_REF_TYPE") == "tag" {
		return os.Getenv("GITHUB_REF_NAME")
	}
	return ""
}

// TestVersionsAgree: one version for the plugin manifest, the marketplace
// entry and the release tag.
func TestVersionsAgree(t *testing.T) {
	t.Parallel()
	var market struct {
		Plugins []struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"plugins"`
	}
	data, err := os.ReadFile(filepath.Join(root, ".claude-plugin", "marketplace.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &market))
	require.Len(t, market.Plugins, 1)
	assert.NoError(t, checkVersions(pluginVersion(t), market.Plugins[0].Version, releaseTag()))
}

// TestGoreleaserNamesWhatTheLauncherFetches: the archives, their format per
// OS, checksums.txt and the version stamp are what the launcher, the Action
// and these tests expect.
func TestGoreleaserNamesWhatTheLauncherFetches(t *testing.T) {
	t.Parallel()
	var cfg struct {
		Version int `yaml:"version"`
		Builds  []struct {
			Goos    []string `yaml:"goos"`
			Goarch  []string `yaml:"goarch"`
			Env     []string `yaml:"env"`
			Flags   []string `yaml:"flags"`
			Ldflags []string `yaml:"ldflags"`
			ModTime string   `yaml:"mod_timestamp"`
		} `yaml:"builds"`
		Archives []struct {
			NameTemplate    string   `yaml:"name_template"`
			Formats         []string `yaml:"formats"`
			FormatOverrides []struct {
				Goos    string   `yaml:"goos"`
				Formats []string `yaml:"formats"`
			} `yaml:"format_overrides"`
			WrapInDirectory any `yaml:"wrap_in_directory"`
		} `yaml:"archives"`
		Checksum struct {
			NameTemplate string `yaml:"name_template"`
			Algorithm    string `yaml:"algorithm"`
		} `yaml:"checksum"`
	}
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &cfg))
	assert.Equal(t, 2, cfg.Version)
	require.Len(t, cfg.Builds, 1)
	b := cfg.Builds[0]
	var got []string
	for _, goos := range b.Goos {
		for _, goarch := range b.Goarch {
			got = append(got, goos+"/"+goarch)
		}
	}
	var want []string
	for _, tg := range targets {
		want = append(want, tg.os+"/"+tg.arch)
	}
	assert.ElementsMatch(t, want, got)
	assert.Contains(t, b.Env, "CGO_ENABLED=0")
	assert.Contains(t, b.Flags, "-trimpath")
	assert.Equal(t, "{{ .CommitTimestamp }}", b.ModTime, "reproducible file times")
	ld := strings.Join(b.Ldflags, " ")
	for _, x := range []string{"-X main.version=v{{ .Version }}", "-X main.commit={{ .FullCommit }}", "-X main.date={{ .CommitDate }}", "-buildid="} {
		assert.Contains(t, ld, x)
	}

	require.Len(t, cfg.Archives, 1)
	a := cfg.Archives[0]
	assert.Equal(t, "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}", a.NameTemplate, "archiveName and the launcher build this name")
	assert.Equal(t, []string{"tar.gz"}, a.Formats)
	require.Len(t, a.FormatOverrides, 1)
	assert.Equal(t, "windows", a.FormatOverrides[0].Goos)
	assert.Equal(t, []string{"zip"}, a.FormatOverrides[0].Formats)
	assert.Nil(t, a.WrapInDirectory, "the launcher unpacks ccc from the archive's root")
	assert.Equal(t, "checksums.txt", cfg.Checksum.NameTemplate)
	assert.Equal(t, "sha256", cfg.Checksum.Algorithm)

	launcher, err := os.ReadFile(launcherPath(t))
	require.NoError(t, err)
	assert.Contains(t, string(launcher), "archive=ccc_${version}_${os}_$arch.$ext")
	assert.Contains(t, string(launcher), `"$base/checksums.txt"`)
}
