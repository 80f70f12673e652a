//go:build !linux

package repl

import "errors"

// pollingRawMode is only implemented on Linux; elsewhere the countdown is
// skipped and a continuation starts at once, as in a script.
func pollingRawMode(fd int) (restore func(), err error) {
	return nil, errors.New("countdown needs Linux terminal control")
}
