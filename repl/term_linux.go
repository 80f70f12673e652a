package repl

import (
	"syscall"
	"unsafe"
)

// pollingRawMode puts terminal fd in raw mode where a read returns a key
// as soon as it is pressed, or nothing after a tenth of a second (VMIN 0,
// VTIME 1), so the countdown can redraw and time out without a reader
// goroutine left behind to steal the next key. Ctrl-C arrives as a byte.
// Output processing stays on. restore puts the previous mode back.
func pollingRawMode(fd int) (restore func(), err error) {
	var old syscall.Termios
	if err := termios(fd, syscall.TCGETS, &old); err != nil {
		return nil, err
	}
	raw := old
	raw.Iflag &^= syscall.ICRNL | syscall.IXON
	raw.Lflag &^= syscall.ICANON | syscall.ECHO | syscall.ISIG | syscall.IEXTEN
	raw.Cc[syscall.VMIN] = 0
	raw.Cc[syscall.VTIME] = 1
	if err := termios(fd, syscall.TCSETS, &raw); err != nil {
		return nil, err
	}
	return func() { termios(fd, syscall.TCSETS, &old) }, nil
}

// termios gets or sets the terminal attributes of fd.
func termios(fd int, req uintptr, t *syscall.Termios) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(t))); e != 0 {
		return e
	}
	return nil
}

// noEchoMode stops the terminal from echoing keys typed while an agent
// turn prints, which would otherwise land in the middle of its output.
// The keys stay queued: the countdown or the next prompt reads them. Ctrl-C
// still raises SIGINT. restore puts the previous mode back.
func noEchoMode(fd int) (restore func()) {
	var old syscall.Termios
	if termios(fd, syscall.TCGETS, &old) != nil {
		return func() {}
	}
	quiet := old
	quiet.Lflag &^= syscall.ECHO
	if termios(fd, syscall.TCSETS, &quiet) != nil {
		return func() {}
	}
	return func() { termios(fd, syscall.TCSETS, &old) }
}

// saveTerminal records fd's terminal mode now; restore puts it back,
// whatever was changed since (readline's raw mode, noEchoMode), for an
// exit that does not unwind.
func saveTerminal(fd int) (restore func()) {
	var old syscall.Termios
	if termios(fd, syscall.TCGETS, &old) != nil {
		return func() {}
	}
	return func() { termios(fd, syscall.TCSETS, &old) }
}
