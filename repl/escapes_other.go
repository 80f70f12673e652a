//go:build !windows

package repl

import "os"

// enableEscapes has nothing to do: a Unix terminal reads escape sequences.
func enableEscapes(out *os.File) bool { return true }
