//go:build !unix

package projectfs

import "path/filepath"

// Folder reads many files of one directory with ReadOwnFile's checks; see
// the unix version, which opens each relative to the directory. Here each
// is ReadOwnFile of its path.
type Folder struct{ dir string }

// OpenFolder opens dir for Folder.Read. The caller has checked that dir is
// where it may read (Inside).
func OpenFolder(dir string) (*Folder, error) { return &Folder{dir: dir}, nil }

// Close closes the directory.
func (d *Folder) Close() error { return nil }

// Read is ReadOwnFile of the file name of the folder; buf is not used.
func (d *Folder) Read(name string, limit int64, _ []byte) ([]byte, error) {
	return ReadOwnFile("", filepath.Join(d.dir, name), limit)
}
