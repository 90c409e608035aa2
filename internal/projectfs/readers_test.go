package projectfs

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawOpens are the calls that read a file without this package's checks.
var rawOpens = regexp.MustCompile(`\bos\.(ReadFile|Open|OpenFile)\(|\bioutil\.ReadFile\(`)

// allowedRawOpens are the raw opens outside this package's reader that
// stay, each with why it cannot plant a FIFO or /dev/zero on ccc, keyed by
// file and the call's line (trimmed). Every other file ccc reads goes
// through ReadProjectFile, ReadOwnFile or their Open counterparts
// (config.ReadPrivateFile for the user's secrets), which refuse
// non-regular files and links out, never block on a FIFO and read through
// a documented limit. The planted-file test in cmd/ccc (hostile_files)
// plants /dev/zero and a FIFO at each path they read.
var allowedRawOpens = map[string]string{
	"internal/projectfs/projectfile.go: f, err := os.OpenFile(path, flags, 0)":                                                    "the one open of every file ccc reads",
	"internal/projectfs/atomic.go: d, err := os.Open(dir)":                                                                        "fsyncs a directory ccc just wrote into; reads nothing",
	"internal/projectfs/lock.go: f, err := os.OpenFile(filepath.Join(dir, ignoreFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)": "creates .ccc/.gitignore (O_EXCL): a write, never a read",
	"internal/gitrepo/snapshot.go: f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)":                         "creates index.lock (O_EXCL) as git does: a write",
	"cmd/ccc/actions.go: fh, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)":                                "appends to $GITHUB_STEP_SUMMARY, the runner's file: a write",
	"sinks/file/filefake/filefake.go: old, err := os.ReadFile(path)":                                                              "a test fake's own file in a test's temp dir",
	"sinks/file/filefake/filefake.go: data, err := os.ReadFile(path)":                                                             "a test fake's own file in a test's temp dir",
	"internal/testutil/testutil.go: want, err := os.ReadFile(path)":                                                               "a golden file of the test suite",
	`cmd/ccc/internal/install/installtest/installtest.go: orig, err = os.ReadFile(filepath.Join("testdata", tc.In+".in.json"))`:   "the installers' golden test, on files in a test's temp dir",
	`cmd/ccc/internal/install/installtest/installtest.go: now, _ := os.ReadFile(path)`:                                            "the installers' golden test, on files in a test's temp dir",
	`cmd/ccc/internal/install/installtest/installtest.go: got, err := os.ReadFile(path)`:                                          "the installers' golden test, on files in a test's temp dir",
	`cmd/ccc/internal/install/installtest/installtest.go: after, _ := os.ReadFile(path)`:                                          "the installers' golden test, on files in a test's temp dir",
	"bench/sidebyside/main.go: f, err := os.Open(c.stdin)":                                                                        "the bench timer's stdin file for a case, given on its command line",
	"bench/sidebyside/main.go: msg, _ := os.ReadFile(errs.Name())":                                                                "the bench timer's own temp file of a failed case's stderr",
	"bench/sidebyside/main.go: null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)":                                              "/dev/null for the timed commands' output: a write",
}

func TestEveryReadGoesThroughTheReader(t *testing.T) {
	t.Parallel()
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	var found []string
	err = filepath.WalkDir(repo, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, path)
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "//") || !rawOpens.MatchString(line) {
				continue
			}
			key := filepath.ToSlash(rel) + ": " + line
			if _, ok := allowedRawOpens[key]; !ok {
				found = append(found, key)
			}
		}
		return nil
	})
	require.NoError(t, err)
	sort.Strings(found)
	assert.Empty(t, found, "files read without projectfs.ReadProjectFile/ReadOwnFile (or config.ReadPrivateFile): "+
		"read them through it, add them to hostile_files.txtar's planted files and to SECURITY.md's table, "+
		"or allow-list the call with the reason it is safe")
}
