package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// notReadByCCC are variables the docs may name although ccc itself does not
// read them (so they are not in config.Variables), each with who does. Every
// entry must still be named by some source file of the repository, so a
// variable that is gone everywhere cannot stay documented.
var notReadByCCC = map[string]string{
	"CCC_BIN":                       "the plugin's launcher (plugin/bin/ccc)",
	"CCC_CACHE_DIR":                 "the plugin's launcher",
	"CCC_DOWNLOAD_URL":              "the plugin's launcher",
	"CCC_DOWNLOAD_TIMEOUT":          "the plugin's launcher",
	"CCC_LAUNCHER_PRINT":            "the plugin's launcher, for the Action",
	"CCC_LAUNCHER_NO_GO":            "the plugin's launcher",
	"CCC_OS":                        "the plugin's launcher, for the Action",
	"CCC_ARCH":                      "the plugin's launcher, for the Action",
	"CCC_STOP_HANDLER":              "bench/hook-stop.sh, to time CCC's own handler",
	"CLAUDE_PLUGIN_ROOT":            "Claude Code, in the plugin's hook and command lines",
	"CLAUDE_CODE_ENABLE_TODO_TOOLS": "Claude Code; ccc init claude --enable-todo-tools writes it",
}

// namesPages are the hand-written pages whose variables and Go names must be
// real: the contributor pages and every guide (not the generated reference).
func namesPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"../../ARCHITECTURE.md", "../../DESIGN.md", "../../CONTRIBUTING.md",
		"../../README.md", "../../SECURITY.md", "../../RELIABILITY.md", "../../BENCHMARKS.md"}
	err := filepath.WalkDir("../../docs", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		base := filepath.Base(p)
		if !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.HasPrefix(base, "ccc_") && base != "ccc.md" {
			pages = append(pages, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// codeSpans returns the text of every inline code span of a Markdown page.
func codeSpans(t *testing.T, page string) []string {
	t.Helper()
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	root := goldmark.DefaultParser().Parse(text.NewReader(src))
	err = gast.Walk(root, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if span, ok := n.(*gast.CodeSpan); ok && entering {
			var b strings.Builder
			for c := span.FirstChild(); c != nil; c = c.NextSibling() {
				if tx, ok := c.(*gast.Text); ok {
					b.Write(tx.Segment.Value(src))
				}
			}
			out = append(out, b.String())
			return gast.WalkSkipChildren, nil
		}
		return gast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var docVariable = regexp.MustCompile(`\b(?:CCC|LINEAR|GITHUB|GH|CLAUDE)_[A-Z0-9_]*[A-Z0-9]\b`)

// TestDocsVariablesExist: every environment variable a page names in code
// is one ccc reads (config.Variables, the table behind `ccc help
// environment`) or one notReadByCCC explains.
func TestDocsVariablesExist(t *testing.T) {
	known := map[string]bool{}
	for _, v := range config.Variables {
		known[v.Name] = true
	}
	for name, who := range notReadByCCC {
		if known[name] {
			t.Errorf("%s is in config.Variables and in notReadByCCC (%s): drop it from the list", name, who)
		}
	}
	found := 0
	for _, p := range namesPages(t) {
		for _, span := range codeSpans(t, p) {
			for _, name := range docVariable.FindAllString(span, -1) {
				found++
				if !known[name] && notReadByCCC[name] == "" {
					t.Errorf("%s names %s, which ccc does not read (config.Variables) and notReadByCCC does not explain", strings.TrimPrefix(p, "../../"), name)
				}
			}
		}
	}
	if found < 30 {
		t.Fatalf("found only %d variables in the docs; the extractor is broken", found)
	}
	sources := repoSources(t)
	for name := range notReadByCCC {
		if !strings.Contains(sources, name) {
			t.Errorf("notReadByCCC lists %s, which no source file of the repository names", name)
		}
	}
}

// repoSources is the text of the repository's non-Markdown, non-test files
// under the directories that can hold a variable's reader.
func repoSources(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, dir := range []string{"../../cmd", "../../plugin", "../../bench", "../../internal", "../../config"} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(p, ".md") || strings.HasSuffix(p, "_test.go") || strings.Contains(p, "testdata") {
				return err
			}
			data, err := os.ReadFile(p)
			b.Write(data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

var docGoName = regexp.MustCompile(`(?:^|[^\w/.])([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9_]*)`)

// TestDocsGoNamesExist: every `pkg.Name` a page names in code, where pkg is a
// package of this module, is an exported identifier of that package (read
// with go/parser from its directory, tests excluded). Names of other
// packages (os.Getenv, errors.As) are not checked.
func TestDocsGoNamesExist(t *testing.T) {
	exported := moduleExports(t)
	found := 0
	for _, p := range namesPages(t) {
		for _, span := range codeSpans(t, p) {
			for _, m := range docGoName.FindAllStringSubmatch(span, -1) {
				names, ours := exported[m[1]]
				if !ours {
					continue
				}
				found++
				if !names[m[2]] {
					t.Errorf("%s names %s.%s, which package %s does not export", strings.TrimPrefix(p, "../../"), m[1], m[2], m[1])
				}
			}
		}
	}
	if found < 10 {
		t.Fatalf("found only %d Go names in the docs; the extractor is broken", found)
	}
}

// moduleExports maps each package name of the module to the exported
// top-level names of every package so named (two packages may share a name:
// sinks/all and agent/all).
func moduleExports(t *testing.T) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if base := d.Name(); p != "../.." && (strings.HasPrefix(base, ".") || base == "testdata") {
			return filepath.SkipDir
		}
		files, err := filepath.Glob(filepath.Join(p, "*.go"))
		if err != nil {
			return err
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			name := f.Name.Name
			if name == "main" {
				continue
			}
			if out[name] == nil {
				out[name] = map[string]bool{}
			}
			for _, decl := range f.Decls {
				for _, n := range declNames(decl) {
					if ast.IsExported(n) {
						out[name][n] = true
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 20 {
		t.Fatalf("found only %d packages; the walk is not looking at the module", len(out))
	}
	return out
}

// declNames are the top-level names a declaration introduces: a function
// (not a method), or the types, variables and constants of a group.
func declNames(decl ast.Decl) []string {
	var names []string
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			names = append(names, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names = append(names, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					names = append(names, n.Name)
				}
			}
		}
	}
	return names
}
