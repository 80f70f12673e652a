package repl

import (
	"os"

	"golang.org/x/sys/windows"
)

// enableEscapes turns on the console's reading of escape sequences
// (colour, the live region, bracketed paste), which a Windows console
// does only when a program asks; false where the console cannot.
func enableEscapes(out *os.File) bool {
	h := windows.Handle(out.Fd())
	var mode uint32
	if err := windows.GetConsoleMode(h, &mode); err != nil {
		return false
	}
	return windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING|windows.ENABLE_PROCESSED_OUTPUT) == nil
}
