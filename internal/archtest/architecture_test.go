package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const architecturePage = "../../ARCHITECTURE.md"

// fenced returns the lines of the page's first code block whose info
// string is lang.
func fenced(t *testing.T, page, lang string) []string {
	t.Helper()
	var out []string
	in, found := false, false
	for _, l := range strings.Split(page, "\n") {
		switch {
		case !in && !found && strings.TrimSpace(l) == "```"+lang:
			in, found = true, true
		case in && strings.HasPrefix(strings.TrimSpace(l), "```"):
			in = false
		case in && strings.TrimSpace(l) != "":
			out = append(out, strings.TrimSpace(l))
		}
	}
	if !found {
		t.Fatalf("ARCHITECTURE.md has no ```%s block", lang)
	}
	return out
}

// ruleNames reads the names of TestImportGraph's rules from arch_test.go, so
// the page is compared with the rules as written, not with a copy.
func ruleNames(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("arch_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^\s*name:\s*"([^"]+)",`).FindAllStringSubmatch(string(src), -1) {
		names = append(names, m[1])
	}
	if len(names) < 3 {
		t.Fatalf("found %d rule names in arch_test.go; the reader is broken", len(names))
	}
	return names
}

// TestArchitecturePage keeps ARCHITECTURE.md true: its package map names
// every package of the module and no other, every repository path it names
// in code exists, and the rules it states are exactly those TestImportGraph
// enforces.
func TestArchitecturePage(t *testing.T) {
	src, err := os.ReadFile(architecturePage)
	if err != nil {
		t.Fatal(err)
	}
	page := string(src)

	t.Run("the package map is go list", func(t *testing.T) {
		listed := map[string]bool{}
		for _, p := range listPackages(t) {
			listed[rel(p.ImportPath)] = true
		}
		mapped := map[string]bool{}
		for _, l := range fenced(t, page, "packages") {
			p := strings.Fields(l)[0]
			if mapped[p] {
				t.Errorf("the map names %s twice", p)
			}
			mapped[p] = true
			if !listed[p] {
				t.Errorf("the map names %s, which go list does not know", p)
			}
		}
		for p := range listed {
			if !mapped[p] {
				t.Errorf("package %s is missing from ARCHITECTURE.md's map", p)
			}
		}
	})

	t.Run("the rules are archtest's", func(t *testing.T) {
		got, want := fenced(t, page, "rules"), ruleNames(t)
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("ARCHITECTURE.md's rules:\n  %s\narch_test.go's rules:\n  %s",
				strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	})

	t.Run("every path it names exists", func(t *testing.T) {
		paths := repoPaths(t, page)
		if len(paths) < 20 {
			t.Fatalf("found only %d paths in the page; the extractor is broken", len(paths))
		}
		for _, p := range paths {
			if m, _ := filepath.Glob(filepath.Join("../..", p)); len(m) == 0 {
				t.Errorf("ARCHITECTURE.md names %s, which does not exist", p)
			}
		}
	})
}

var codeSpan = regexp.MustCompile("`([^`\n]+)`")

// repoPaths are the words of the page's code spans and package-map lines
// that name something in the repository: a path whose first element is a
// top-level entry of the checkout (cmd/ccc, sinks/*, plugin/hooks/hooks.json).
// Paths of a user's project (.ccc/outbox) do not start with one.
func repoPaths(t *testing.T, page string) []string {
	t.Helper()
	entries, err := os.ReadDir("../..")
	if err != nil {
		t.Fatal(err)
	}
	top := map[string]bool{}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			top[e.Name()] = true
		}
	}
	var words []string
	for _, m := range codeSpan.FindAllStringSubmatch(page, -1) {
		words = append(words, strings.Fields(m[1])...)
	}
	for _, l := range fenced(t, page, "packages") {
		words = append(words, strings.Fields(l)[0])
	}
	seen := map[string]bool{}
	var out []string
	for _, w := range words {
		w = strings.TrimRight(strings.Trim(w, "(),"), "/")
		first, _, nested := strings.Cut(w, "/")
		if !top[first] || (!nested && !strings.Contains(w, ".")) || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}
