//go:build linux || darwin

package todostore

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// writePieces writes the pieces to f in order with writev, so a file
// given in pieces (encoding) is written by one system call without being
// joined first. A short write goes on from where it stopped.
func writePieces(f *os.File, pieces [][]byte) error {
	if len(pieces) == 1 {
		_, err := f.Write(pieces[0])
		return err
	}
	var left [][]byte // advanced below: the caller's pieces stay as they are
	for _, p := range pieces {
		if len(p) > 0 {
			left = append(left, p)
		}
	}
	pieces = left
	fd := int(f.Fd())
	for len(pieces) > 0 {
		n, err := unix.Writev(fd, pieces[:min(len(pieces), 1024)]) // IOV_MAX
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "write", Path: f.Name(), Err: err}
		}
		if n == 0 {
			return io.ErrShortWrite
		}
		for n > 0 && len(pieces) > 0 {
			if n < len(pieces[0]) {
				pieces[0] = pieces[0][n:]
				break
			}
			n -= len(pieces[0])
			pieces = pieces[1:]
		}
	}
	return nil
}
