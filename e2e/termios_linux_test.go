package e2e_test

import "golang.org/x/sys/unix"

// getTermios and setTermios are the ioctls that read and set a terminal's
// attributes.
const (
	getTermios = unix.TCGETS
	setTermios = unix.TCSETS
)
