package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Init allocation budgets of `ccc --version`, as GODEBUG=inittrace=1
// reports them (allocation counts, which do not depend on the machine's
// load; times do). Issue 26 measured 4,355 in all (1,171 in ccc's own
// packages) before gen-docs left the binary and the tables became lazy;
// 2,519 (about 500 ccc's) after, and 2,124 (104 ccc's) once progress'
// prompt regexps went lazy too. What is left is goldmark's parser and util
// (~1,370) and yaml (~280), third-party code. Lower the budgets as init
// work goes, never raise them without saying why.
const (
	initAllocBudget = 2300
	initOwnBudget   = 130
)

var initLine = regexp.MustCompile(`^init (\S+) @.* (\d+) bytes, (\d+) allocs$`)

// TestInitAllocations: every ccc process, a hook that decides nothing
// included, runs the package init of everything the binary links, so the
// allocations it makes are counted against a budget.
func TestInitAllocations(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "ccc")
	build := exec.Command("go", "build", "-o", bin, module+"/cmd/ccc")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ccc --version: %v\n%s", err, stderr.String())
	}
	total, own, lines := 0, 0, 0
	var heavy []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		m := initLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[3])
		lines++
		total += n
		if rel(m[1]) != "" {
			own += n
		}
		if n >= 100 {
			heavy = append(heavy, m[1]+": "+m[3])
		}
	}
	if lines < 20 {
		t.Fatalf("found %d init lines in GODEBUG=inittrace=1 output; the parser is broken:\n%s", lines, stderr.String())
	}
	t.Logf("init allocations: %d in all, %d in ccc's packages; over 100: %s", total, own, strings.Join(heavy, ", "))
	if total > initAllocBudget {
		t.Errorf("package init allocates %d times, over the budget of %d (over 100: %s)", total, initAllocBudget, strings.Join(heavy, ", "))
	}
	if own > initOwnBudget {
		t.Errorf("ccc's packages' init allocates %d times, over the budget of %d (over 100: %s)", own, initOwnBudget, strings.Join(heavy, ", "))
	}
}
