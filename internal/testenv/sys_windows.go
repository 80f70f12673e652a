package testenv

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

var errNoSignals = errors.New("no POSIX signals on Windows (the test should have called NeedSignals)")

// Kill sends nothing on Windows: callers skip first (NeedSignals).
func Kill(pid int, sig syscall.Signal) error { return errNoSignals }

// Umask does nothing on Windows.
func Umask(mask int) int { return 0 }

// Mkfifo fails on Windows: callers skip first (NeedModes).
func Mkfifo(path string, mode uint32) error { return errors.New("no FIFOs on Windows") }

// lockOffsetHigh is todostore's (sys_windows.go): the lock covers byte
// 2^62 of the file.
const lockOffsetHigh = 1 << 30

// Lock takes the exclusive lock todostore takes on f, as another process
// holding a session's lock would.
func Lock(f *os.File) error {
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}

// Unlock lets go of Lock's lock.
func Unlock(f *os.File) {
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}

// SyncDisks does nothing on Windows.
func SyncDisks() {}
