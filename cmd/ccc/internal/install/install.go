// Package install writes the hook configuration an agent needs to run ccc
// into a project, idempotently, without touching the user's own hooks: the
// JSON settings editing (AddHooks, Settings.Edit), the diff, Check and
// Remove. Which hooks, in which file, and what the user is told next are
// each agent's, in its package under cmd/ccc/internal/agent.
package install

// Result is what an installer did, or would do with dryRun.
type Result struct {
	// Path is the file written (or that would be).
	Path string
	// Diff is the change as a unified diff; "" when none.
	Diff string
	// Changed says the file was (or would be) written.
	Changed bool
	// Notes are what the user should know or do next, one sentence each.
	Notes []string
}
