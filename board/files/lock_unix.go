//go:build unix

package files

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lock takes the board's exclusive flock (.lock, never committed): every
// change of the board happens under it, so a claim is read, checked and
// written by one process at a time on this machine.
func (b *Board) lock() (unlock func(), err error) {
	path := filepath.Join(b.dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock the board: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the board %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}
