// Package benchcpu reports the CPU time and peak memory of benchmarks,
// the same on every platform. It is imported by tests only and never
// linked into the binary.
package benchcpu

import (
	"testing"
	"time"
)

// PerOp starts counting the process's CPU time (user+system); the func it
// returns, deferred in the benchmark, reports it per operation as
// cpu-ns/op. On a machine shared with other work, wall time says more
// about the other processes than about the code measured.
func PerOp(b *testing.B) func() {
	start := Self()
	return func() {
		b.ReportMetric(float64(Self()-start)/float64(b.N), "cpu-ns/op")
	}
}

// ReportMaxRSS reports the process's peak resident memory in MiB as
// unit, where the platform tells it.
func ReportMaxRSS(b *testing.B, unit string) {
	if n, ok := maxRSS(); ok {
		b.ReportMetric(float64(n)/(1<<20), unit)
	}
}

// Self is the CPU time (user and system) this process has used.
func Self() time.Duration { return time.Duration(selfNanos()) }

// WithChildren is Self plus the CPU time of the children it waited for
// (0 for them where the platform does not count it).
func WithChildren() time.Duration { return time.Duration(selfNanos() + childrenNanos()) }
