package acpagent

import (
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// TestLineMeterWaitsForOpen: the SDK's reader gets nothing of the agent's
// output until the connection has its logger, so a line it skips is
// counted, never logged to todosh's stderr.
func TestLineMeterWaitsForOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &lineMeter{r: strings.NewReader("not json\n"), open: make(chan struct{})}
		var n atomic.Int32
		done := make(chan struct{})
		go func() {
			k, _ := m.Read(make([]byte, 64))
			n.Store(int32(k))
			close(done)
		}()
		synctest.Wait() // the reader is blocked, or has read
		select {
		case <-done:
			t.Fatalf("read %d bytes before the gate opened", n.Load())
		default:
		}
		close(m.open)
		<-done
		if n.Load() != int32(len("not json\n")) {
			t.Errorf("read %d bytes after the gate opened", n.Load())
		}
	})
}
