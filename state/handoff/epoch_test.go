package handoff

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/testutil"
)

// remoteAndClones is a bare remote and n clones of it.
func remoteAndClones(t *testing.T, n int) (string, []string) {
	t.Helper()
	testutil.IsolateGit(t)
	testutil.Identity(t)
	origin := testutil.Repo(t, map[string]string{"a.go": "package a\n"})
	bare := filepath.Join(t.TempDir(), "remote.git")
	testutil.Git(t, origin, "clone", "-q", "--bare", origin, bare)
	var clones []string
	for range n {
		clones = append(clones, clone(t, bare))
	}
	return bare, clones
}

func revParse(t *testing.T, dir, rev string) string {
	t.Helper()
	return strings.TrimSpace(testutil.Git(t, dir, "rev-parse", rev))
}

// reachable says whether commit is in the history of tip in dir.
func reachable(t *testing.T, dir, commit, tip string) bool {
	t.Helper()
	err := exec.Command("git", "-C", dir, "merge-base", "--is-ancestor", commit, tip).Run()
	if err == nil {
		return true
	}
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "git merge-base")
	// 1: not an ancestor; 128: the commit is not even in dir.
	return false
}

// verifiedEntries are the agent directories' progress files at tip, each
// entry checked whole (signature, files).
func verifiedEntries(t *testing.T, dir, tip string, signers ...*Signer) map[string]string {
	t.Helper()
	trusted := map[string]bool{}
	for _, s := range signers {
		trusted[s.Public()] = true
	}
	got, err := Load(context.Background(), dir, tip, trusted)
	require.NoError(t, err)
	out := map[string]string{}
	for d, s := range got.Slots {
		files, trust, err := s.Files(context.Background(), dir, trusted)
		require.NoError(t, err)
		require.Equal(t, Verified, trust, d)
		out[d] = string(files[ProgressFile])
	}
	return out
}

func TestRetentionRollsOnCount(t *testing.T) {
	bare, clones := remoteAndClones(t, 1)
	a := clones[0]
	s := newSigner(t)
	ctx := context.Background()
	for i := range 5 {
		require.NoError(t, Write(ctx, repoOf(t, a), entry(s, "m-a", []string{"one", "two"}[i%2], t0.Add(time.Duration(i)*time.Minute), "step "+string(rune('0'+i))+"\n")))
	}
	before := revParse(t, a, Ref)

	p, err := Publish(ctx, repoOf(t, a), "origin", t0.Add(time.Hour), Retention{Keep: 5})
	require.NoError(t, err)
	assert.Nil(t, p.Rolled, "5 commits are not more than 5")
	assert.Equal(t, before, revParse(t, bare, Ref))

	require.NoError(t, Write(ctx, repoOf(t, a), entry(s, "m-a", "one", t0.Add(10*time.Minute), "step 5\n")))
	last := revParse(t, a, Ref)
	treeBefore, wantEntries := revParse(t, a, Ref+"^{tree}"), verifiedEntries(t, a, last, s)
	p, err = Publish(ctx, repoOf(t, a), "origin", t0.Add(time.Hour), Retention{Keep: 5})
	require.NoError(t, err)
	require.NotNil(t, p.Rolled, "6 commits are more than 5")
	assert.Equal(t, Published{Pushed: true, Epoch: 1, Rolled: &Pruned{Tip: last, Commits: 6, Oldest: t0, Newest: t0.Add(10 * time.Minute)}}, p)

	tip := revParse(t, bare, Ref)
	assert.Equal(t, revParse(t, a, Ref), tip, "the remote has the roll")
	assert.Equal(t, "1\n", testutil.Git(t, bare, "rev-list", "--count", Ref), "one parentless commit")
	assert.Equal(t, treeBefore, revParse(t, bare, Ref+"^{tree}"), "every entry byte for byte")
	assert.Equal(t, wantEntries, verifiedEntries(t, bare, tip, s))
	msg := testutil.Git(t, bare, "log", "-1", "--format=%(trailers:key=Ccc-Epoch,valueonly)%(trailers:key=Ccc-Pruned,valueonly)", Ref)
	assert.Equal(t, "1\n"+last+" 6 commits, 2026-11-28T04:00:00Z…2026-11-28T04:10:00Z\n\n", msg)
	e, err := ReadEpoch(ctx, bare, tip)
	require.NoError(t, err)
	assert.Equal(t, 1, e.N)
	assert.Equal(t, &Pruned{Tip: last, Commits: 6, Oldest: t0, Newest: t0.Add(10 * time.Minute)}, e.Pruned)
	assert.False(t, reachable(t, bare, before, tip))
	testutil.Git(t, bare, "fsck", "--strict")
	_, err = os.Stat(filepath.Join(a, ".git", "refs", "ccc", "scratch"))
	if err == nil {
		assert.Empty(t, testutil.Git(t, a, "for-each-ref", "refs/ccc/"), "no scratch ref left")
	}

	// The next checkpoint goes on the new epoch, whose history is short.
	require.NoError(t, Write(ctx, repoOf(t, a), entry(s, "m-a", "two", t0.Add(time.Hour), "step 6\n")))
	got, err := History(ctx, a, []string{revParse(t, a, Ref)}, 0, nil)
	require.NoError(t, err)
	require.Len(t, got, 1, "the roll commit is no checkpoint; the pruned ones are gone")
	assert.Equal(t, "m-a/two/20261128T050000Z", got[0].Meta.ID)
}

func TestRetentionRollsOnAge(t *testing.T) {
	bare, clones := remoteAndClones(t, 1)
	a := clones[0]
	s := newSigner(t)
	ctx := context.Background()
	require.NoError(t, Write(ctx, repoOf(t, a), entry(s, "m-a", "one", t0, "old\n")))
	require.NoError(t, Write(ctx, repoOf(t, a), entry(s, "m-a", "one", t0.Add(time.Hour), "newer\n")))
	rule := Retention{Keep: 1000, KeepFor: 24 * time.Hour}

	p, err := Publish(ctx, repoOf(t, a), "origin", t0.Add(23*time.Hour), rule)
	require.NoError(t, err)
	assert.Nil(t, p.Rolled, "the oldest checkpoint is 23 hours old")
	assert.Equal(t, "2\n", testutil.Git(t, bare, "rev-list", "--count", Ref))

	p, err = Publish(ctx, repoOf(t, a), "origin", t0.Add(25*time.Hour), rule)
	require.NoError(t, err)
	require.NotNil(t, p.Rolled, "the oldest checkpoint is 25 hours old")
	assert.Equal(t, 1, p.Epoch)
	assert.Equal(t, "1\n", testutil.Git(t, bare, "rev-list", "--count", Ref))
	assert.Equal(t, map[string]string{"agents/m-a/one": "newer\n"}, verifiedEntries(t, bare, revParse(t, bare, Ref), s))

	p, err = Publish(ctx, repoOf(t, a), "origin", t0.Add(100*time.Hour), rule)
	require.NoError(t, err)
	assert.Nil(t, p.Rolled, "a lone root has nothing to prune, however old")
}

// A clone that fetched the old chain and checkpoints after the roll: its
// push is rejected, it fetches the new epoch, and its entry goes on top of
// it with one parent; no commit of the old chain comes back.
func TestAnotherCloneNeverBringsThePrunedChainBack(t *testing.T) {
	bare, clones := remoteAndClones(t, 2)
	a, b := clones[0], clones[1]
	sa, sb := newSigner(t), newSigner(t)
	ctx := context.Background()
	for i := range 3 {
		require.NoError(t, Write(ctx, repoOf(t, a), entry(sa, "m-a", "one", t0.Add(time.Duration(i)*time.Minute), "a's\n")))
	}
	require.NoError(t, Write(ctx, repoOf(t, b), entry(sb, "m-b", "two", t0.Add(5*time.Minute), "b's first\n")))
	_, err := Publish(ctx, repoOf(t, a), "origin", t0.Add(time.Hour), Retention{})
	require.NoError(t, err)
	_, err = Publish(ctx, repoOf(t, b), "origin", t0.Add(time.Hour), Retention{})
	require.NoError(t, err)
	old := strings.Fields(testutil.Git(t, b, "rev-list", Ref))
	require.Len(t, old, 5, "a's three, b's one and the merge")

	p, err := Publish(ctx, repoOf(t, a), "origin", t0.Add(2*time.Hour), Retention{Keep: 2})
	require.NoError(t, err)
	require.NotNil(t, p.Rolled)
	assert.Equal(t, 5, p.Rolled.Commits, "a fetched b's merge before it rolled")

	// B never fetched the roll: its next checkpoint is on the old chain.
	require.NoError(t, Write(ctx, repoOf(t, b), entry(sb, "m-b", "two", t0.Add(3*time.Hour), "b's second\n")))
	p, err = Publish(ctx, repoOf(t, b), "origin", t0.Add(3*time.Hour), Retention{})
	require.NoError(t, err)
	assert.Equal(t, Published{Pushed: true, Rejected: 1, Epoch: 0}, p, "rejected, fetched, re-applied, pushed")

	tip := revParse(t, bare, Ref)
	assert.Equal(t, "2\n", testutil.Git(t, bare, "rev-list", "--count", Ref), "the roll and b's entry on it")
	assert.Equal(t, "1\n", testutil.Git(t, bare, "rev-list", "--count", "--max-parents=1", "--min-parents=1", Ref), "no merge commit")
	for _, c := range old {
		assert.False(t, reachable(t, bare, c, tip), "old commit %s is back", c)
	}
	assert.Equal(t, map[string]string{"agents/m-a/one": "a's\n", "agents/m-b/two": "b's second\n"}, verifiedEntries(t, bare, tip, sa, sb))
	assert.Equal(t, tip, revParse(t, b, Ref), "b's branch is the remote's now")
	listed, err := History(ctx, bare, []string{tip}, 0, map[string]bool{sb.Public(): true})
	require.NoError(t, err)
	require.Len(t, listed, 1, "the entry that crossed is still a checkpoint of the history")
	assert.Equal(t, "m-b/two/20261128T070000Z", listed[0].Meta.ID)
	assert.Equal(t, Verified, listed[0].Trust)
	e, err := ReadEpoch(ctx, b, tip)
	require.NoError(t, err)
	assert.Equal(t, 1, e.N)
}

// A stale clone forced its old-epoch chain onto the remote after the roll:
// the rolled clone's next publish takes its newer entry by tree into the
// new epoch and replaces the old chain by lease.
func TestAnOldEpochOnTheRemoteIsTakenInByTree(t *testing.T) {
	bare, clones := remoteAndClones(t, 2)
	a, b := clones[0], clones[1]
	sa, sb := newSigner(t), newSigner(t)
	ctx := context.Background()
	require.NoError(t, Write(ctx, repoOf(t, a), entry(sa, "m-a", "one", t0, "a's\n")))
	require.NoError(t, Write(ctx, repoOf(t, a), entry(sa, "m-a", "one", t0.Add(time.Minute), "a's\n")))
	_, err := Publish(ctx, repoOf(t, a), "origin", t0.Add(time.Hour), Retention{})
	require.NoError(t, err)
	_, err = Fetch(ctx, repoOf(t, b), "origin")
	require.NoError(t, err)
	_, err = Merge(ctx, repoOf(t, b), revParse(t, b, TrackingRef("origin")), t0)
	require.NoError(t, err)
	p, err := Publish(ctx, repoOf(t, a), "origin", t0.Add(time.Hour), Retention{Keep: 1})
	require.NoError(t, err)
	require.NotNil(t, p.Rolled)

	require.NoError(t, Write(ctx, repoOf(t, b), entry(sb, "m-b", "two", t0.Add(2*time.Hour), "b's\n")))
	testutil.Git(t, b, "push", "-q", "--force", "origin", Ref+":"+Ref)
	old := strings.Fields(testutil.Git(t, bare, "rev-list", Ref))

	require.NoError(t, Write(ctx, repoOf(t, a), entry(sa, "m-a", "one", t0.Add(3*time.Hour), "a's second\n")))
	p, err = Publish(ctx, repoOf(t, a), "origin", t0.Add(3*time.Hour), Retention{Keep: 1000})
	require.NoError(t, err)
	assert.Equal(t, Published{Pushed: true, Rejected: 1, Epoch: 1}, p)
	tip := revParse(t, bare, Ref)
	for _, c := range old {
		assert.False(t, reachable(t, bare, c, tip), "old commit %s is back", c)
	}
	assert.Equal(t, "3\n", testutil.Git(t, bare, "rev-list", "--count", Ref), "the roll, a's entry, b's taken in")
	assert.Equal(t, map[string]string{"agents/m-a/one": "a's second\n", "agents/m-b/two": "b's\n"}, verifiedEntries(t, bare, tip, sa, sb))
}

// gitShim puts a git first on PATH that logs each call to the returned
// file and runs before, when not empty, before the first call whose
// arguments hold trigger.
func gitShim(t *testing.T, trigger, before string) string {
	t.Helper()
	realGit, err := exec.LookPath("git")
	require.NoError(t, err)
	bin, tmp := t.TempDir(), t.TempDir()
	log, mark := filepath.Join(tmp, "git.log"), filepath.Join(tmp, "fired")
	shim := "#!/bin/sh\nprintf 'git %s\\n' \"$*\" >>'" + log + "'\n"
	if before != "" {
		shim += "case \"$*\" in *'" + trigger + "'*) if [ ! -e '" + mark + "' ]; then : >'" + mark + "'; " + before + "; fi;; esac\n"
	}
	shim += "exec '" + realGit + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "git"), []byte(shim), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// A push lands on the remote between the roll's fetch and its push: the
// lease fails, the roll fetches that push, takes its entry in by tree and
// pushes again.
func TestAConcurrentPushMakesTheRollRetry(t *testing.T) {
	bare, clones := remoteAndClones(t, 2)
	a, b := clones[0], clones[1]
	sa, sb := newSigner(t), newSigner(t)
	ctx := context.Background()
	for i := range 3 {
		require.NoError(t, Write(ctx, repoOf(t, a), entry(sa, "m-a", "one", t0.Add(time.Duration(i)*time.Minute), "a's\n")))
	}
	_, err := Publish(ctx, repoOf(t, a), "origin", t0.Add(time.Hour), Retention{})
	require.NoError(t, err)
	_, err = Fetch(ctx, repoOf(t, b), "origin")
	require.NoError(t, err)
	_, err = Merge(ctx, repoOf(t, b), revParse(t, b, TrackingRef("origin")), t0)
	require.NoError(t, err)
	require.NoError(t, Write(ctx, repoOf(t, b), entry(sb, "m-b", "two", t0.Add(time.Hour), "b's, pushed during the roll\n")))
	bTip := revParse(t, b, Ref)

	realGit, err := exec.LookPath("git")
	require.NoError(t, err)
	gitShim(t, "--force-with-lease", "(cd '"+b+"' && '"+realGit+"' push -q origin "+Ref+":"+Ref+")")
	p, err := Publish(ctx, repoOf(t, a), "origin", t0.Add(2*time.Hour), Retention{Keep: 2})
	require.NoError(t, err)
	require.NotNil(t, p.Rolled)
	assert.Equal(t, 1, p.Rejected, "the lease failed once")
	assert.True(t, p.Pushed)
	tip := revParse(t, bare, Ref)
	assert.False(t, reachable(t, bare, bTip, tip), "b's commit of the old epoch is not kept")
	assert.Equal(t, "2\n", testutil.Git(t, bare, "rev-list", "--count", Ref), "the roll and b's entry taken in")
	assert.Equal(t, map[string]string{"agents/m-a/one": "a's\n", "agents/m-b/two": "b's, pushed during the roll\n"}, verifiedEntries(t, bare, tip, sa, sb))
}

// A sync whose rule is not due runs one more git process than before the
// rule (the log that counts the epoch); a hook's write is still one.
func TestPublishProcessCounts(t *testing.T) {
	_, clones := remoteAndClones(t, 1)
	a := clones[0]
	s := newSigner(t)
	ctx := context.Background()
	require.NoError(t, Write(ctx, repoOf(t, a), entry(s, "m-a", "one", t0, "1\n")))
	r := repoOf(t, a)
	log := gitShim(t, "", "")
	require.NoError(t, Write(ctx, r, entry(s, "m-a", "one", t0.Add(time.Minute), "2\n")))
	_, err := Publish(ctx, r, "origin", t0.Add(time.Hour), Retention{Keep: 1000, KeepFor: 24 * time.Hour})
	require.NoError(t, err)
	calls, err := os.ReadFile(log)
	require.NoError(t, err)
	assert.Equal(t, []string{"fast-import", "log", "push"}, gitVerbs(string(calls)), "the hook's write, then the sync: the epoch's log and the push\n%s", calls)

	// A sync that rolls (the remote holds nothing this clone lacks): the
	// log, the fetch, the roll's commit and ref swap, the push by lease.
	require.NoError(t, os.Remove(log))
	require.NoError(t, Write(ctx, r, entry(s, "m-a", "one", t0.Add(2*time.Minute), "3\n")))
	p, err := Publish(ctx, r, "origin", t0.Add(time.Hour), Retention{Keep: 2})
	require.NoError(t, err)
	require.NotNil(t, p.Rolled)
	calls, err = os.ReadFile(log)
	require.NoError(t, err)
	assert.Equal(t, []string{"fast-import", "log", "fetch", "fast-import", "update-ref", "push"}, gitVerbs(string(calls)), "%s", calls)
}

// gitVerbs are the git subcommands of a shim's log, in order.
func gitVerbs(calls string) []string {
	var verbs []string
	for _, l := range strings.Split(strings.TrimSpace(calls), "\n") {
		for _, w := range strings.Fields(l)[1:] {
			if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
				verbs = append(verbs, w)
				break
			}
		}
	}
	return verbs
}

// A hook writes a checkpoint between the roll's read of the tip and its
// swap: the swap fails, the roll reads the new tip and rolls it, so the
// hook's entry is in the new epoch.
func TestAHookWritingDuringTheRollIsKept(t *testing.T) {
	bare, clones := remoteAndClones(t, 1)
	a := clones[0]
	s := newSigner(t)
	ctx := context.Background()
	r := repoOf(t, a)
	for i := range 3 {
		require.NoError(t, Write(ctx, r, entry(s, "m-a", "one", t0.Add(time.Duration(i)*time.Minute), "a's\n")))
	}
	parent := revParse(t, a, Ref)
	require.NoError(t, Write(ctx, r, entry(s, "m-a", "two", t0.Add(5*time.Minute), "written during the roll\n")))
	hooks := revParse(t, a, Ref)
	testutil.Git(t, a, "update-ref", Ref, parent)

	realGit, err := exec.LookPath("git")
	require.NoError(t, err)
	gitShim(t, "update-ref", "'"+realGit+"' -C '"+a+"' update-ref "+Ref+" "+hooks)
	p, err := Publish(ctx, r, "origin", t0.Add(time.Hour), Retention{Keep: 2})
	require.NoError(t, err)
	require.NotNil(t, p.Rolled)
	assert.Equal(t, hooks, p.Rolled.Tip, "the roll that landed is of the tip with the hook's entry")
	assert.Equal(t, 4, p.Rolled.Commits)
	assert.Equal(t, "1\n", testutil.Git(t, bare, "rev-list", "--count", Ref))
	assert.Equal(t, map[string]string{"agents/m-a/one": "a's\n", "agents/m-a/two": "written during the roll\n"},
		verifiedEntries(t, bare, revParse(t, bare, Ref), s))
	assert.Empty(t, testutil.Git(t, a, "for-each-ref", "refs/ccc/"), "no scratch ref left")
}
