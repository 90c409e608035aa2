// Package install writes ccc's hook configuration into a project for one agent.
package install

type Result struct {
	Path, Diff string
	Changed    bool
	Notes      []string
}
