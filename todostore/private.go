package todostore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// euid is this process's effective user id, asked once: every read of a
// session checks its file's owner (todosh never changes its ids).
var euid = sync.OnceValue(os.Geteuid)

// Modes of what todosh creates: todo text, conversations and typed lines
// are nobody else's business.
const (
	DirMode  fs.FileMode = 0o700
	FileMode fs.FileMode = 0o600
)

// EnsurePrivateDir creates dir (and missing parents) with mode 0700, or
// checks the one that is there: it must be a directory owned by the
// current user, and a symlink to one is followed only when the link is the
// user's own too. A directory others may read or enter is narrowed to the
// owner's bits. Another user's directory is refused with one line.
func EnsurePrivateDir(dir string) error {
	err := mkdirPrivate(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(dir), DirMode); err == nil {
			err = mkdirPrivate(dir)
		}
	}
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", dir, bareError(err))
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("check %s: %w", dir, bareError(err))
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		// A link is followed only when it is the user's own: one planted by
		// someone else would send todo text where they can read it.
		if uid, ok := ownerOf(info); ok && uid != euid() {
			return fmt.Errorf("%s is a symlink owned by uid %d, not by you (uid %d): todosh does not follow it; remove it or set TODOSH_HOME", dir, uid, euid())
		}
		if info, err = os.Stat(dir); err != nil {
			return fmt.Errorf("%s is a symlink to nothing usable: %w", dir, bareError(err))
		}
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is %s, not a directory: move it aside", dir, fileKind(info.Mode()))
	}
	if uid, ok := ownerOf(info); ok && uid != euid() {
		return fmt.Errorf("%s is owned by uid %d, not by you (uid %d): todosh keeps its store private; use your own (set TODOSH_HOME)", dir, uid, euid())
	}
	if perm := info.Mode().Perm(); posixModes && perm&0o077 != 0 {
		if err := os.Chmod(dir, perm&DirMode); err != nil {
			return fmt.Errorf("make %s private: %w", dir, bareError(err))
		}
	}
	return nil
}

// mkdirStore prepares the store directory on first write (or watch): its
// parent, the store root, and the todos directory itself are private and
// the user's own.
func mkdirStore(dir string) error {
	if err := EnsurePrivateDir(filepath.Dir(dir)); err != nil {
		return err
	}
	return EnsurePrivateDir(dir)
}

// ownerOf returns the uid of the file info describes.
func ownerOf(info fs.FileInfo) (int, bool) {
	_, _, uid, ok := statOf(info)
	return int(uid), ok
}

// checkOwnFile refuses a file of the store that someone else could have
// written: one owned by another user, or writable by group or others. Its
// content is not trusted (a planted history would be what /todo restore
// applies), so it is refused rather than narrowed: a chmod would not undo
// what was written while it was open to others. Directories are narrowed
// instead (EnsurePrivateDir), since their files are checked one by one.
func checkOwnFile(info fs.FileInfo) error {
	if uid, ok := ownerOf(info); ok && uid != euid() {
		return fmt.Errorf("it is owned by uid %d, not by you (uid %d), so its content may not be yours: check it, then move it aside", uid, euid())
	}
	if perm := info.Mode().Perm(); posixModes && perm&0o022 != 0 {
		return fmt.Errorf("it is writable by other users (mode %04o), so its content may not be yours: check it, then chmod 600 it", perm)
	}
	return nil
}

// openHistory opens session history path with flag (plus O_NOFOLLOW and
// O_NONBLOCK) and refuses it, with one line naming it, when it is a
// symlink, not a regular file, or fails checkOwnFile. A missing file is
// an error that wraps fs.ErrNotExist.
func openHistory(path string, flag int) (*os.File, error) {
	return openOwnFile(path, flag, "history", "a history file")
}

// openOwnFile opens path as openHistory describes; what names the file in
// errors ("history") and kind is what it should be ("a history file").
func openOwnFile(path string, flag int, what, kind string) (*os.File, error) {
	f, err := openStore(path, flag|oNoFollow|oNonBlock, FileMode)
	if isSymlinkErr(err) {
		return nil, symlinkError(what, path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, bareError(err))
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("it is %s, not %s: move it aside", fileKind(info.Mode()), kind)
	} else if err == nil {
		err = checkOwnFile(info)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s %s: %w", what, path, bareError(err))
	}
	return f, nil
}

// modeFor is the mode a rewrite of path gets: the mode the file has now,
// without any bit for group or others (never wider than FileMode, so a
// file the user narrowed to 0400 stays 0400 and an old 0644 file becomes
// 0600), or FileMode for a new file.
func modeFor(path string) fs.FileMode {
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() {
		return FileMode
	}
	return info.Mode().Perm() & FileMode
}

// PrivateFile creates path with mode 0600 if it is missing, and narrows it
// to the owner's bits if it exists, without following a symlink. It is for
// files another library opens itself (readline's history), so they are
// private before anything is written into them.
func PrivateFile(path string) error {
	f, err := openStore(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND|oNoFollow|oNonBlock, FileMode)
	if err != nil {
		if isSymlinkErr(err) {
			return fmt.Errorf("%s is a symlink: todosh does not write through it; remove it", path)
		}
		return fmt.Errorf("open %s: %w", path, bareError(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("check %s: %w", path, bareError(err))
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is %s, not a file: move it aside", path, fileKind(info.Mode()))
	}
	if perm := info.Mode().Perm(); posixModes && perm&0o077 != 0 {
		if err := f.Chmod(perm & FileMode); err != nil {
			return fmt.Errorf("make %s private: %w", path, bareError(err))
		}
	}
	return nil
}

// bareError strips the operation and path an *fs.PathError or
// *os.LinkError repeats, so an error that already names the path does not
// name it twice.
func bareError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// Temp files left in the store by a writer that was killed: writeLocked's
// fixed ".todo-<id>.json.tmp" and WriteFileAtomic's random
// ".<name>.<random>.tmp" (conversations, history). A temp file is removed
// only when it is older than staleTemp and no writer holds its lock, so a
// write in progress is never disturbed.
const staleTemp = 10 * time.Second

// isTempName reports whether a store entry is one of todosh's temp files.
func isTempName(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp")
}

// sweepTemps removes the leftover temp files of dir. Entries that are not
// regular files or symlinks (a directory named like a temp file) are left
// for the writer to report.
func sweepTemps(dir string, now time.Time) {
	names, stats, err := ReadDirNames(dir, isTempName)
	if err != nil {
		return
	}
	for i, name := range names {
		st := stats[i]
		if !st.OK || now.Sub(st.ModTime) < staleTemp {
			continue
		}
		path := filepath.Join(dir, name)
		switch st.Mode {
		case fs.ModeSymlink:
			os.Remove(path) // todosh never makes one: planted, not ours to follow
		case 0: // a regular file
			removeUnlockedTemp(path)
		}
	}
}

// removeUnlockedTemp removes the temp file at path unless a writer holds
// its lock (commitTemp locks every temp file it writes).
func removeUnlockedTemp(path string) {
	f, err := openStore(path, os.O_RDONLY|oNoFollow|oNonBlock, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if tryLock(f) != nil {
		return
	}
	os.Remove(path)
}

// OpenOwn opens a file of the store for reading as the store itself does:
// never through a symlink, never blocking on a FIFO, and (on Windows)
// without stopping another process from replacing it.
func OpenOwn(path string) (*os.File, error) {
	return openStore(path, os.O_RDONLY|oNoFollow|oNonBlock, 0)
}
