// Package benchcpu reports the CPU time of benchmarks. It is imported by
// tests only and never linked into the binary.
package benchcpu

import (
	"syscall"
	"testing"
)

// PerOp starts counting the process's CPU time (user+system); the func it
// returns, deferred in the benchmark, reports it per operation as
// cpu-ns/op. On a machine shared with other work, wall time says more
// about the other processes than about the code measured.
func PerOp(b *testing.B) func() {
	var start syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &start)
	return func() {
		var end syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &end)
		ns := func(r syscall.Rusage) int64 { return r.Utime.Nano() + r.Stime.Nano() }
		b.ReportMetric(float64(ns(end)-ns(start))/float64(b.N), "cpu-ns/op")
	}
}
