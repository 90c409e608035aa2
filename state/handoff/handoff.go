// Package handoff keeps every agent's checkpoints on a git branch that
// travels with the repository (Ref), so another clone — a laptop, a cloud
// agent, CI — sees them and can resume any agent. It holds the branch's
// layout, writing an entry (one fast-import), reading the branch (one
// ls-tree, one cat-file), the tree merge of a rejected push, publishing,
// and the entries' ed25519 signatures.
//
// Layout of the branch's tree (DESIGN.md, docs/dev/formats.md):
//
//	agents/<machine>/<agent>/meta.json     who, where, when, what; file hashes; the signature
//	agents/<machine>/<agent>/record.json   the agent's record (state/records)
//	agents/<machine>/<agent>/progress.md   the progress document
//	agents/<machine>/<agent>/state.json    the state file, when there is one
//	agents/<machine>/<agent>/prompt.md     the continuation prompt
//
// Each commit of the branch is one checkpoint (or a merge of two
// machines' branches); the history is the branch's commit history.
package handoff

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"
)

// Ref is the branch the checkpoints travel on.
const Ref = "refs/heads/ccc/checkpoints/v1"

// TrackingRef is where a fetch of remote's Ref lands: the ref `git clone`
// and a default fetch refspec use too, so a fresh clone already has it.
func TrackingRef(remote string) string { return "refs/remotes/" + remote + "/ccc/checkpoints/v1" }

// AgentsDir is the top of the branch's tree.
const AgentsDir = "agents"

// The files of an entry.
const (
	MetaFile     = "meta.json"
	RecordFile   = "record.json"
	ProgressFile = "progress.md"
	StateFile    = "state.json"
	PromptFile   = "prompt.md"
)

// entryFiles are the files an entry may hold besides meta.json.
var entryFiles = []string{RecordFile, ProgressFile, StateFile, PromptFile}

// MaxFile bounds one file of an entry, as read back.
const MaxFile = 16 << 20

// Version is the meta.json version this package writes.
const Version = 1

// Meta is an entry's meta.json: enough for `ccc status --all` without the
// other files, the hashes of those files, and the signature over all of it.
type Meta struct {
	Version int `json:"version"`
	// ID names the checkpoint: <machine>/<agent>/<time>; the snapshot
	// commit's Ccc-Checkpoint trailer carries it.
	ID      string `json:"id"`
	Machine string `json:"machine"`
	// Host is the machine's hostname, for people.
	Host  string    `json:"host"`
	Agent string    `json:"agent"`
	Time  time.Time `json:"time"`
	// Commit is the commit the checkpoint was taken at (the snapshot's
	// when it made one), on Branch.
	Commit string `json:"commit"`
	Branch string `json:"branch"`
	Issue  string `json:"issue"`
	TaskN  int    `json:"taskN"`
	TaskM  int    `json:"taskM"`
	// Status is the record's (in_progress, blocked, complete, failed).
	Status  string `json:"status"`
	Current string `json:"current,omitempty"`
	// TakenFrom is the id of another agent's checkpoint this agent took
	// over (ccc takeover across machines): that agent is then shown as
	// taken over, wherever it ran.
	TakenFrom string `json:"takenFrom,omitempty"`
	// Files are the sha256 (hex) of each other file of the entry.
	Files map[string]string `json:"files"`
	// Key is the signer's ed25519 public key (base64), Sig the signature
	// (base64) of this document with Sig empty.
	Key string `json:"key"`
	Sig string `json:"sig,omitempty"`
}

// Entry is one agent's latest checkpoint on the branch.
type Entry struct {
	Meta  Meta
	Files map[string][]byte
}

// Trust says whether an entry may be believed.
type Trust string

const (
	// Verified: signed by a trusted key, and the files are the signed ones.
	Verified Trust = "verified"
	// UnknownSigner: a good signature by a key no one trusted.
	UnknownSigner Trust = "unverified: unknown signer"
	// BadSignature: the signature does not match the entry (forged or
	// altered).
	BadSignature Trust = "unverified: bad signature"
	// Altered: a file's content is not the one the signature covers.
	Altered Trust = "unverified: files altered"
)

// OK says the entry is Verified.
func (t Trust) OK() bool { return t == Verified }

// ValidMachine checks a machine id: it names a directory of the branch.
func ValidMachine(m string) error {
	if m == "" || len(m) > 100 || strings.HasPrefix(m, ".") {
		return fmt.Errorf("handoff: bad machine id %q", m)
	}
	for _, c := range m {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("handoff: bad machine id %q", m)
		}
	}
	return nil
}

// Dir is the branch's directory of machine's agent. The agent's name is
// escaped (it may hold spaces or quotes, which fast-import's paths would
// need quoted).
func Dir(machine, agent string) string {
	return AgentsDir + "/" + machine + "/" + url.PathEscape(agent)
}

// splitDir is Dir's inverse for a path agents/<machine>/<agent>/….
func splitDir(p string) (dir, machine, agent, file string, ok bool) {
	parts := strings.Split(p, "/")
	if len(parts) != 4 || parts[0] != AgentsDir {
		return "", "", "", "", false
	}
	a, err := url.PathUnescape(parts[2])
	if err != nil || ValidMachine(parts[1]) != nil {
		return "", "", "", "", false
	}
	return path.Join(parts[:3]...), parts[1], a, parts[3], true
}

// MachineID is a stable id for this machine: its hostname, cleaned, and
// the first bytes of the hash of its public key, so two machines with the
// same hostname (or two users of one) never share a directory.
func MachineID(host string, s *Signer) string {
	var b strings.Builder
	for _, c := range strings.ToLower(host) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-':
			b.WriteRune(c)
		case c == '.':
			b.WriteRune('-')
		}
		if b.Len() >= 40 {
			break
		}
	}
	name := strings.Trim(b.String(), "-")
	if name == "" {
		name = "machine"
	}
	sum := sha256.Sum256(s.pub)
	return name + "-" + hex.EncodeToString(sum[:4])
}

// Signer signs entries with an ed25519 key derived from the user's key
// (config.UserKey): the private half never leaves the user's config
// directory, the public half goes into each entry and into the
// repository's signers file.
type Signer struct {
	priv ed25519.PrivateKey
	pub  ed25519.PublicKey
}

// NewSigner derives the signing key from the user's 32-byte key. The
// derivation is one-way, so the public key tells nothing of the user key
// that signs the outbox.
func NewSigner(userKey []byte) (*Signer, error) {
	if len(userKey) < 32 {
		return nil, errors.New("handoff: the user key is too short to sign with")
	}
	seed := sha256.Sum256(append([]byte("ccc/handoff/ed25519/v1\x00"), userKey...))
	priv := ed25519.NewKeyFromSeed(seed[:])
	return &Signer{priv: priv, pub: priv.Public().(ed25519.PublicKey)}, nil
}

// Public is the signer's public key as the signers file and meta.json
// write it.
func (s *Signer) Public() string { return base64.StdEncoding.EncodeToString(s.pub) }

// signedBytes is what a signature covers: meta.json without its Sig.
func (m Meta) signedBytes() []byte {
	m.Sig = ""
	b, _ := json.Marshal(m) // a Meta always marshals
	return append([]byte("ccc/handoff/v1\x00"), b...)
}

// Seal fills e's file hashes, key and signature.
func (s *Signer) Seal(e *Entry) {
	e.Meta.Version = Version
	e.Meta.Files = map[string]string{}
	for name, data := range e.Files {
		sum := sha256.Sum256(data)
		e.Meta.Files[name] = hex.EncodeToString(sum[:])
	}
	e.Meta.Key = s.Public()
	e.Meta.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(s.priv, e.Meta.signedBytes()))
}

// Verify judges meta's signature against trusted (public keys, as Public
// writes them), and, when files is not nil, that each file is the one
// signed and none is missing or added.
func Verify(m Meta, files map[string][]byte, trusted map[string]bool) Trust {
	key, err := base64.StdEncoding.DecodeString(m.Key)
	sig, serr := base64.StdEncoding.DecodeString(m.Sig)
	if err != nil || serr != nil || len(key) != ed25519.PublicKeySize || !ed25519.Verify(key, m.signedBytes(), sig) {
		return BadSignature
	}
	if files != nil {
		if len(files) != len(m.Files) {
			return Altered
		}
		for name, data := range files {
			sum := sha256.Sum256(data)
			if m.Files[name] != hex.EncodeToString(sum[:]) {
				return Altered
			}
		}
	}
	if !trusted[m.Key] {
		return UnknownSigner
	}
	return Verified
}

// SignersFile is the committed file that lists the public keys a
// repository trusts to write the branch, one per line ("<key> <comment>";
// # starts a comment).
const SignersFile = ".ccc-signers"

// ParseSigners reads a signers file's keys.
func ParseSigners(data []byte) (map[string]bool, error) {
	keys := map[string]bool{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, _, _ := strings.Cut(line, " ")
		if raw, err := base64.StdEncoding.DecodeString(k); err != nil || len(raw) != ed25519.PublicKeySize {
			return keys, fmt.Errorf("%s:%d: %q is not an ed25519 public key (base64)", SignersFile, i+1, k)
		}
		keys[k] = true
	}
	return keys, nil
}

// SignersLine is the line that trusts s, for the signers file.
func SignersLine(s *Signer, machine string) string { return s.Public() + " " + machine }

// sortedNames are a map's keys in order, for a reproducible stream.
func sortedNames(m map[string][]byte) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
