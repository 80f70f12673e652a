//go:build linux || darwin

package repl

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// pollingRawMode puts terminal fd in raw mode where a read returns a key
// as soon as it is pressed, or nothing after a tenth of a second (VMIN 0,
// VTIME 1), so the countdown can redraw and time out without a reader
// goroutine left behind to steal the next key. Ctrl-C arrives as a byte.
// Output processing stays on. restore puts the previous mode back.
func pollingRawMode(fd int) (restore func(), err error) {
	return changeMode(fd, func(raw *unix.Termios) {
		raw.Iflag &^= unix.ICRNL | unix.IXON
		raw.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG | unix.IEXTEN
		raw.Cc[unix.VMIN] = 0
		raw.Cc[unix.VTIME] = 1
	})
}

// changeMode applies change to fd's terminal attributes; restore puts
// the previous ones back.
func changeMode(fd int, change func(*unix.Termios)) (restore func(), err error) {
	var old unix.Termios
	if err := termios(fd, getTermios, &old); err != nil {
		return nil, err
	}
	t := old
	change(&t)
	if err := termios(fd, setTermios, &t); err != nil {
		return nil, err
	}
	return func() { termios(fd, setTermios, &old) }, nil
}

// termios gets or sets the terminal attributes of fd: req is getTermios
// or setTermios, the ioctls named for the platform (TCGETS on Linux,
// TIOCGETA on macOS).
func termios(fd int, req uint, t *unix.Termios) error {
	if req == getTermios {
		got, err := unix.IoctlGetTermios(fd, req)
		if err == nil {
			*t = *got
		}
		return err
	}
	return unix.IoctlSetTermios(fd, req, t)
}

// readKey reads the keys typed on the terminal open as f; in the polling
// raw mode it returns nothing after a tenth of a second.
func readKey(f *os.File, buf []byte) (int, error) { return syscall.Read(int(f.Fd()), buf) }

// noEchoMode stops the terminal from echoing keys for the interactive
// session: the keys stay queued, unshown, and the countdown or the next
// prompt reads them. The line discipline is kept otherwise (Ctrl-C still
// raises SIGINT, a line typed ahead may still be edited with Backspace),
// and ECHONL goes too, so not even Enter shows. restore puts the previous
// mode back.
func noEchoMode(fd int) (restore func()) {
	restore, err := changeMode(fd, func(t *unix.Termios) { t.Lflag &^= unix.ECHO | unix.ECHONL })
	if err != nil {
		return func() {}
	}
	return restore
}

// onContinue calls f after every SIGCONT (todosh resumed after a
// suspend) that finds todosh in the foreground of terminal fd, until
// stop. Resumed in the background (bg), a change of the mode would only
// stop it again (SIGTTOU); the fg that follows is another SIGCONT.
func onContinue(fd int, f func()) (stop func()) {
	return onSignal(syscall.SIGCONT, func() {
		if pg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err == nil && pg == unix.Getpgrp() {
			f()
		}
	})
}

// onStop calls give before todosh stops on SIGTSTP (Ctrl-Z during a
// turn, readline's own Ctrl-Z at the prompt), then stops it as the signal
// would have, until stop. A shell such as dash does not put its own mode
// back when a job stops, so the mode todosh keeps (no echo) would stay
// while the person types at that shell. The stop is SIGSTOP: SIGTSTP
// raised again would come back to this handler, and Go cannot take it
// back to its own action for one delivery. In an orphaned process group
// (no shell above to continue it: todosh a session leader, as under a
// pty a test opens) the stop is ignored, as the kernel ignores SIGTSTP
// from the terminal there.
func onStop(give func()) (stop func()) {
	return onSignal(syscall.SIGTSTP, func() { stopSelf(give) })
}

// stopSelf calls give and stops todosh with SIGSTOP, returning once it
// is continued (a stop sent to oneself takes effect before kill returns);
// it does nothing when no shell could continue todosh (orphaned).
func stopSelf(give func()) {
	if orphaned() {
		return
	}
	give()
	unix.Kill(unix.Getpid(), unix.SIGSTOP) // continued by fg or bg: SIGCONT (onContinue)
}

// orphaned reports whether no shell above todosh could continue it: its
// parent is in another session (todosh a session leader, as under a pty a
// test opens). A parent in todosh's own group (go run, a wrapper script)
// has the shell above it; todosh's own children run in process groups of
// their own (internal/procgroup).
func orphaned() bool {
	sid, err1 := unix.Getsid(0)
	psid, err2 := unix.Getsid(unix.Getppid())
	return err1 != nil || err2 != nil || psid != sid
}

// saveTerminal records fd's terminal mode now; restore puts it back,
// whatever was changed since, for an exit that does not unwind (a script
// read from a terminal; the interactive shell has noEchoMode's restore).
func saveTerminal(fd int) (restore func()) {
	var old unix.Termios
	if termios(fd, getTermios, &old) != nil {
		return func() {}
	}
	return func() { termios(fd, setTermios, &old) }
}
