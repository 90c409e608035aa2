package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

// TestShippedBinaryDeps: every hook's start-up runs the package init of
// everything the binary links, so the shipped ccc (built without tags)
// links no documentation generator (cobra/doc and its man-page renderer
// live behind -tags gendocs) and one YAML library, not two (issue 26).
func TestShippedBinaryDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", module+"/cmd/ccc").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 {
		t.Fatalf("go list found %d packages; the test is not looking at ccc", len(deps))
	}
	forbidden := []string{"github.com/spf13/cobra/doc", "github.com/russross/blackfriday", "github.com/cpuguy83/go-md2man"}
	var yaml []string
	for _, d := range deps {
		for _, f := range forbidden {
			if strings.HasPrefix(d, f) {
				t.Errorf("the shipped binary links %s (only a -tags gendocs build may)", d)
			}
		}
		if d == "gopkg.in/yaml.v3" || d == "go.yaml.in/yaml/v3" || d == "go.yaml.in/yaml/v4" || d == "gopkg.in/yaml.v2" || d == "go.yaml.in/yaml/v2" {
			yaml = append(yaml, d)
		}
	}
	if len(yaml) != 1 {
		t.Errorf("the shipped binary links %d YAML libraries, want 1: %v", len(yaml), yaml)
	}
}
