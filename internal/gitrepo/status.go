package gitrepo

import (
	"context"
	"fmt"
	"strings"
)

// Change is one entry of `git status --porcelain=v1`.
type Change struct {
	// Path is relative to the top level, with forward slashes; for a
	// rename or copy it is the new name.
	Path string
	// From is the old name of a renamed or copied file, "" otherwise.
	From string
	// Status is git's two-letter XY code: X for the index, Y for the work
	// tree ("M ", " M", "??", "R ", "UU", ...).
	Status string
}

// Unmerged reports a path with a merge conflict still recorded in the index.
func (c Change) Unmerged() bool {
	x, y := c.Status[0], c.Status[1]
	return x == 'U' || y == 'U' || (x == y && (x == 'A' || x == 'D'))
}

func (c Change) renamed() bool {
	return strings.ContainsAny(c.Status, "RC")
}

// Changed lists every changed, staged and untracked (not ignored) file in
// the work tree, each untracked file on its own rather than its directory.
func (r *Repo) Changed(ctx context.Context) ([]Change, error) {
	// GIT_OPTIONAL_LOCKS=0 stops status from rewriting the index to refresh
	// its stat cache, so looking never changes the repository and never
	// races another git for index.lock.
	out, err := run(ctx, r.Dir, []string{"GIT_OPTIONAL_LOCKS=0"},
		r.withConfig([]string{"-c", "core.quotepath=off", "status", "--porcelain=v1", "-z", "--untracked-files=all"})...)
	if err != nil {
		return nil, fmt.Errorf("gitrepo: status: %w", err)
	}
	changes, err := parseStatus(out)
	if err != nil {
		return nil, fmt.Errorf("gitrepo: status: %w", err)
	}
	return changes, nil
}

// parseStatus reads `status --porcelain=v1 -z`: "XY path\0" entries, where a
// rename or copy is followed by its source as a second "\0"-terminated
// field. -z leaves paths unquoted, so spaces, quotes and non-ASCII names
// arrive as they are.
func parseStatus(out string) ([]Change, error) {
	var changes []Change
	fields := strings.Split(out, "\x00")
	if fields[len(fields)-1] != "" {
		return nil, fmt.Errorf("unterminated entry %q", fields[len(fields)-1])
	}
	fields = fields[:len(fields)-1]
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 || f[2] != ' ' {
			return nil, fmt.Errorf("malformed entry %q", f)
		}
		c := Change{Status: f[:2], Path: f[3:]}
		if c.renamed() {
			i++
			if i == len(fields) || fields[i] == "" {
				return nil, fmt.Errorf("rename %q without its source", f)
			}
			c.From = fields[i]
		}
		changes = append(changes, c)
	}
	return changes, nil
}
