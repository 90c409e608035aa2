package oauth

import "runtime"

// Save is save for tests that prepare a store.
func Save(dir string, t Token) error { return save(dir, t) }

func GOOS() string { return runtime.GOOS }
