package checkpoint

import "context"

// runBeforeWrite runs cp's profile with f called between persist's reading
// and its replacing of the progress file: the tests' other writer.
func runBeforeWrite(cp *Context, f func()) Report {
	steps := cp.Profile.Steps(cp)
	for i, s := range steps {
		if _, ok := s.(persistStep); ok {
			steps[i] = persistStep{write: func(cp *Context, path string, orig, out []byte) (string, error) {
				f()
				return replaceProgress(cp, path, orig, out)
			}}
		}
	}
	return Run(context.Background(), cp, steps)
}

// listed says whether s has a line in the report.
func listed(s Step) bool {
	_, ok := s.(unlisted)
	return !ok
}
