package todostore

// The session lock: one flock per session under todos/.locks (ARCHITECTURE.md §3).

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
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
func (s *Store) lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, FileMode)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("lock %s: it is a symlink, which todosh never makes: remove it", path)
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
	unlock := func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		return unlock, nil
	}
	if err != syscall.EWOULDBLOCK {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// Held by another process: wait for it in a goroutine, which a
	// blocking flock keeps fair and prompt, and give up after the limit.
	got := make(chan error, 1)
	go func() {
		var err error
		for {
			if err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != syscall.EINTR {
				break
			}
		}
		got <- err
	}()
	timeout := s.LockTimeout
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	holder := lockHolder(f)
	noticed := false
	sayWaiting := func() {
		if !noticed && s.OnLockWait != nil {
			s.OnLockWait(fmt.Sprintf("waiting for %s to release %s (up to %s)", orSomeone(holder), path, timeout))
		}
		noticed = true
	}
	notice := time.NewTimer(min(lockNotice, timeout))
	defer notice.Stop()
	limit := time.NewTimer(timeout)
	defer limit.Stop()
	for {
		select {
		case err := <-got:
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("lock %s: %w", path, err)
			}
			return unlock, nil
		case <-notice.C:
			sayWaiting()
		case <-limit.C:
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
			return nil, fmt.Errorf("%s is still locked by %s after %s: gave up (end that process, or wait and try again; --lock-timeout sets the limit)", path, orSomeone(holder), timeout)
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
