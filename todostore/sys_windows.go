package todostore

// The store's system calls on Windows: the platform's half of durable.go,
// lock.go, private.go and cache.go (ARCHITECTURE.md §3).
//
// Every store file is opened with FILE_SHARE_DELETE, so a file one process
// reads (or the cache keeps open) can still be replaced by another's
// rename, and renames use POSIX semantics (os.Root.Rename does: the target
// may be open), as on Unix. Locks are LockFileEx on a byte far past the
// end of the file, so they never stop a read. Privacy is by ACL: a store
// directory todosh creates gets a protected DACL that grants only the
// user and SYSTEM, and what is created in it inherits that; mode bits
// mean nothing on Windows and are not checked.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Open flags the store adds to its opens, interpreted by openStore (they
// are outside the bits os.O_* use on Windows).
const (
	oNoFollow  = 1 << 28
	oNonBlock  = 0 // no FIFOs in a Windows directory
	oDirectory = 1 << 29
)

// homeVar names the home directory (HomeDir), as node's os.homedir
// reads it on Windows.
const homeVar = "USERPROFILE"

// posixModes is false: Windows keeps a file private by its ACL.
const posixModes = false

// errSymlinkOpen is what openStore returns for a symlink (or other
// reparse point) opened with oNoFollow.
var errSymlinkOpen = errors.New("symlink")

func isSymlinkErr(err error) bool { return errors.Is(err, errSymlinkOpen) }

// openStore opens name with CreateFile, sharing read, write and delete,
// for the flags os.OpenFile takes plus oNoFollow and oDirectory.
func openStore(name string, flag int, perm fs.FileMode) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	var access uint32 = windows.GENERIC_READ
	switch flag & (os.O_WRONLY | os.O_RDWR) {
	case os.O_WRONLY:
		access = windows.GENERIC_WRITE
	case os.O_RDWR:
		access = windows.GENERIC_READ | windows.GENERIC_WRITE
	}
	if flag&os.O_APPEND != 0 {
		access = access&^windows.GENERIC_WRITE | windows.FILE_APPEND_DATA | windows.FILE_WRITE_ATTRIBUTES | windows.SYNCHRONIZE
	}
	create := uint32(windows.OPEN_EXISTING)
	switch {
	case flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		create = windows.CREATE_NEW
	case flag&os.O_CREATE != 0:
		create = windows.OPEN_ALWAYS
	}
	attrs := uint32(windows.FILE_ATTRIBUTE_NORMAL)
	if flag&(oNoFollow|os.O_EXCL) != 0 {
		attrs |= windows.FILE_FLAG_OPEN_REPARSE_POINT
	}
	if flag&oDirectory != 0 {
		attrs |= windows.FILE_FLAG_BACKUP_SEMANTICS
	}
	h, err := windows.CreateFile(p, access, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, create, attrs, 0)
	if err != nil {
		if err == windows.ERROR_FILE_EXISTS {
			err = fs.ErrExist
		}
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	f := os.NewFile(uintptr(h), name)
	if flag&oNoFollow != 0 {
		var info windows.ByHandleFileInformation
		if windows.GetFileInformationByHandle(h, &info) == nil && info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
			f.Close()
			return nil, &os.PathError{Op: "open", Path: name, Err: errSymlinkOpen}
		}
	}
	if flag&os.O_TRUNC != 0 {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// openFile is openStore: Windows has no cheaper open to offer.
func openFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	return openStore(name, flag, perm)
}

var tempSeq atomic.Uint64

// createTemp is os.CreateTemp through openStore, so the temp file can be
// renamed while it is open.
func createTemp(dir, pattern string) (*os.File, error) {
	prefix, suffix := pattern, ""
	if i := strings.LastIndex(pattern, "*"); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	for range 10000 {
		n := uint64(time.Now().UnixNano()) + tempSeq.Add(1)*7919 + uint64(os.Getpid())
		name := filepath.Join(dir, prefix+strconv.FormatUint(n%1e10, 10)+suffix)
		f, err := openStore(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, FileMode)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, &os.PathError{Op: "createtemp", Path: filepath.Join(dir, pattern), Err: fs.ErrExist}
}

// privateDACL grants full control to the user (filled in) and SYSTEM,
// protected from the parent's entries and inherited by what is created
// inside.
const privateDACL = "D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;%s)"

// mkdirPrivate creates dir with an ACL only the user and SYSTEM are on.
func mkdirPrivate(dir string) error {
	tok := windows.GetCurrentProcessToken()
	user, err := tok.GetTokenUser()
	if err != nil {
		return &os.PathError{Op: "mkdir", Path: dir, Err: err}
	}
	sd, err := windows.SecurityDescriptorFromString(fmt.Sprintf(privateDACL, user.User.Sid.String()))
	if err != nil {
		return &os.PathError{Op: "mkdir", Path: dir, Err: err}
	}
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return &os.PathError{Op: "mkdir", Path: dir, Err: err}
	}
	sa := &windows.SecurityAttributes{Length: uint32(unsafe.Sizeof(windows.SecurityAttributes{})), SecurityDescriptor: sd}
	if err := windows.CreateDirectory(p, sa); err != nil {
		if err == windows.ERROR_ALREADY_EXISTS {
			err = fs.ErrExist
		} else if err == windows.ERROR_PATH_NOT_FOUND {
			err = fs.ErrNotExist
		}
		return &os.PathError{Op: "mkdir", Path: dir, Err: err}
	}
	return nil
}

// rename replaces newpath by oldpath, both in one directory, with POSIX
// semantics where the file system has them: os.Root.Rename renames by
// handle with FILE_RENAME_POSIX_SEMANTICS, so a target another process
// has open is replaced, not refused.
func rename(oldpath, newpath string) error {
	root, err := os.OpenRoot(filepath.Dir(newpath))
	if err == nil {
		defer root.Close()
		err = root.Rename(filepath.Base(oldpath), filepath.Base(newpath))
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: bareError(err)}
	}
	return nil
}

// syncDirectory does nothing on Windows: a directory cannot be flushed
// there, and NTFS journals the rename itself (SQLite skips it too).
func syncDirectory(dir string) error { return nil }

var errLocked = errors.New("locked by another process")

// lockOffsetHigh is the high word of the byte a lock covers (byte 2^62):
// far past the end of any store file, since a Windows lock is mandatory
// and would stop reads of what it covers.
const lockOffsetHigh = 1 << 30

func lockFileEx(f *os.File, flags uint32) error {
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	return windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, &ol)
}

func tryLock(f *os.File) error {
	err := lockFileEx(f, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY)
	if err == windows.ERROR_LOCK_VIOLATION || err == windows.ERROR_IO_PENDING {
		return errLocked
	}
	return err
}

// waitLock blocks in LockFileEx: the store's handles are synchronous.
func waitLock(f *os.File) error { return lockFileEx(f, windows.LOCKFILE_EXCLUSIVE_LOCK) }

func unlockFile(f *os.File) {
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}

// statOf has nothing beyond os.FileInfo on Windows: a file's identity is
// its size and time there, and its owner is not checked (the ACL is).
func statOf(info fs.FileInfo) (dev, ino uint64, uid uint32, ok bool) { return 0, 0, 0, false }

// writable reports whether dir is not read-only; the ACL decides the
// rest, and the first write says so if it refuses.
func writable(dir string) bool {
	info, err := os.Stat(dir)
	return err == nil && info.Mode().Perm()&0o200 != 0
}
