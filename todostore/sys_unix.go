//go:build unix

package todostore

// The store's system calls on Unix (Linux, macOS): the platform's half of
// durable.go, lock.go, private.go and cache.go (ARCHITECTURE.md §3).

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Open flags the store adds to its opens: never through a symlink, never
// blocking on a FIFO named like a store file, a directory only.
const (
	oNoFollow  = syscall.O_NOFOLLOW
	oNonBlock  = syscall.O_NONBLOCK
	oDirectory = syscall.O_DIRECTORY
)

// homeVar names the home directory (HomeDir).
const homeVar = "HOME"

// posixModes is true where a file's permission bits are what keeps it
// private, so the store checks and narrows them.
const posixModes = true

// isSymlinkErr reports whether an open with oNoFollow failed because the
// path is a symlink.
func isSymlinkErr(err error) bool { return errors.Is(err, syscall.ELOOP) }

// openStore opens a store file another process may read, write or replace
// at the same time.
func openStore(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}

// createTemp is os.CreateTemp.
func createTemp(dir, pattern string) (*os.File, error) { return os.CreateTemp(dir, pattern) }

// mkdirPrivate creates dir with mode 0700 (its parent must exist).
func mkdirPrivate(dir string) error { return os.Mkdir(dir, DirMode) }

// openFile is os.OpenFile for a file the store only writes, syncs or
// locks (a new temp file, a directory to sync): opened with open(2) and
// made an *os.File by os.NewFile, it skips os.OpenFile's set-up for the
// poller (non-blocking mode, registering with epoll), which a regular
// file or directory has no use for: two system calls fewer an open.
func openFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	for {
		fd, err := syscall.Open(name, flag|syscall.O_CLOEXEC, uint32(perm.Perm()))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), name), nil
	}
}

// rename is os.Rename without its check that newpath is not a directory
// (an lstat): rename(2) refuses to put a file over a directory itself.
func rename(oldpath, newpath string) error {
	for {
		err := syscall.Rename(oldpath, newpath)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
		}
		return nil
	}
}

// syncDirectory fsyncs directory dir, so the entries renamed or created
// in it survive a crash. On macOS (*os.File).Sync is fcntl(F_FULLFSYNC),
// which the Go runtime uses there because fsync(2) leaves the data in
// the drive's cache (internal/poll/fd_fsync_darwin.go).
func syncDirectory(dir string) error {
	d, err := openFile(dir, os.O_RDONLY|oDirectory, 0)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, bareError(err))
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		// macOS: a file system that refuses F_FULLFSYNC on a directory
		// with another error than ENOTSUP (on which Go already falls
		// back) may still take fsync; on Linux this is the same call
		// again.
		if syscall.Fsync(int(d.Fd())) != nil {
			return fmt.Errorf("sync %s: %w", dir, err)
		}
	}
	return nil
}

// errLocked is what tryLock returns when another process holds the lock.
var errLocked = errors.New("locked by another process")

// tryLock takes f's exclusive lock without waiting: errLocked when
// another open file holds it.
func tryLock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == syscall.EWOULDBLOCK {
		return errLocked
	}
	return err
}

// waitLock takes f's exclusive lock, waiting as long as another holds it.
func waitLock(f *os.File) error {
	for {
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != syscall.EINTR {
			return err
		}
	}
}

// unlockFile lets go of f's lock (closing f would too).
func unlockFile(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// statOf is what the store reads of a file's stat beyond os.FileInfo:
// device, inode and owner; ok is false where the platform has none.
func statOf(info fs.FileInfo) (dev, ino uint64, uid uint32, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return uint64(st.Dev), st.Ino, st.Uid, true
}

// writable reports whether this process may create entries in dir.
func writable(dir string) bool { return syscall.Access(dir, 0o3) == nil } // W_OK|X_OK
