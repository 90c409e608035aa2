// Package install writes the hook configuration an agent needs to run ccc
// into a project, idempotently, without touching the user's own hooks.
package install

import "strings"

// Result is what an installer did, or would do with dryRun.
type Result struct {
	// Path is the file written (or that would be).
	Path string
	// Diff is the change as lines prefixed "-", "+" or " "; "" when none.
	Diff string
	// Changed says the file was (or would be) written.
	Changed bool
	// Notes are what the user should know or do next, one sentence each.
	Notes []string
}

// lineDiff is a line diff of two small texts: every line, prefixed "-"
// (only in a), "+" (only in b) or " " (both). Texts too big for the table
// are shown as all removed, then all added.
func lineDiff(a, b string) string {
	if a == b {
		return ""
	}
	x, y := splitLines(a), splitLines(b)
	var out strings.Builder
	if len(x)*len(y) > 4<<20 {
		for _, l := range x {
			out.WriteString("-" + l + "\n")
		}
		for _, l := range y {
			out.WriteString("+" + l + "\n")
		}
		return out.String()
	}
	// lcs[i][j] is the common subsequence length of x[i:] and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			out.WriteString(" " + x[i] + "\n")
			i, j = i+1, j+1
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			out.WriteString("-" + x[i] + "\n")
			i++
		default:
			out.WriteString("+" + y[j] + "\n")
			j++
		}
	}
	return out.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
