package todostore

// The session lock: one flock (LockFileEx on Windows) per session under todos/.locks (ARCHITECTURE.md §3).

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// lockDir holds the sessions' lock files, out of the listed directory so
// that they do not double its entries.
func (s *Store) lockDir() string { return filepath.Join(s.Dir, ".locks") }

func (s *Store) lockPath(id string) string { return filepath.Join(s.lockDir(), id+".lock") }

// Defaults of waiting for another process's lock on a session.
const (
	// DefaultLockTimeout is how long a write waits for another process
	// that holds the session's lock before it gives up (--lock-timeout).
	DefaultLockTimeout = 30 * time.Second
	// lockNotice is how long a write waits silently before saying so.
	lockNotice = time.Second
)

// lockFile takes an exclusive advisory lock on path (created if needed,
// never through a symlink) and returns the function that releases it. The
// lock is on a separate file because the data file is replaced by every
// rename. When another process holds it, the wait is said after a moment
// (OnLockWait) and given up after LockTimeout with one line naming the
// holder.
//
// A lock file may be removed (Store.Remove unlinks it while it holds the
// lock), so a flock is only the session's lock while its inode is still
// the one at path: after every acquisition the open file is compared with
// the path, and when they differ (a waiter that opened the file before the
// removal) the lock is let go and taken again on the file at path now.
// Without this check two writers, one on the removed inode and one on a
// new one, would run at once (ARCHITECTURE.md §3).
func (s *Store) lockFile(path string) (func(), error) {
	timeout := s.LockTimeout
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	w := &lockWait{store: s, path: path, timeout: timeout, notice: time.NewTimer(min(lockNotice, timeout)), limit: time.NewTimer(timeout)}
	defer w.notice.Stop()
	defer w.limit.Stop()
	for {
		f, err := openLock(path)
		if err != nil {
			return nil, err
		}
		unlock, err := w.flock(f)
		if err != nil {
			return nil, err
		}
		same, err := stillAt(f, path)
		if err != nil {
			unlock()
			return nil, fmt.Errorf("lock %s: %w", path, bareError(err))
		}
		if same {
			return unlock, nil
		}
		unlock() // removed while we waited: the lock is the file at path now
		lockRetries.Add(1)
	}
}

// openLock opens (or creates) the lock file at path, refusing a symlink
// and anything that is not a regular file.
func openLock(path string) (*os.File, error) {
	f, err := openStore(path, os.O_RDWR|os.O_CREATE|oNoFollow|oNonBlock, FileMode)
	if err != nil {
		if isSymlinkErr(err) {
			return nil, symlinkError("lock", path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, bareError(err))
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, bareError(err))
		}
		return nil, fmt.Errorf("lock %s: it is %s, not a lock file: move it aside", path, fileKind(info.Mode()))
	}
	return f, nil
}

// stillAt reports whether the file open as f is still the one at path
// (same device and inode); false when path is gone or is another file.
func stillAt(f *os.File, path string) (bool, error) {
	held, err := f.Stat()
	if err != nil {
		return false, err
	}
	now, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(held, now), nil
}

// lockRetries counts the locks taken again because their file was removed
// meanwhile; tests read it to see that the race they aim at happened.
var lockRetries atomic.Int64

// lockWait is one lockFile call's wait, shared by its attempts: the
// notice is said at most once and the limit counts from the first attempt.
type lockWait struct {
	store         *Store
	path          string
	timeout       time.Duration
	notice, limit *time.Timer
	noticed       bool
}

// flock takes the exclusive flock on f, waiting for another holder as
// lockFile says. On error f is closed (or will be, by the goroutine still
// waiting for it).
func (w *lockWait) flock(f *os.File) (func(), error) {
	unlock := func() {
		unlockFile(f)
		f.Close()
	}
	err := tryLock(f)
	if err == nil {
		return unlock, nil
	}
	if err != errLocked {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", w.path, err)
	}
	// Held by another process: wait for it in a goroutine, which a
	// blocking flock keeps fair and prompt, and give up after the limit.
	got := make(chan error, 1)
	go func() { got <- waitLock(f) }()
	holder := lockHolder(f)
	sayWaiting := func() {
		if !w.noticed && w.store.OnLockWait != nil {
			w.store.OnLockWait(fmt.Sprintf("waiting for %s to release %s (up to %s)", orSomeone(holder), w.path, w.timeout))
		}
		w.noticed = true
	}
	for {
		select {
		case err := <-got:
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("lock %s: %w", w.path, err)
			}
			return unlock, nil
		case <-w.notice.C:
			sayWaiting()
		case <-w.limit.C:
			sayWaiting() // however late this goroutine ran, the wait was said before it ends
			// The waiting goroutine may still get the lock: release it then.
			go func() {
				if <-got == nil {
					unlock()
				} else {
					f.Close()
				}
			}()
			if h := lockHolder(f); h != "" {
				holder = h
			}
			return nil, fmt.Errorf("%s is still locked by %s after %s: gave up (end that process, or wait and try again; --lock-timeout sets the limit)", w.path, orSomeone(holder), w.timeout)
		}
	}
}

// orSomeone is a lock holder's name, or "another process" when it is not known.
func orSomeone(holder string) string {
	if holder == "" {
		return "another process"
	}
	return holder
}

// errSymlink is the one message for a symlink where todosh keeps a file
// of its own (a session, its history, its lock): todosh never makes one,
// and following it would read or write wherever it points.
var errSymlink = errors.New("it is a symlink, which todosh never makes: remove it")

// symlinkError is errSymlink for the file of the given kind at path.
func symlinkError(what, path string) error {
	return fmt.Errorf("%s %s: %w", what, path, errSymlink)
}
