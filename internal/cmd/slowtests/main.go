// Command slowtests reads `go test -json` on stdin and prints the slowest
// tests (top-level tests and subtests, by their own elapsed time) and the
// packages' totals, so the suite's time can be kept in view:
//
//	go test -race -short -json ./... | go run ./internal/cmd/slowtests -n 20
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type timing struct {
	name    string
	seconds float64
}

func main() {
	n := flag.Int("n", 20, "how many tests to print")
	flag.Parse()
	tests, pkgs, failed, err := read(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "slowtests:", err)
		os.Exit(1)
	}
	fmt.Printf("slowest %d of %d tests:\n", min(*n, len(tests)), len(tests))
	for _, t := range tests[:min(*n, len(tests))] {
		fmt.Printf("%8.2fs  %s\n", t.seconds, t.name)
	}
	fmt.Println("packages:")
	for _, p := range pkgs {
		fmt.Printf("%8.2fs  %s\n", p.seconds, p.name)
	}
	if len(failed) > 0 {
		fmt.Printf("FAILED: %s\n", strings.Join(failed, ", "))
		os.Exit(1)
	}
}

// read sorts the tests and packages slowest first; failed names what failed.
func read(r io.Reader) (tests, pkgs []timing, failed []string, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue // go test's own lines (build errors) are not JSON
		}
		if e.Action != "pass" && e.Action != "fail" {
			continue
		}
		name := e.Package
		if e.Test != "" {
			name += "." + e.Test
		}
		if e.Action == "fail" {
			failed = append(failed, name)
		}
		if e.Test == "" {
			pkgs = append(pkgs, timing{name, e.Elapsed})
		} else {
			tests = append(tests, timing{name, e.Elapsed})
		}
	}
	slowest := func(ts []timing) {
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].seconds > ts[j].seconds })
	}
	slowest(tests)
	slowest(pkgs)
	return tests, pkgs, failed, sc.Err()
}
