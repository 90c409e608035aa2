//go:build unix

package projectfs

import (
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Folder reads many files of one directory, each by its name relative to
// the directory (openat), with ReadOwnFile's checks: no symlink, a regular
// file, a bounded size. Where ReadOwnFile costs a stat, an open that walks
// the whole path, a second stat, two reads, a close and the runtime's poller
// registration (an *os.File), Folder costs an open of one name, one fstat,
// one read of the known size and a close: `ccc status` reads a record per
// agent, a thousand of them in one directory (issue 26). A Folder is safe
// for concurrent Reads.
type Folder struct {
	dir string
	fd  int
}

// OpenFolder opens dir for Folder.Read. The caller has checked that dir is
// where it may read (Inside): the files are read beneath it as it is now.
func OpenFolder(dir string) (*Folder, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	for err == unix.EINTR {
		fd, err = unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return &Folder{dir: dir, fd: fd}, nil
}

// Close closes the directory.
func (d *Folder) Close() error { return unix.Close(d.fd) }

// Read reads the file name (one path component) of the folder, appending
// it to buf[:0] when buf has the room (a caller that decodes and drops
// each file passes the last one back). The file must be a regular file
// (a symlink, even one that stays inside, is an error of kind
// ErrNotRegular: the open uses O_NOFOLLOW, so a link planted after a
// listing is refused too) of at most limit bytes; a FIFO is never waited
// on (O_NONBLOCK). Errors name the file's path; a missing file is the
// open's error (errors.Is fs.ErrNotExist).
func (d *Folder) Read(name string, limit int64, buf []byte) ([]byte, error) {
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	for err == unix.EINTR { // the runtime's own signals can interrupt a call
		fd, err = unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	}
	if err == unix.ELOOP {
		return nil, &FileError{Path: filepath.Join(d.dir, name), Problem: "is a symlink, not a regular file", Kind: ErrNotRegular}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: filepath.Join(d.dir, name), Err: err}
	}
	defer func() { _ = unix.Close(fd) }() // read-only: nothing a close could lose
	var st unix.Stat_t
	err = unix.Fstat(fd, &st)
	for err == unix.EINTR {
		err = unix.Fstat(fd, &st)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: filepath.Join(d.dir, name), Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, &FileError{Path: filepath.Join(d.dir, name), Problem: "is " + fileKind(statMode(uint32(st.Mode))) + ", not a regular file", Kind: ErrNotRegular}
	}
	size := st.Size
	if size > limit {
		return nil, tooLarge(filepath.Join(d.dir, name), limit)
	}
	// Room for the file and one byte more, to see that it grew.
	if int64(cap(buf)) < size+1 {
		buf = make([]byte, 0, size+1)
	}
	data := buf[:size+1]
	n := 0
	for {
		if n == len(data) {
			if int64(n) > limit {
				return nil, tooLarge(filepath.Join(d.dir, name), limit)
			}
			data = append(data, make([]byte, min(int64(n), limit+1-int64(n)))...)
		}
		m, err := unix.Read(fd, data[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: filepath.Join(d.dir, name), Err: err}
		}
		n += m
		// A read of a regular file that stops short of what was asked is
		// at its end: no second read to be told so, once the size fstat
		// gave is in (a file that shrank since is read to a read of 0).
		if m == 0 || n < len(data) && int64(n) >= size {
			break
		}
	}
	if int64(n) > limit {
		return nil, tooLarge(filepath.Join(d.dir, name), limit)
	}
	return data[:n], nil
}

// statMode is the fs.FileMode type bits of a stat's mode, for fileKind.
func statMode(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}
