package todostore

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// lockHolder names the process holding a flock on the file open as f, as
// "todosh (pid 123)", from /proc/locks; "" when it cannot be told.
func lockHolder(f *os.File) string {
	info, err := f.Stat()
	if err != nil {
		return ""
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		return ""
	}
	// "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; a waiter's line
	// starts "1: -> FLOCK".
	ino := ":" + strconv.FormatUint(st.Ino, 10)
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[1] != "FLOCK" || !strings.HasSuffix(f[5], ino) {
			continue
		}
		pid := f[4]
		if comm, err := os.ReadFile("/proc/" + pid + "/comm"); err == nil {
			return strings.TrimSpace(string(comm)) + " (pid " + pid + ")"
		}
		return "pid " + pid
	}
	return ""
}
