//go:build unix

package testenv

import (
	"os"
	"syscall"
)

// Kill sends sig to pid (a negative pid: its group).
func Kill(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// Umask sets the process's umask and returns the old one.
func Umask(mask int) int { return syscall.Umask(mask) }

// Mkfifo makes a FIFO at path.
func Mkfifo(path string, mode uint32) error { return syscall.Mkfifo(path, mode) }

// Lock takes the exclusive lock todostore takes on f, as another process
// holding a session's lock would; Unlock lets it go.
func Lock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }

// Unlock lets go of Lock's lock.
func Unlock(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// SyncDisks flushes every file system's dirty data, so a benchmark does
// not pay for what ran before it.
func SyncDisks() { syscall.Sync() }
