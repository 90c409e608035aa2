package handoff

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
)

// Slot is one agent's directory on a branch tip, with its meta.json read.
type Slot struct {
	// Dir is the directory on the branch (agents/<machine>/<agent>).
	Dir, Machine, Agent string
	// Tree is the directory's tree object; Blobs its files' blob ids.
	Tree  string
	Blobs map[string]string
	Meta  Meta
	// Problem says why meta.json could not be read ("" when it was).
	Problem string
	// Trust is meta.json's signature judged against the trusted keys
	// (Load's); the files are checked when they are read (Files).
	Trust Trust
}

// Tip is what a branch tip holds, by directory.
type Tip struct {
	Commit string
	Slots  map[string]*Slot
}

// Sorted are the slots, newest checkpoint first.
func (t Tip) Sorted() []*Slot {
	out := make([]*Slot, 0, len(t.Slots))
	for _, s := range t.Slots {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Meta.Time.Equal(out[j].Meta.Time) {
			return out[i].Meta.Time.After(out[j].Meta.Time)
		}
		return out[i].Dir < out[j].Dir
	})
	return out
}

// Load reads the tip commit's agents: one `git ls-tree` and one `git
// cat-file --batch` however many agents there are. An empty commit is an
// empty Tip. trusted judges each meta.json (nil: none trusted).
func Load(ctx context.Context, dir, commit string, trusted map[string]bool) (Tip, error) {
	t := Tip{Commit: commit, Slots: map[string]*Slot{}}
	if commit == "" {
		return t, nil
	}
	entries, err := gitrepo.ListTree(ctx, dir, commit, AgentsDir)
	if err != nil {
		return t, fmt.Errorf("handoff: %w", err)
	}
	trees := map[string]string{}
	var metas []string
	for _, e := range entries {
		if e.Type == "tree" {
			trees[e.Path] = e.SHA
			continue
		}
		d, machine, agent, file, ok := splitDir(e.Path)
		if !ok || e.Type != "blob" {
			continue
		}
		s := t.Slots[d]
		if s == nil {
			s = &Slot{Dir: d, Machine: machine, Agent: agent, Blobs: map[string]string{}}
			t.Slots[d] = s
		}
		s.Blobs[file] = e.SHA
		if file == MetaFile {
			metas = append(metas, e.SHA)
		}
	}
	blobs, err := gitrepo.ReadBlobs(ctx, dir, metas, 1<<20)
	if err != nil {
		return t, fmt.Errorf("handoff: %w", err)
	}
	for d, s := range t.Slots {
		s.Tree = trees[d]
		raw, ok := blobs[s.Blobs[MetaFile]]
		if !ok {
			s.Problem, s.Trust = "no meta.json", BadSignature
			continue
		}
		if err := json.Unmarshal(raw, &s.Meta); err != nil {
			s.Problem, s.Trust = "meta.json: "+err.Error(), BadSignature
			continue
		}
		if s.Meta.Machine != s.Machine || s.Meta.Agent != s.Agent {
			// An entry copied into another agent's directory is not that
			// agent's, whoever signed it.
			s.Problem, s.Trust = fmt.Sprintf("meta.json names %s/%s", s.Meta.Machine, s.Meta.Agent), BadSignature
			continue
		}
		s.Trust = Verify(s.Meta, nil, trusted)
	}
	return t, nil
}

// Union is the slots of both tips; where both hold a directory, b's entry
// wins as it would in a merge (newer, and from the same signer: replaces).
func Union(a, b Tip) Tip {
	out := Tip{Commit: a.Commit, Slots: map[string]*Slot{}}
	for d, s := range a.Slots {
		out.Slots[d] = s
	}
	for d, s := range b.Slots {
		if o, ok := out.Slots[d]; !ok || replaces(s, o) {
			out.Slots[d] = s
		}
	}
	return out
}

// Find is the slot of agent, on machine when it is not "" ("" when the
// agent name alone is ambiguous: an error lists the machines).
func (t Tip) Find(agent, machine string) (*Slot, error) {
	var found []*Slot
	for _, s := range t.Sorted() {
		if s.Agent == agent && (machine == "" || s.Machine == machine || s.Meta.Host == machine) {
			found = append(found, s)
		}
	}
	switch {
	case len(found) == 0 && machine != "":
		return nil, fmt.Errorf("no agent %q from machine %q on the checkpoint branch", agent, machine)
	case len(found) == 0:
		return nil, fmt.Errorf("no agent %q on the checkpoint branch", agent)
	case len(found) > 1 && (machine == "" || found[0].Machine != machine):
		var ms []string
		for _, s := range found {
			ms = append(ms, agent+"@"+s.Machine)
		}
		return nil, fmt.Errorf("agent %q is on %d machines: name one (%s)", agent, len(found), strings.Join(ms, ", "))
	}
	return found[0], nil
}

// Files reads a slot's files (one `git cat-file --batch`) and judges the
// whole entry: the signature, and that the files are the signed ones.
func (s *Slot) Files(ctx context.Context, dir string, trusted map[string]bool) (map[string][]byte, Trust, error) {
	var shas []string
	for name, sha := range s.Blobs {
		if name != MetaFile {
			shas = append(shas, sha)
		}
	}
	blobs, err := gitrepo.ReadBlobs(ctx, dir, shas, MaxFile)
	if err != nil {
		return nil, BadSignature, fmt.Errorf("handoff: %w", err)
	}
	files := map[string][]byte{}
	for name, sha := range s.Blobs {
		if name == MetaFile {
			continue
		}
		b, ok := blobs[sha]
		if !ok {
			return nil, Altered, fmt.Errorf("handoff: %s/%s is missing", s.Dir, name)
		}
		files[name] = b
	}
	if s.Problem != "" {
		return files, BadSignature, nil
	}
	return files, Verify(s.Meta, files, trusted), nil
}
