package e2e_test

import "golang.org/x/sys/unix"

// getTermios is the ioctl that reads a terminal's attributes (TIOCGETA
// is tcgetattr on macOS).
const getTermios = unix.TIOCGETA
