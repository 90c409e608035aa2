// Package launchtest tests how ccc reaches its users' machines, end to end:
// the Claude Code plugin's launcher (plugin/bin/ccc) and the GitHub
// Action's install step (action.yml) and the GitLab CI job template
// (ci/gitlab/ccc-post.yml) against a local HTTP server that
// serves release archives and checksums.txt named as .goreleaser.yaml names
// them, and the one version that the plugin manifest, the marketplace and
// the release tag share. It has tests only.
package launchtest
