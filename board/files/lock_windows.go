//go:build windows

package files

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// lockOffsetHigh is the high word of the byte the board's lock covers
// (byte 2^62), as todostore's session locks: a Windows lock is mandatory,
// so it covers no byte anyone reads.
const lockOffsetHigh = 1 << 30

// lock takes the board's exclusive lock (.lock, never committed) with
// LockFileEx: every change of the board happens under it, as under flock
// on Unix (lock_unix.go).
func (b *Board) lock() (unlock func(), err error) {
	path := filepath.Join(b.dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock the board: %w", err)
	}
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	if err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the board %s: %w", path, err)
	}
	return func() {
		ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
		windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
		f.Close()
	}, nil
}
