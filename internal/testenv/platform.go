package testenv

import (
	"runtime"
	"testing"
)

// What a test needs of its platform, said in one place: a test that needs
// a pseudo-terminal, /proc or POSIX signals calls the matching function
// first and is skipped, with the reason, where the platform has none.
// .github/workflows/test.yml runs the suite on Linux, macOS and Windows.

// NeedPTY skips t where no pseudo-terminal can be had: on Windows,
// creack/pty has none.
func NeedPTY(t testing.TB) {
	t.Helper()
	skipUnless(t, runtime.GOOS != "windows", "needs a pseudo-terminal, which Windows does not have")
}

// NeedProc skips t where there is no Linux /proc to read processes from.
func NeedProc(t testing.TB) {
	t.Helper()
	skipUnless(t, runtime.GOOS == "linux", "reads /proc, which only Linux has")
}

// NeedSignals skips t where processes cannot be sent POSIX signals
// (SIGINT, SIGTERM, SIGHUP to a process or a group): Windows.
func NeedSignals(t testing.TB) {
	t.Helper()
	skipUnless(t, runtime.GOOS != "windows", "sends POSIX signals, which Windows does not have")
}

// NeedModes skips t where file permission bits, the umask and FIFOs do
// not exist (Windows keeps files private by ACL).
func NeedModes(t testing.TB) {
	t.Helper()
	skipUnless(t, runtime.GOOS != "windows", "needs POSIX file modes, umask or FIFOs, which Windows does not have")
}

// NeedShell skips t, which writes a /bin/sh script to play a program,
// where there is no /bin/sh to run it (Windows).
func NeedShell(t testing.TB) {
	t.Helper()
	skipUnless(t, runtime.GOOS != "windows", "runs a /bin/sh script as a fake program, which Windows cannot")
}

// skipUnless skips t, saying why, when the platform lacks what it needs.
func skipUnless(t testing.TB, has bool, why string) {
	t.Helper()
	if !has {
		t.Skip(why)
	}
}

// Exe is path as the name of a program the test builds: with ".exe" on
// Windows, where a program is found by that suffix.
func Exe(path string) string {
	if runtime.GOOS == "windows" {
		return path + ".exe"
	}
	return path
}
