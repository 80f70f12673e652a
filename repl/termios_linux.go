package repl

import "golang.org/x/sys/unix"

// The ioctls that get and set a terminal's attributes.
const (
	getTermios = unix.TCGETS
	setTermios = unix.TCSETS
)
