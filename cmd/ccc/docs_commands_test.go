package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// docPages are the hand-written pages whose ccc command lines a user copies.
// The generated reference (docs/ccc_*.md) comes from the command tree
// itself and is checked by gendocs_test.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"../../README.md", "../../CONTRIBUTING.md"}
	for _, glob := range []string{"../../docs/*.md", "../../plugin/commands/*.md"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m {
			if !strings.HasPrefix(filepath.Base(p), "ccc_") && filepath.Base(p) != "ccc.md" {
				pages = append(pages, p)
			}
		}
	}
	return pages
}

// docCommand is one ccc command line shown in a page.
type docCommand struct {
	where string // page:line
	line  string
}

// TestDocsCommandsExist runs every `ccc …` line that README.md, CONTRIBUTING.md,
// docs/*.md and the plugin's slash commands show (in code blocks and inline
// code) through the real command tree: each command and subcommand must
// exist and each flag must be one that command takes.
func TestDocsCommandsExist(t *testing.T) {
	var all []docCommand
	for _, p := range docPages(t) {
		all = append(all, docCommands(t, p)...)
	}
	if len(all) < 50 {
		t.Fatalf("found only %d ccc command lines in the docs; the extractor is broken", len(all))
	}
	for _, c := range all {
		if err := checkDocCommand(c.line); err != nil {
			t.Errorf("%s: %q: %v", c.where, c.line, err)
		}
	}
}

// TestCheckDocCommand pins what the checker refuses and lets pass, so the
// docs test cannot pass by accepting anything.
func TestCheckDocCommand(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"ccc checkpoint --done \"write parser\" --next \"run go test ./parser/\"", true},
		{"ccc init claude --dry-run", true},
		{"ccc status --json | jq -r '.agents[]'", true},
		{"ccc hook stop|pre-compact", true},
		{"ccc <command> --help", true},
		{"ccc show ID", true},
		{"ccc --version", true},
		{"ccc linear login --client-id 1a2b3c...", true},
		{"ccc nosuch", false},
		{"ccc init nosuch", false},
		{"ccc hook stop|nosuch", false},
		{"ccc checkpoint --nosuch", false},
		{"ccc checkpoint -Z", false},
		{"ccc status --dry-run", false},
	} {
		err := checkDocCommand(tc.line)
		if (err == nil) != tc.ok {
			t.Errorf("checkDocCommand(%q) = %v, want ok=%v", tc.line, err, tc.ok)
		}
	}
}

// docCommands lists the ccc command lines of one Markdown page: lines of
// shell code blocks whose first word is ccc (a trailing backslash joins the
// next line), and inline code spans that start with "ccc ".
func docCommands(t *testing.T, page string) []docCommand {
	t.Helper()
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(page, "../../")
	lineOf := func(off int) int { return bytes.Count(src[:off], []byte("\n")) + 1 }
	var out []docCommand
	root := goldmark.DefaultParser().Parse(text.NewReader(src))
	err = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			if lang := string(n.Language(src)); lang != "" && lang != "bash" && lang != "sh" && lang != "shell" && lang != "console" {
				return ast.WalkSkipChildren, nil
			}
			segs := n.Lines()
			pending, start := "", 0
			for i := range segs.Len() {
				seg := segs.At(i)
				l := strings.TrimSpace(string(seg.Value(src)))
				if pending == "" {
					l = strings.TrimPrefix(l, "$ ")
					start = seg.Start
				}
				if cont, ok := strings.CutSuffix(l, `\`); ok {
					pending += cont + " "
					continue
				}
				l, pending = pending+l, ""
				if strings.HasPrefix(l, "ccc ") || l == "ccc" {
					out = append(out, docCommand{fmt.Sprintf("%s:%d", name, lineOf(start)), l})
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			var b strings.Builder
			var first int = -1
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if tx, ok := c.(*ast.Text); ok {
					if first < 0 {
						first = tx.Segment.Start
					}
					b.Write(tx.Segment.Value(src))
				}
			}
			if l := b.String(); strings.HasPrefix(l, "ccc ") && first >= 0 {
				out = append(out, docCommand{fmt.Sprintf("%s:%d", name, lineOf(first)), l})
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkDocCommand walks one command line through the real command tree.
func checkDocCommand(line string) error {
	words := shellWords(line)
	if len(words) == 0 || words[0] != "ccc" {
		return fmt.Errorf("not a ccc command")
	}
	// "ccc v1.2.3 (commit …)" is what --version prints, not a command.
	if len(words) > 1 && len(words[1]) > 1 && words[1][0] == 'v' && unicode.IsDigit(rune(words[1][1])) {
		return nil
	}
	f := &Factory{IO: IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" }}
	root := NewCmdRoot(f)
	root.InitDefaultCompletionCmd()
	return walkDocCommand(root, words[1:])
}

func walkDocCommand(cmd *cobra.Command, words []string) error {
	positional := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--":
			return nil
		case strings.HasPrefix(w, "-") && len(w) > 1:
			f, hasValue, err := docFlag(cmd, w)
			if err != nil {
				return err
			}
			if !hasValue && f.Value.Type() != "bool" && f.NoOptDefVal == "" {
				i++ // the flag's value
			}
		case isPlaceholder(w):
			positional = true
		case !positional && cmd.HasAvailableSubCommands() || !positional && cmd == cmd.Root():
			alts := strings.Split(w, "|")
			if len(alts) > 1 {
				// Alternatives (stop|pre-compact): each exists and
				// takes the rest of the line.
				for _, alt := range alts {
					if err := walkDocCommand(cmd, append([]string{alt}, words[i+1:]...)); err != nil {
						return err
					}
				}
				return nil
			}
			sub, err := docSubcommand(cmd, w)
			if err != nil {
				return err
			}
			cmd = sub
		default:
			positional = true
		}
	}
	return nil
}

func docSubcommand(cmd *cobra.Command, name string) (*cobra.Command, error) {
	if name == "help" {
		return cmd, nil
	}
	for _, c := range cmd.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return c, nil
		}
	}
	return nil, fmt.Errorf("%q has no subcommand %q", cmd.CommandPath(), name)
}

// docFlag finds a flag as cobra would: the command's own, its parents'
// persistent ones, and the --help/--version cobra adds.
func docFlag(cmd *cobra.Command, w string) (*pflag.Flag, bool, error) {
	name, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
	cmd.InitDefaultHelpFlag()
	cmd.InitDefaultVersionFlag()
	lookup := func(fs *pflag.FlagSet) *pflag.Flag {
		if strings.HasPrefix(w, "--") {
			return fs.Lookup(name)
		}
		return fs.ShorthandLookup(name[:1])
	}
	for c := cmd; c != nil; c = c.Parent() {
		fs := c.PersistentFlags()
		if c == cmd {
			fs = c.Flags()
		}
		if f := lookup(fs); f != nil {
			return f, hasValue || (!strings.HasPrefix(w, "--") && len(name) > 1), nil
		}
	}
	return nil, false, fmt.Errorf("%q has no flag %s", cmd.CommandPath(), w)
}

// isPlaceholder says whether a word stands for something the reader fills
// in: <event>, [flags], FILE..., ID, …
func isPlaceholder(w string) bool {
	if strings.ContainsAny(w[:1], "<[{$") || strings.Contains(w, "…") || strings.HasSuffix(w, "...") {
		return true
	}
	return strings.ToUpper(w) == w && strings.ToLower(w) != w
}

// shellWords splits a command line as a shell would, enough for docs: quotes
// group words, and the command ends at a pipe, a list operator, a
// redirection or a comment.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	quote := rune(0)
	flush := func() {
		if inWord {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			flush()
		case (r == '#' && !inWord) || r == ';' || r == '&' || r == '>':
			flush()
			return words
		case r == '|' && !inWord:
			flush()
			return words
		case r == '|':
			// "stop|pre-compact" names alternatives; "a | b" is a pipe.
			cur.WriteRune(r)
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	flush()
	if n := len(words); n > 0 && strings.HasSuffix(words[n-1], "|") {
		words[n-1] = strings.TrimSuffix(words[n-1], "|")
	}
	return words
}
