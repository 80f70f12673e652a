package benchcpu

import "syscall"

func selfNanos() int64 {
	var created, exited, kernel, user syscall.Filetime
	h, err := syscall.GetCurrentProcess()
	if err != nil || syscall.GetProcessTimes(h, &created, &exited, &kernel, &user) != nil {
		return 0
	}
	// A Filetime counts 100 ns (Nanoseconds would read it as a date).
	ticks := func(f syscall.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return (ticks(kernel) + ticks(user)) * 100
}

// childrenNanos is 0: Windows does not add a waited-for child's time to
// its parent's.
func childrenNanos() int64 { return 0 }

// maxRSS is not read on Windows.
func maxRSS() (int64, bool) { return 0, false }
