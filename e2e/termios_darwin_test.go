package e2e_test

import "golang.org/x/sys/unix"

// getTermios and setTermios are the ioctls that read and set a terminal's
// attributes (tcgetattr and tcsetattr with TCSANOW are these on macOS).
const (
	getTermios = unix.TIOCGETA
	setTermios = unix.TIOCSETA
)
