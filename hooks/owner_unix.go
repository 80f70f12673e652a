//go:build unix

package hooks

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// owner is the owner and group a settings file keeps; ok is false when
// the file may take whoever writes it (a new file of a process that is
// not root).
type owner struct {
	uid, gid int
	ok       bool
}

// ownerOf is the owner and group of a file.
func ownerOf(info fs.FileInfo) owner {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return owner{}
	}
	return owner{uid: int(st.Uid), gid: int(st.Gid), ok: true}
}

// newOwner is the owner of a new file in dir: for root, the owner of the
// nearest directory there is (root installing into a person's home makes
// the person's file); for anyone else, themselves.
func newOwner(dir string) (owner, error) {
	if os.Geteuid() != 0 {
		return owner{}, nil
	}
	for d := dir; ; d = filepath.Dir(d) {
		info, err := os.Stat(d)
		if err == nil {
			return ownerOf(info), nil
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(d) == d {
			return owner{}, err
		}
	}
}

// chownFile gives f the owner and group o, when o names them and f has
// others.
func chownFile(f *os.File, o owner) error {
	if !o.ok {
		return nil
	}
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if cur := ownerOf(info); cur.ok && cur.uid == o.uid && cur.gid == o.gid {
		return nil
	}
	return f.Chown(o.uid, o.gid)
}

// mkdirOwned creates dir and the directories above it that are missing,
// each with the owner o when o names one.
func mkdirOwned(dir string, o owner) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirOwned(parent, o); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if o.ok {
		return os.Lchown(dir, o.uid, o.gid)
	}
	return nil
}

// other reports whether o is a user other than this process's.
func (o owner) other() bool { return o.ok && o.uid != os.Getuid() }
