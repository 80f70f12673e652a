//go:build linux || darwin

package e2e_test

import (
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestTerminalNoEchoAfterResume: todosh stopped during a turn and resumed
// by a shell that gave the terminal its own mode meanwhile (echo on, as
// bash does when a job stops) turns the echo off again, so keys typed for
// the rest of the session still show once, at the prompt.
func TestTerminalNoEchoAfterResume(t *testing.T) {
	r := newACP(t)
	tm := r.h.startProgram(t, binary, r.env, r.args("--session", "resumed")...)
	tm.expect("todosh › ")
	tm.typ("[[slow]] take your time" + enter)
	tm.expect("working on it")
	fd := int(tm.tty.Fd()) // the master: its attributes are the terminal's
	mode := func() *unix.Termios {
		m, err := unix.IoctlGetTermios(fd, getTermios)
		if err != nil {
			t.Skipf("read the terminal mode: %v", err)
		}
		return m
	}
	if m := mode(); m.Lflag&unix.ECHO != 0 {
		t.Fatalf("the terminal echoes during a turn: lflag %#x", m.Lflag)
	}
	// A stop signal the kernel does not drop for todosh (SIGTSTP is, for
	// a session leader with no shell above it), the shell's mode, fg.
	if err := tm.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	m := mode()
	m.Lflag |= unix.ECHO
	if err := unix.IoctlSetTermios(fd, setTermios, m); err != nil {
		t.Fatal(err)
	}
	if err := tm.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the echo to go off again", func() bool { return mode().Lflag&unix.ECHO == 0 })
	tm.typ(ctrlC)
	tm.expect("turn cancelled")
	tm.typ("/todo add after the resume")
	tm.expect("todosh › /todo add after the resume")
	tm.typ(enter)
	tm.expect("todosh 0/1 › ")
	tm.quit()
	r.h.assertList(t, "resumed", "after the resume")
	if m := mode(); m.Lflag&unix.ECHO == 0 || m.Lflag&unix.ICANON == 0 {
		t.Errorf("terminal not back in its mode after the exit: lflag %#x", m.Lflag)
	}
}
