// Package install writes the hook configuration an agent needs to run ccc
// into a project, idempotently, without touching the user's own hooks.
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
