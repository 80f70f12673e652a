package repl

import "golang.org/x/sys/unix"

// The ioctls that get and set a terminal's attributes (tcgetattr and
// tcsetattr with TCSANOW are these on macOS).
const (
	getTermios = unix.TIOCGETA
	setTermios = unix.TIOCSETA
)
