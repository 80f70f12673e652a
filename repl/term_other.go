//go:build !linux

package repl

import "errors"

// pollingRawMode is only implemented on Linux; elsewhere the countdown is
// skipped and a continuation starts at once, as in a script.
func pollingRawMode(fd int) (restore func(), err error) {
	return nil, errors.New("countdown needs Linux terminal control")
}

// noEchoMode is only implemented on Linux; elsewhere keys typed during a
// turn are echoed by the terminal.
func noEchoMode(fd int) (restore func()) { return func() {} }

// saveTerminal is only implemented on Linux; elsewhere restore does nothing.
func saveTerminal(fd int) (restore func()) { return func() {} }
