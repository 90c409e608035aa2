package main

import (
	"os"

	"github.com/klauspost/compress/zstd"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdZstd compresses a file to file.zst and removes it, as Codex CLI does
// with an old session's rollout log: zstd FILE
func cmdZstd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: zstd FILE")
	}
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	enc, err := zstd.NewWriter(nil)
	ts.Check(err)
	ts.Check(os.WriteFile(path+".zst", enc.EncodeAll(data, nil), 0o644))
	ts.Check(os.Remove(path))
}
