package acpserve

import (
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// countingReader counts the reads of the editor's input.
type countingReader struct {
	r     io.Reader
	reads atomic.Int32
}

func (c *countingReader) Read(b []byte) (int, error) {
	c.reads.Add(1)
	return c.r.Read(b)
}

// TestFilterFramesWaitsForStart: nothing of the editor's input is read
// before start, so no message reaches the SDK's handlers before Serve has
// stored the connection they use (a session/new handled first found
// s.conn nil and panicked in session.send).
func TestFilterFramesWaitsForStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		msg := `{"jsonrpc":"2.0","id":1,"method":"ok"}` + "\n"
		in := &countingReader{r: strings.NewReader(msg)}
		r, start := filterFrames(in, &lockedWriter{w: io.Discard}, nil)
		synctest.Wait() // every goroutine filterFrames started is blocked
		if n := in.reads.Load(); n != 0 {
			t.Fatalf("the editor's input was read %d times before start", n)
		}
		start()
		got, err := io.ReadAll(r)
		if err != nil || string(got) != msg {
			t.Errorf("passed %q (%v), want %q", got, err, msg)
		}
	})
}
