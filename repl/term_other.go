//go:build !linux && !darwin

package repl

import (
	"errors"
	"os"
	"runtime"
)

// pollingRawMode is only implemented on Linux and macOS; elsewhere
// (Windows) the countdown is skipped and a continuation starts at once,
// as in a script, and a permission question is answered "no".
func pollingRawMode(fd int) (restore func(), err error) {
	return nil, errors.New("a key read with a timeout needs a Unix terminal (Linux or macOS); not on " + runtime.GOOS)
}

// noEchoMode is only implemented on Linux and macOS. A Windows console
// echoes keys only while a program reads a line from it, so keys typed
// while the shell reads none stay unshown there too.
func noEchoMode(fd int) (restore func()) { return func() {} }

// onContinue does nothing: there is no SIGCONT outside Unix.
func onContinue(fd int, f func()) (stop func()) { return func() {} }

// onStop does nothing: there is no SIGTSTP outside Unix.
func onStop(give func()) (stop func()) { return func() {} }

// stopSelf does nothing: there is no job control outside Unix.
func stopSelf(give func()) {}

// readKey reads the keys typed on the terminal open as f.
func readKey(f *os.File, buf []byte) (int, error) { return f.Read(buf) }

// saveTerminal is only implemented on Linux and macOS; elsewhere restore
// does nothing.
func saveTerminal(fd int) (restore func()) { return func() {} }
