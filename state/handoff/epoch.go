package handoff

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
)

// Retention is the rule that prunes the branch's history (DESIGN.md, "The
// checkpoint branch"): when the current epoch holds more than Keep
// commits, or began more than KeepFor ago, ccc sync rolls the epoch (Roll).
// A zero field does not count; the zero Retention never rolls.
type Retention struct {
	Keep    int
	KeepFor time.Duration
}

// The trailers of an epoch's root commit.
const (
	EpochTrailer  = "Ccc-Epoch"
	PrunedTrailer = "Ccc-Pruned"
)

// Epoch is what a tip's history says of its epoch.
type Epoch struct {
	// N is the Ccc-Epoch trailer of the tip's root commit (0 without one).
	N int `json:"epoch"`
	// Commits counts the commits reachable from the tip (root included);
	// Start is the oldest one's date, Newest the newest's, Tree the
	// tip's tree.
	Commits int       `json:"commits"`
	Start   time.Time `json:"start"`
	Newest  time.Time `json:"newest"`
	Tree    string    `json:"-"`
	// Pruned is what the roll that began the epoch pruned (nil in epoch 0).
	Pruned *Pruned `json:"pruned,omitempty"`
	// has holds every commit reachable from the tip.
	has map[string]bool
}

// Has says whether commit is in the tip's history.
func (e Epoch) Has(commit string) bool { return e.has[commit] }

// Pruned is a Ccc-Pruned trailer: the old epoch's tip, how many commits
// it held and their dates.
type Pruned struct {
	Tip     string    `json:"tip"`
	Commits int       `json:"commits"`
	Oldest  time.Time `json:"oldest"`
	Newest  time.Time `json:"newest"`
}

// String is the trailer's value.
func (p Pruned) String() string {
	return fmt.Sprintf("%s %d commits, %s…%s", p.Tip, p.Commits, p.Oldest.UTC().Format(time.RFC3339), p.Newest.UTC().Format(time.RFC3339))
}

// parsePruned reads a Ccc-Pruned trailer's value (nil when it is not one).
func parsePruned(v string) *Pruned {
	tip, rest, _ := strings.Cut(strings.TrimSpace(v), " ")
	n, dates, _ := strings.Cut(rest, " commits, ")
	oldest, newest, _ := strings.Cut(dates, "…")
	count, err := strconv.Atoi(n)
	o, oerr := time.Parse(time.RFC3339, oldest)
	w, werr := time.Parse(time.RFC3339, newest)
	if err != nil || oerr != nil || werr != nil || len(tip) < 40 {
		return nil
	}
	return &Pruned{Tip: tip, Commits: count, Oldest: o, Newest: w}
}

// trailer is the value of the last "key: value" line of msg ("" when none).
func trailer(msg, key string) string {
	v := ""
	for _, l := range strings.Split(msg, "\n") {
		if rest, ok := strings.CutPrefix(l, key+": "); ok {
			v = strings.TrimSpace(rest)
		}
	}
	return v
}

// ReadEpoch reads tip's epoch: one `git log` over its history (which,
// after a roll, is the current epoch's only). A chain with several roots
// (clones that began the branch apart, then merged) is of the highest
// epoch any root names. An empty tip is epoch 0 with no commits.
func ReadEpoch(ctx context.Context, dir, tip string) (Epoch, error) {
	var e Epoch
	if tip == "" {
		return e, nil
	}
	cs, err := gitrepo.Walk(ctx, dir, tip)
	if err != nil {
		return e, fmt.Errorf("handoff: %w", err)
	}
	e.Commits, e.has = len(cs), make(map[string]bool, len(cs))
	for i, c := range cs {
		e.has[c.SHA] = true
		if i == 0 {
			e.Tree = c.Tree
		}
		if e.Start.IsZero() || c.Time.Before(e.Start) {
			e.Start = c.Time
		}
		if c.Time.After(e.Newest) {
			e.Newest = c.Time
		}
		if len(c.Parents) > 0 {
			continue
		}
		n, err := strconv.Atoi(trailer(c.Message, EpochTrailer))
		if err == nil && n > e.N {
			e.N, e.Pruned = n, parsePruned(trailer(c.Message, PrunedTrailer))
		}
	}
	return e, nil
}

// Due says whether the rule prunes e now: more commits than Keep, or
// older than KeepFor (and something besides the root to prune).
func (r Retention) Due(e Epoch, now time.Time) bool {
	if e.Commits < 2 {
		return false
	}
	return r.Keep > 0 && e.Commits > r.Keep || r.KeepFor > 0 && now.Sub(e.Start) > r.KeepFor
}

// Roll begins epoch e.N+1 on this clone: a parentless commit whose tree is
// tip's (every agent's latest entry, byte for byte) with the Ccc-Epoch and
// Ccc-Pruned trailers, and the branch moved to it from tip by
// compare-and-swap (ErrRefMoved when another writer moved it first). Only
// the history goes: the tree only, never the last commits rewritten on
// top, since what is older than the rule is what the rule prunes.
func Roll(ctx context.Context, r Repo, tip string, e Epoch, now time.Time) (string, error) {
	p := Pruned{Tip: tip, Commits: e.Commits, Oldest: e.Start, Newest: e.Newest}
	msg := fmt.Sprintf("retention: epoch %d begins with every agent's latest entry\n\n%s: %d\n%s: %s\n",
		e.N+1, EpochTrailer, e.N+1, PrunedTrailer, p)
	var b bytes.Buffer
	scratch := scratchRef()
	b.WriteString("commit " + scratch + "\n")
	committer(&b, now)
	data(&b, []byte(msg))
	b.WriteString("M 040000 " + e.Tree + " \"\"\n\n")
	return swap(ctx, r, b.Bytes(), scratch, tip)
}

// scratchRef is a ref of this process's own, where a commit that does not
// descend from the branch's tip is written before the branch swaps to it.
func scratchRef() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "refs/ccc/scratch/" + hex.EncodeToString(b[:])
}

// swap writes stream (one commit on scratch) and moves Ref from old to it
// by compare-and-swap, dropping scratch: two git processes.
func swap(ctx context.Context, r Repo, stream []byte, scratch, old string) (string, error) {
	if err := gitrepo.FastImport(ctx, r.Dir, stream); err != nil {
		return "", fmt.Errorf("handoff: %w", err)
	}
	commit, err := gitrepo.ReadRef(ctx, r.CommonDir, scratch)
	if err == nil {
		err = gitrepo.SwapRef(ctx, r.Dir, Ref, commit, old, scratch)
	}
	if err != nil {
		_ = gitrepo.DeleteRef(ctx, r.Dir, scratch)
		return "", fmt.Errorf("handoff: %w", err)
	}
	return commit, nil
}
