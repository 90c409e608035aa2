package config

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// ReadPrivateFile reads a file of the user's config directory dir that
// holds a secret (the signing key, the token store): ccc's own regular file
// in dir (projectfs.ReadOwnFile: no symlink, even into a dotfiles checkout,
// no FIFO or device, at most projectfs.MaxSecretSize bytes). A file that
// group or others can read is made 0600 first; repaired then says from
// which mode, for the one line that tells the user (CheckPrivateFiles).
func ReadPrivateFile(dir, path string) (data []byte, repaired fs.FileMode, err error) {
	f, err := projectfs.OpenOwnFile(dir, path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			return nil, 0, fmt.Errorf("%s is readable by others (mode %04o) and cannot be made 0600: %w", path, perm, err)
		}
		repaired = perm
	}
	data, err = projectfs.ReadOpened(f, path, projectfs.MaxSecretSize)
	return data, repaired, err
}

// CheckPrivateFiles checks the secret files of the config directory dir
// before a command runs: one that is a symlink or not a regular file is an
// error naming it (commands fail, hooks say it in one line and exit 0);
// one that others can read is made 0600, and notes says so, once (the next
// run finds it 0600). Missing files are no problem.
func CheckPrivateFiles(dir string, paths ...string) (notes []string, err error) {
	for _, p := range paths {
		_, repaired, err := ReadPrivateFile(dir, p)
		switch {
		case os.IsNotExist(err):
		case err != nil:
			return notes, fmt.Errorf("%w: ccc keeps its secrets only in regular files of its own; remove it and run ccc again (ccc linear login for the Linear sign-in)", err)
		case repaired != 0:
			notes = append(notes, fmt.Sprintf("%s was readable by others (mode %04o); made it 0600", p, repaired))
		}
	}
	return notes, nil
}
