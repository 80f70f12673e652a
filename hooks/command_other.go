//go:build !windows

package hooks

import "path/filepath"

// windowsCommands is false: hook commands are POSIX shell words.
const windowsCommands = false

// windowsPath is exe in forward slashes (used on Windows only; here for
// the tests of windowsQuote).
func windowsPath(exe string) string { return filepath.ToSlash(exe) }
