package config

import (
	"fmt"
	"strings"
)

// The renderings of Variables: ccc help environment, the ENVIRONMENT
// section of ccc --help, and docs/configuration.md's table.

// EnvironmentHelp is the topic's text, generated from Variables.
func EnvironmentHelp() string {
	var b strings.Builder
	b.WriteString(`Every environment variable ccc reads. Flags win over the environment, and the
environment over the preferences (` + PrefsFile + `, and for what a
repository may not decide, your own ` + UserPrefsName + ` in the config
directory; see docs/configuration.md).
Credentials are never printed, logged, written to a file or sent to a tracker.
`)
	for _, v := range Variables {
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

// RootEnvironmentHelp is the ENVIRONMENT section of `ccc --help`: the
// variables marked Root, one per line (wrapped under its description).
func RootEnvironmentHelp() string {
	const width, indent = 79, 23
	var b strings.Builder
	b.WriteString("ENVIRONMENT (all of them: ccc help environment)\n")
	for _, v := range Variables {
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
	envTableBegin = "<!-- environment: generated from config.Variables by `go run -tags gendocs ./cmd/ccc gen-docs --markdown docs`; do not edit -->\n"
	envTableEnd   = "<!-- end of environment -->\n"
)

// envMarkdownTable is docs/configuration.md's table of variables.
func envMarkdownTable() string {
	var b strings.Builder
	b.WriteString("| environment | set by | default | meaning |\n| --- | --- | --- | --- |\n")
	for _, v := range Variables {
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

// WithEnvTable is doc with the table between its markers regenerated; ok
// is false when doc has no markers.
func WithEnvTable(doc []byte) (out []byte, ok bool) {
	s := string(doc)
	i := strings.Index(s, envTableBegin)
	j := strings.Index(s, envTableEnd)
	if i < 0 || j < i {
		return doc, false
	}
	return []byte(s[:i+len(envTableBegin)] + envMarkdownTable() + s[j:]), true
}
