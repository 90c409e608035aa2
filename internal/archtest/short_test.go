package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestShortSkipsRunInCI: .ci/run runs the suite with -short and then, in a
// step of their own, the tests that -short skips. A test that starts
// skipping under -short without joining that step would never run in CI.
func TestShortSkipsRunInCI(t *testing.T) {
	run, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`go test -race -count=1 -run '([^']+)' \./cmd/ccc/`).FindSubmatch(run)
	if m == nil {
		t.Fatal(".ci/run has no step for the tests -short skips")
	}
	long := regexp.MustCompile(string(m[1]))
	decl := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\) \{\n(?:.*\n){0,3}?\s*if testing\.Short\(\)`)
	found := 0
	err = filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllSubmatch(src, -1) {
			found++
			if !strings.HasSuffix(filepath.Dir(path), filepath.Join("cmd", "ccc")) || !long.Match(m[1]) {
				t.Errorf("%s: %s skips under -short but .ci/run's long step (%s ./cmd/ccc/) does not run it", path, m[1], long)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 5 {
		t.Fatalf("found %d tests that skip under -short; the pattern is stale", found)
	}
}
