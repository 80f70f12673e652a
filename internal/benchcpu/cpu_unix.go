//go:build unix

package benchcpu

import (
	"runtime"
	"syscall"
)

func usage(who int) syscall.Rusage {
	var r syscall.Rusage
	syscall.Getrusage(who, &r)
	return r
}

func selfNanos() int64 {
	r := usage(syscall.RUSAGE_SELF)
	return r.Utime.Nano() + r.Stime.Nano()
}

func childrenNanos() int64 {
	r := usage(syscall.RUSAGE_CHILDREN)
	return r.Utime.Nano() + r.Stime.Nano()
}

// maxRSS is ru_maxrss in bytes: Linux counts it in KiB, macOS in bytes.
func maxRSS() (int64, bool) {
	n := int64(usage(syscall.RUSAGE_SELF).Maxrss)
	if runtime.GOOS != "darwin" {
		n <<= 10
	}
	return n, true
}
