package handoff

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/testutil"
)

var t0 = time.Date(2026, 11, 28, 4, 0, 0, 0, time.UTC)

func newSigner(t testing.TB) *Signer {
	t.Helper()
	key := make([]byte, 32)
	_, err := rand.Read(key)
	require.NoError(t, err)
	s, err := NewSigner(key)
	require.NoError(t, err)
	return s
}

func entry(s *Signer, machine, agent string, at time.Time, progress string) Entry {
	e := Entry{
		Meta: Meta{ID: machine + "/" + agent + "/" + at.Format("20060102T150405Z"), Machine: machine, Host: "host",
			Agent: agent, Time: at, Commit: strings.Repeat("a", 40), Branch: "main", Issue: "CIA-7", TaskN: 2, TaskM: 4,
			Status: "in_progress"},
		Files: map[string][]byte{ProgressFile: []byte(progress), PromptFile: []byte("go on\n")},
	}
	s.Seal(&e)
	return e
}

func repoOf(t testing.TB, dir string) Repo {
	t.Helper()
	common := strings.TrimSpace(testutil.Git(t, dir, "rev-parse", "--git-common-dir"))
	if !filepath.IsAbs(common) {
		common = filepath.Join(dir, common)
	}
	return Repo{Dir: dir, CommonDir: common}
}

// userView is everything of a repository a user sees: the work tree's
// status, HEAD, the index's bytes, every ref but the checkpoint branch's,
// the stash.
func userView(t *testing.T, dir string) string {
	t.Helper()
	index, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	require.NoError(t, err)
	var refs []string
	for _, l := range strings.Split(testutil.Git(t, dir, "for-each-ref", "--format=%(refname) %(objectname)"), "\n") {
		if !strings.Contains(l, "ccc/checkpoints") {
			refs = append(refs, l)
		}
	}
	return strings.Join([]string{
		testutil.Git(t, dir, "status", "--porcelain=v1", "--untracked-files=all"),
		testutil.Git(t, dir, "rev-parse", "HEAD"),
		testutil.Git(t, dir, "symbolic-ref", "HEAD"),
		fmt.Sprintf("%x", index),
		strings.Join(refs, "\n"),
		testutil.Git(t, dir, "stash", "list"),
	}, "\n--\n")
}

func TestWriteTouchesNothingOfTheUsers(t *testing.T) {
	testutil.IsolateGit(t)
	testutil.Identity(t)
	dir := testutil.Repo(t, map[string]string{"a.go": "package a\n", "b.go": "package b\n"})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a // stashed\n"), 0o644))
	testutil.Git(t, dir, "stash", "-q")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a // staged\n"), 0o644))
	testutil.Git(t, dir, "add", "a.go")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.go"), []byte("package b // edited\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "new.txt"), []byte("untracked\n"), 0o644))
	// A hook that would say it ran: fast-import must run none.
	outside := t.TempDir()
	hook := filepath.Join(dir, ".git", "hooks", "reference-transaction")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\necho ran >> '"+outside+"/ran'\n"), 0o755))
	before := userView(t, dir)

	s := newSigner(t)
	r := repoOf(t, dir)
	require.NoError(t, Write(context.Background(), r, entry(s, "laptop-1", "main", t0, "# Progress\n")))
	require.NoError(t, Write(context.Background(), r, entry(s, "laptop-1", "main", t0.Add(time.Minute), "# Progress 2\n")))

	assert.Equal(t, before, userView(t, dir), "the user's work tree, index, HEAD, refs and stash are untouched")
	_, err := os.Stat(filepath.Join(outside, "ran"))
	assert.ErrorIs(t, err, os.ErrNotExist, "no hook ran")
	assert.Equal(t, "2\n", testutil.Git(t, dir, "rev-list", "--count", Ref))

	tip, err := Load(context.Background(), dir, strings.TrimSpace(testutil.Git(t, dir, "rev-parse", Ref)), map[string]bool{s.Public(): true})
	require.NoError(t, err)
	require.Len(t, tip.Slots, 1)
	slot := tip.Slots["agents/laptop-1/main"]
	require.NotNil(t, slot)
	assert.Equal(t, Verified, slot.Trust)
	files, trust, err := slot.Files(context.Background(), dir, map[string]bool{s.Public(): true})
	require.NoError(t, err)
	assert.Equal(t, Verified, trust)
	assert.Equal(t, "# Progress 2\n", string(files[ProgressFile]))
	testutil.Git(t, dir, "fsck", "--strict")
}

func TestTwoConcurrentWritersBothLand(t *testing.T) {
	testutil.IsolateGit(t)
	testutil.Identity(t)
	dir := testutil.Repo(t, nil)
	r := repoOf(t, dir)
	s := newSigner(t)
	const each = 8
	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	for _, agent := range []string{"one", "two"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				errs <- Write(context.Background(), r, entry(s, "m-1", agent, t0.Add(time.Duration(i)*time.Second), agent))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.Equal(t, fmt.Sprint(2*each)+"\n", testutil.Git(t, dir, "rev-list", "--count", Ref), "every checkpoint is a commit of the branch")
	tip, err := Load(context.Background(), dir, strings.TrimSpace(testutil.Git(t, dir, "rev-parse", Ref)), nil)
	require.NoError(t, err)
	assert.Len(t, tip.Slots, 2)
}

// clone makes a clone of remote with an identity of its own.
func clone(t *testing.T, remote string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	testutil.Git(t, filepath.Dir(dir), "clone", "-q", remote, dir)
	return dir
}

func TestRejectedPushIsMergedByTreeAndRetried(t *testing.T) {
	testutil.IsolateGit(t)
	testutil.Identity(t)
	origin := testutil.Repo(t, map[string]string{"a.go": "package a\n"})
	bare := filepath.Join(t.TempDir(), "remote.git")
	testutil.Git(t, origin, "clone", "-q", "--bare", origin, bare)
	a, b := clone(t, bare), clone(t, bare)
	sa, sb := newSigner(t), newSigner(t)
	ctx := context.Background()
	require.NoError(t, Write(ctx, repoOf(t, a), entry(sa, "machine-a", "one", t0, "A's\n")))
	require.NoError(t, Write(ctx, repoOf(t, b), entry(sb, "machine-b", "two", t0.Add(time.Second), "B's\n")))

	pb, err := Publish(ctx, repoOf(t, b), "origin", t0, Retention{})
	require.NoError(t, err)
	assert.Equal(t, Published{Pushed: true}, pb)
	pa, err := Publish(ctx, repoOf(t, a), "origin", t0, Retention{})
	require.NoError(t, err)
	assert.Equal(t, Published{Pushed: true, Rejected: 1}, pa, "A's first push lost the race, was merged and pushed again")

	c := clone(t, bare)
	tip, err := Fetch(ctx, repoOf(t, c), "origin")
	require.NoError(t, err)
	got, err := Load(ctx, c, tip, map[string]bool{sa.Public(): true, sb.Public(): true})
	require.NoError(t, err)
	require.Len(t, got.Slots, 2)
	for _, s := range got.Slots {
		assert.Equal(t, Verified, s.Trust, s.Dir)
	}
	assert.Contains(t, testutil.Git(t, bare, "log", "--format=%P", "-1", Ref), " ", "the remote's tip is a merge of both machines")
	testutil.Git(t, bare, "fsck", "--strict")
}

func TestForgedEntriesAreUnverified(t *testing.T) {
	t.Parallel()
	me, other := newSigner(t), newSigner(t)
	trusted := map[string]bool{me.Public(): true}
	good := entry(me, "m-1", "main", t0, "mine\n")
	assert.Equal(t, Verified, Verify(good.Meta, good.Files, trusted))

	forged := entry(other, "m-1", "main", t0, "theirs\n")
	assert.Equal(t, UnknownSigner, Verify(forged.Meta, forged.Files, trusted), "signed, by a key no one trusts")

	edited := good
	edited.Meta.Commit = strings.Repeat("b", 40)
	assert.Equal(t, BadSignature, Verify(edited.Meta, nil, trusted), "meta.json changed after signing")

	swapped := Entry{Meta: good.Meta, Files: map[string][]byte{ProgressFile: []byte("rm -rf /\n"), PromptFile: []byte("go on\n")}}
	assert.Equal(t, Altered, Verify(swapped.Meta, swapped.Files, trusted), "a file is not the signed one")

	stolenKey := forged
	stolenKey.Meta.Key = me.Public() // claims my key, keeps its own signature
	assert.Equal(t, BadSignature, Verify(stolenKey.Meta, stolenKey.Files, trusted))
}

func TestParseSigners(t *testing.T) {
	t.Parallel()
	s := newSigner(t)
	keys, err := ParseSigners([]byte("# team\n" + SignersLine(s, "laptop-1") + "\n\n"))
	require.NoError(t, err)
	assert.Equal(t, map[string]bool{s.Public(): true}, keys)
	_, err = ParseSigners([]byte("# team\nnot-a-key laptop\n"))
	assert.ErrorContains(t, err, ".ccc-signers:2:")
}

// bigBranch writes a branch of agents×checkpoints commits in one
// fast-import, each checkpoint replacing its agent's entry.
func bigBranch(t testing.TB, dir string, s *Signer, agents, checkpoints int) {
	t.Helper()
	var stream bytes.Buffer
	for i := range checkpoints {
		e := entry(s, fmt.Sprintf("m-%d", i%agents%3), fmt.Sprintf("agent-%d", i%agents), t0.Add(time.Duration(i)*time.Second), fmt.Sprintf("# Progress %d\n", i))
		meta := []byte(fmt.Sprintf(`{"version":1,"id":%q,"machine":%q,"agent":%q,"time":%q,"files":{},"key":%q}`,
			e.Meta.ID, e.Meta.Machine, e.Meta.Agent, e.Meta.Time.Format(time.RFC3339), e.Meta.Key))
		stream.Write(entryStream(e, meta, "")) // no from: each commit follows the stream's last
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Stdin = &stream
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
}

func TestLoadRunsTwoGitProcessesWhateverTheAgents(t *testing.T) {
	testutil.IsolateGit(t)
	testutil.Identity(t)
	dir := testutil.Repo(t, nil)
	bigBranch(t, dir, newSigner(t), 100, 1000)
	tip := strings.TrimSpace(testutil.Git(t, dir, "rev-parse", Ref))

	realGit, err := exec.LookPath("git")
	require.NoError(t, err)
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "git.log")
	shim := "#!/bin/sh\nprintf 'git %s\\n' \"$*\" >>'" + log + "'\nexec '" + realGit + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "git"), []byte(shim), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	got, err := Load(context.Background(), dir, tip, nil)
	require.NoError(t, err)
	assert.Len(t, got.Slots, 100)
	calls, err := os.ReadFile(log)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(calls), "git "), "one ls-tree and one cat-file:\n%s", calls)
}

// BenchmarkLoad is `ccc status --all`'s read of the branch: 100 agents,
// 10,000 checkpoints.
func BenchmarkLoad(b *testing.B) {
	testutil.IsolateGit(b)
	testutil.Identity(b)
	dir := testutil.Repo(b, nil)
	bigBranch(b, dir, newSigner(b), 100, 10000)
	tip := strings.TrimSpace(testutil.Git(b, dir, "rev-parse", Ref))
	b.ResetTimer()
	for b.Loop() {
		got, err := Load(context.Background(), dir, tip, nil)
		if err != nil || len(got.Slots) != 100 {
			b.Fatal(err, len(got.Slots))
		}
	}
}

func TestHistoryListsEveryCheckpointNewestFirst(t *testing.T) {
	testutil.IsolateGit(t)
	testutil.Identity(t)
	dir := testutil.Repo(t, nil)
	r := repoOf(t, dir)
	me, other := newSigner(t), newSigner(t)
	ctx := context.Background()
	require.NoError(t, Write(ctx, r, entry(me, "m-1", "one", t0, "1\n")))
	require.NoError(t, Write(ctx, r, entry(other, "m-2", "two", t0.Add(time.Minute), "2\n")))
	require.NoError(t, Write(ctx, r, entry(me, "m-1", "one", t0.Add(2*time.Minute), "3\n")))
	tip := strings.TrimSpace(testutil.Git(t, dir, "rev-parse", Ref))
	got, err := History(ctx, dir, []string{tip}, 0, map[string]bool{me.Public(): true})
	require.NoError(t, err)
	require.Len(t, got, 3)
	var lines []string
	for _, c := range got {
		lines = append(lines, c.Meta.ID+" "+string(c.Trust))
	}
	assert.Equal(t, []string{
		"m-1/one/20261128T040200Z verified",
		"m-2/two/20261128T040100Z unverified: unknown signer",
		"m-1/one/20261128T040000Z verified",
	}, lines)
}

// Two clones that write the same directory (one machine, two clones, the
// same agent): the merge keeps the newer checkpoint, whichever side has it.
func TestMergeKeepsTheNewerEntryOfOneDirectory(t *testing.T) {
	testutil.IsolateGit(t)
	testutil.Identity(t)
	origin := testutil.Repo(t, nil)
	bare := filepath.Join(t.TempDir(), "remote.git")
	testutil.Git(t, origin, "clone", "-q", "--bare", origin, bare)
	a, b := clone(t, bare), clone(t, bare)
	s := newSigner(t)
	ctx := context.Background()
	require.NoError(t, Write(ctx, repoOf(t, a), entry(s, "m-1", "main", t0.Add(time.Minute), "newer, from A\n")))
	require.NoError(t, Write(ctx, repoOf(t, b), entry(s, "m-1", "main", t0, "older, from B\n")))
	_, err := Publish(ctx, repoOf(t, a), "origin", t0, Retention{})
	require.NoError(t, err)
	p, err := Publish(ctx, repoOf(t, b), "origin", t0, Retention{})
	require.NoError(t, err)
	assert.Equal(t, 1, p.Rejected)
	assert.Equal(t, "newer, from A\n", testutil.Git(t, bare, "show", Ref+":agents/m-1/main/progress.md"))
}

// An entry copied into another agent's directory is not that agent's,
// however well it is signed.
func TestAnEntryInAnotherDirectoryIsNotTrusted(t *testing.T) {
	testutil.IsolateGit(t)
	testutil.Identity(t)
	dir := testutil.Repo(t, nil)
	s := newSigner(t)
	ctx := context.Background()
	require.NoError(t, Write(ctx, repoOf(t, dir), entry(s, "m-1", "main", t0, "genuine\n")))
	tree := strings.TrimSpace(testutil.Git(t, dir, "rev-parse", Ref+":agents/m-1/main"))
	tip := strings.TrimSpace(testutil.Git(t, dir, "rev-parse", Ref))
	stream := "commit " + Ref + "\ncommitter x <x> 1700000000 +0000\ndata 2\nx\nfrom " + tip + "\nM 040000 " + tree + " agents/m-9/evil\n\n"
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(stream)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	got, err := Load(ctx, dir, strings.TrimSpace(testutil.Git(t, dir, "rev-parse", Ref)), map[string]bool{s.Public(): true})
	require.NoError(t, err)
	assert.Equal(t, Verified, got.Slots["agents/m-1/main"].Trust)
	evil := got.Slots["agents/m-9/evil"]
	require.NotNil(t, evil)
	assert.Equal(t, BadSignature, evil.Trust)
	assert.Contains(t, evil.Problem, "meta.json names m-1/main")
}

// A forger who pushes a newer entry into an agent's directory does not get
// it merged over the genuine one: only the same signer replaces an entry.
func TestMergeNeverTakesAnotherSignersEntryOverAnAgents(t *testing.T) {
	testutil.IsolateGit(t)
	testutil.Identity(t)
	origin := testutil.Repo(t, nil)
	bare := filepath.Join(t.TempDir(), "remote.git")
	testutil.Git(t, origin, "clone", "-q", "--bare", origin, bare)
	b, forger := clone(t, bare), clone(t, bare)
	sb, sf := newSigner(t), newSigner(t)
	ctx := context.Background()
	require.NoError(t, Write(ctx, repoOf(t, b), entry(sb, "machine-b", "bob", t0, "genuine\n")))
	_, err := Publish(ctx, repoOf(t, b), "origin", t0, Retention{})
	require.NoError(t, err)

	_, err = Fetch(ctx, repoOf(t, forger), "origin")
	require.NoError(t, err)
	_, err = Merge(ctx, repoOf(t, forger), strings.TrimSpace(testutil.Git(t, forger, "rev-parse", TrackingRef("origin"))), t0)
	require.NoError(t, err)
	require.NoError(t, Write(ctx, repoOf(t, forger), entry(sf, "machine-b", "bob", t0.Add(time.Hour), "forged\n")))
	_, err = Publish(ctx, repoOf(t, forger), "origin", t0, Retention{})
	require.NoError(t, err)

	require.NoError(t, Write(ctx, repoOf(t, b), entry(sb, "machine-a", "other", t0.Add(time.Minute), "x\n")))
	p, err := Publish(ctx, repoOf(t, b), "origin", t0, Retention{})
	require.NoError(t, err)
	assert.Equal(t, 1, p.Rejected)
	assert.Equal(t, "genuine\n", testutil.Git(t, b, "show", Ref+":agents/machine-b/bob/progress.md"), "B's merge kept its own entry")
	assert.Equal(t, "genuine\n", testutil.Git(t, bare, "show", Ref+":agents/machine-b/bob/progress.md"))
}

// The takeover note an agent's later entries carry is believed only when
// this user's ccc wrote it.
func TestTakenOverIsSigned(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	key, other := make([]byte, 32), make([]byte, 32)
	_, _ = rand.Read(key)
	_, _ = rand.Read(other)
	assert.Empty(t, TakenOver(root, "carol", key))
	require.NoError(t, RememberTakeover(root, "carol", "m-1/two/1", key))
	assert.Equal(t, "m-1/two/1", TakenOver(root, "carol", key))
	assert.Empty(t, TakenOver(root, "carol", other), "another key's note (a planted file) is not believed")
	assert.Empty(t, TakenOver(root, "dave", key), "the note is carol's alone")
}
