// Package machines is the command side of the checkpoint branch
// (state/handoff): who this machine is, `ccc status --all`, `ccc go
// --from`, what `ccc sync` publishes, and the signers file.
package machines

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/state/handoff"
)

// Self is this machine as the branch knows it.
type Self struct {
	Signer  *handoff.Signer
	Machine string
	Host    string
}

// Identify is this machine: the signer derived from the user's key
// (config.UserKey) and the machine id from the hostname and that key.
func Identify(userKey []byte) (Self, error) {
	s, err := handoff.NewSigner(userKey)
	if err != nil {
		return Self{}, err
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "machine"
	}
	return Self{Signer: s, Machine: handoff.MachineID(host, s), Host: host}, nil
}

// Options are the checkpoint's options for the branch; the zero value
// (off) when remote is "".
func (s Self) Options(remote string) checkpoint.HandoffOptions {
	if remote == "" || s.Signer == nil {
		return checkpoint.HandoffOptions{}
	}
	return checkpoint.HandoffOptions{Remote: remote, Signer: s.Signer, Machine: s.Machine, Host: s.Host}
}

// RunOptions turn the checkpoint branch on for a run (off without the
// user key, which signs its entries).
func RunOptions(userKey []byte, remote string) (checkpoint.HandoffOptions, error) {
	self, err := Identify(userKey)
	if err != nil {
		return checkpoint.HandoffOptions{}, err
	}
	return self.Options(remote), nil
}

// Trusted are the keys whose entries are believed: the project's signers
// file (handoff.SignersFile, committed) and this machine's own key. A
// broken signers file is the error, with its path and line; the keys read
// before the bad line and the own key still count.
func Trusted(root string, self Self) (map[string]bool, error) {
	data, err := projectfs.ReadProjectFile(root, filepath.Join(root, handoff.SignersFile), 1<<20)
	keys := map[string]bool{}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		err = fmt.Errorf("%s: %w", handoff.SignersFile, err)
	} else if err == nil {
		keys, err = handoff.ParseSigners(data)
	} else {
		err = nil
	}
	if self.Signer != nil {
		keys[self.Signer.Public()] = true
	}
	return keys, err
}

// Open is the branch's repository for root.
func Open(ctx context.Context, root string) (handoff.Repo, error) {
	repo, err := gitrepo.Open(ctx, root)
	if err != nil {
		return handoff.Repo{}, err
	}
	return handoff.Repo{Dir: repo.Dir, CommonDir: repo.CommonDir}, nil
}

// AddSigner adds this machine's key to root's signers file (made when
// missing), unless it is there already; it returns the line and whether
// it was added.
func AddSigner(root string, self Self) (line string, added bool, err error) {
	if self.Signer == nil {
		return "", false, errors.New("no signing key")
	}
	path := filepath.Join(root, handoff.SignersFile)
	data, err := projectfs.ReadProjectFile(root, path, 1<<20)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", false, fmt.Errorf("%s: %w", handoff.SignersFile, err)
	}
	keys, perr := handoff.ParseSigners(data)
	if perr != nil {
		return "", false, perr // never rewrite a file ccc cannot read
	}
	line = handoff.SignersLine(self.Signer, self.Machine)
	if keys[self.Signer.Public()] {
		return line, false, nil
	}
	if len(data) == 0 {
		data = []byte("# Keys whose ccc checkpoints this repository trusts (ccc init handoff adds a machine's).\n")
	} else if data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	data = append(data, line+"\n"...)
	if err := projectfs.WriteFileAtomic(path, data, 0o644); err != nil {
		return "", false, fmt.Errorf("%s: %w", handoff.SignersFile, err)
	}
	return line, true, nil
}
