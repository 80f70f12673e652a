package hooks

import (
	"path/filepath"

	"golang.org/x/sys/windows"
)

// windowsCommands: hook commands are written for the agents' Windows
// shells (Command).
const windowsCommands = true

// windowsPath is exe's 8.3 short path where the volume keeps them (no
// spaces: "C:/PROGRA~1/todosh/todosh.exe"), in forward slashes, which Git
// Bash leaves alone where it would eat backslashes.
func windowsPath(exe string) string {
	if p, err := windows.UTF16PtrFromString(exe); err == nil {
		buf := make([]uint16, windows.MAX_LONG_PATH)
		if n, err := windows.GetShortPathName(p, &buf[0], uint32(len(buf))); err == nil && n > 0 && int(n) < len(buf) {
			exe = windows.UTF16ToString(buf[:n])
		}
	}
	return filepath.ToSlash(exe)
}
