package repl

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/internal/benchcpu"
)

// countingWriter counts the bytes and lines written and checks the
// renderer's promise that every write ends with a newline.
type countingWriter struct {
	bytes, lines, partial int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.bytes += len(p)
	w.lines += bytes.Count(p, []byte("\n"))
	if len(p) > 0 && p[len(p)-1] != '\n' {
		w.partial++
	}
	return len(p), nil
}

// BenchmarkRenderLongLine streams one 200 MB reply line without a newline
// through the renderer in 64 KiB pieces, as an agent streams it. The
// maxrss-MB metric is the process's peak resident size (the test binary
// included); the goal is under 2 s and under 64 MB.
func BenchmarkRenderLongLine(b *testing.B) {
	const size, piece = 200 << 20, 64 << 10
	chunk := strings.Repeat("abcdefghé€", piece/16)
	b.SetBytes(size)
	cpu0 := cpuTime()
	for b.Loop() {
		w := &countingWriter{}
		r := NewRenderer(w)
		for n := 0; n < size; n += len(chunk) {
			r.Text(chunk)
		}
		r.Flush()
		if w.partial != 0 || w.lines < size/renderMaxLine {
			b.Fatalf("%d lines, %d partial writes", w.lines, w.partial)
		}
	}
	// On a loaded machine the wall time is mostly waiting for a CPU.
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	benchcpu.ReportMaxRSS(b, "maxrss-MB")
}

// BenchmarkRenderOneCall gives the renderer a 64 MB line in a single Text
// call: the cost must stay linear (it used to copy the rest after every
// cut, quadratic in the line).
func BenchmarkRenderOneCall(b *testing.B) {
	line := strings.Repeat("x", 64<<20)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		r := NewRenderer(io.Discard)
		r.Text(line)
		r.Flush()
	}
}

// TestRenderLongLineBounded checks the bound itself: however long the line
// and however it arrives, the renderer holds at most one line's worth of
// it, and writes it as it goes instead of at the end.
func TestRenderLongLineBounded(t *testing.T) {
	for _, piece := range []int{1, 7, 4096, 1 << 20, 3 << 20} {
		w := &countingWriter{}
		r := NewRenderer(w)
		chunk := strings.Repeat("ab€", piece/5+1)
		for n := 0; n < 3<<20; n += len(chunk) {
			r.Text(chunk)
			if len(r.pending) > renderMaxLine || cap(r.pending) > 2*renderMaxLine+64 {
				t.Fatalf("piece %d: pending holds %d bytes (cap %d)", piece, len(r.pending), cap(r.pending))
			}
			if n > 1<<20 && w.bytes == 0 {
				t.Fatalf("piece %d: nothing written after %d bytes", piece, n)
			}
		}
		r.Flush()
		if w.partial != 0 {
			t.Fatalf("piece %d: %d writes without a newline", piece, w.partial)
		}
	}
}

// cpuTime is the CPU time the process used so far, user and system.
func cpuTime() time.Duration { return benchcpu.Self() }
