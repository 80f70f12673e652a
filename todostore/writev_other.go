//go:build !linux && !darwin

package todostore

import "os"

// writePieces writes the pieces to f in order (one write each where
// writev is not available).
func writePieces(f *os.File, pieces [][]byte) error {
	for _, p := range pieces {
		if _, err := f.Write(p); err != nil {
			return err
		}
	}
	return nil
}
