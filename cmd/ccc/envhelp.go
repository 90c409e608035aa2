package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// NewCmdEnvironment is the help topic `ccc help environment`: every
// variable of config.Variables, the one table of what ccc reads.
func NewCmdEnvironment() *cobra.Command {
	return &cobra.Command{
		Use:   "environment",
		Short: "The environment variables ccc reads, and who sets them",
		Long:  environmentHelp() + exitStatusHelp("0  help printed"),
	}
}

// environmentHelp is the topic's text, generated from config.Variables.
func environmentHelp() string {
	var b strings.Builder
	b.WriteString(`Every environment variable ccc reads. Flags win over the environment, and the
environment over the preferences (` + config.PrefsFile + `, and for what a
repository may not decide, your own ` + config.UserPrefsName + ` in the config
directory; see docs/configuration.md).
Credentials are never printed, logged, written to a file or sent to a tracker.
`)
	for _, v := range config.Variables {
		fmt.Fprintf(&b, "\n  %s\n      %s\n      set by: %s", v.Name, v.Description, v.Who)
		if v.Default != "" {
			fmt.Fprintf(&b, "; default: %s", v.Default)
		}
		if v.Secret {
			b.WriteString("; a credential")
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// rootEnvironmentHelp is the ENVIRONMENT section of `ccc --help`: the
// variables marked Root, one per line (wrapped under its description).
func rootEnvironmentHelp() string {
	const width, indent = 79, 23
	var b strings.Builder
	b.WriteString("ENVIRONMENT (all of them: ccc help environment)\n")
	for _, v := range config.Variables {
		if !v.Root {
			continue
		}
		text := v.Description
		if v.Default != "" && !strings.HasPrefix(v.Default, "the ") {
			text += " (default " + v.Default + ")"
		}
		line := fmt.Sprintf("  %-20s", v.Name)
		for _, word := range strings.Fields(text) {
			if len(line)+1+len(word) > width && len(line) > indent {
				b.WriteString(line + "\n")
				line = strings.Repeat(" ", indent-1)
			}
			line += " " + word
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// Markers around the generated table in docs/configuration.md.
const (
	envTableBegin = "<!-- environment: generated from config.Variables by `go run ./cmd/ccc gen-docs --markdown docs`; do not edit -->\n"
	envTableEnd   = "<!-- end of environment -->\n"
)

// envMarkdownTable is docs/configuration.md's table of variables.
func envMarkdownTable() string {
	var b strings.Builder
	b.WriteString("| environment | set by | default | meaning |\n| --- | --- | --- | --- |\n")
	for _, v := range config.Variables {
		meaning := v.Description
		if v.Secret {
			meaning += "; a credential: never printed, logged or written"
		}
		def := v.Default
		if strings.HasPrefix(def, "http") || def == "true" {
			def = "`" + def + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", v.Name, v.Who, def, strings.NewReplacer("|", "\\|", "<", "&lt;", ">", "&gt;").Replace(meaning))
	}
	return b.String()
}

// spliceEnvTable replaces the generated table between the markers of the
// Markdown file at path; a file without them is left alone.
func spliceEnvTable(path string) error {
	data, err := projectfs.ReadProjectFile("", path, projectfs.MaxCopySize)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	out, ok := withEnvTable(data)
	if !ok || bytes.Equal(out, data) {
		return nil
	}
	return os.WriteFile(path, out, 0o644)
}

// withEnvTable is doc with the table between its markers regenerated; ok
// is false when doc has no markers.
func withEnvTable(doc []byte) (out []byte, ok bool) {
	s := string(doc)
	i := strings.Index(s, envTableBegin)
	j := strings.Index(s, envTableEnd)
	if i < 0 || j < i {
		return doc, false
	}
	return []byte(s[:i+len(envTableBegin)] + envMarkdownTable() + s[j:]), true
}
