//go:build linux || darwin

package repl

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// TestTTYCountdown drives the countdown on a real pseudo-terminal: keys
// typed before it starts (typed-ahead during a turn) or during it cancel
// it, and the terminal's mode is put back afterwards.
func TestTTYCountdown(t *testing.T) {
	tests := []struct {
		name        string
		keys        string // typed before the countdown starts
		during      string // typed once the countdown is shown
		cancelCtx   bool
		wantProceed bool
		wantTyped   string
	}{
		{name: "no key", wantProceed: true},
		{name: "printable key", keys: "h", wantTyped: "h"},
		{name: "typed word", keys: "hello", wantTyped: "hello"},
		{name: "key during the countdown", during: "k", wantTyped: "k"},
		{name: "Ctrl-C", during: "\x03"},
		{name: "Enter", during: "\r"},
		{name: "arrow", during: "\x1b[A"},
		{name: "Enter typed ahead", keys: "\r"},
		{name: "context ended", cancelCtx: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Skipf("no pseudo-terminal: %v", err)
			}
			defer ptmx.Close()
			defer tty.Close()
			fd := int(tty.Fd())
			var before unix.Termios
			if err := termios(fd, getTermios, &before); err != nil {
				t.Fatal(err)
			}
			if tt.keys != "" {
				if _, err := ptmx.Write([]byte(tt.keys)); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			if tt.cancelCtx {
				cancel()
			}
			defer cancel()
			// The countdown writes to the terminal; the test reads the
			// screen side and types once the countdown is shown.
			screen := make(chan string, 1)
			go func() {
				var seen bytes.Buffer
				buf := make([]byte, 1024)
				for {
					n, err := ptmx.Read(buf)
					seen.Write(buf[:n])
					if tt.during != "" && strings.Contains(seen.String(), "take over") {
						ptmx.Write([]byte(tt.during))
						tt.during = ""
					}
					if err != nil || strings.Contains(seen.String(), "\r\x1b[K") {
						screen <- seen.String()
						return
					}
				}
			}()
			// A long delay when a key or the context must end it, so a
			// countdown that ignored them would be caught by the result.
			d := 30 * time.Second
			if tt.wantProceed && tt.during == "" {
				d = 200 * time.Millisecond
			}
			proceed, typed := ttyCountdown{term: &ttyTerminal{in: tty, out: tty}}.run(ctx, d)
			if proceed != tt.wantProceed || typed != tt.wantTyped {
				t.Errorf("run = %v, %q; want %v, %q", proceed, typed, tt.wantProceed, tt.wantTyped)
			}
			select {
			case got := <-screen:
				if !strings.Contains(got, "\rcontinuing in ") || !strings.Contains(got, "type to take over") {
					t.Errorf("screen %q: want the countdown line, then the line erased", got)
				}
			case <-time.After(10 * time.Second):
				t.Errorf("the countdown line was never erased")
			}
			var after unix.Termios
			if err := termios(fd, getTermios, &after); err != nil {
				t.Fatal(err)
			}
			if after != before {
				t.Errorf("terminal mode not restored:\n before %+v\n after  %+v", before, after)
			}
		})
	}
}

// suspendRecorder is the real terminal with Suspend counted instead of
// done: the test binary must not stop itself.
type suspendRecorder struct {
	*ttyTerminal
	suspends atomic.Int32
}

func (s *suspendRecorder) Suspend() { s.suspends.Add(1) }

// TestTTYCountdownCtrlZ: Ctrl-Z during the countdown suspends todosh, as
// at the prompt, instead of taking over; after the resume the countdown
// runs again, in its raw mode, and a key then takes over as ever.
func TestTTYCountdownCtrlZ(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	term := &suspendRecorder{ttyTerminal: &ttyTerminal{in: tty, out: tty}}
	go func() {
		var seen bytes.Buffer
		buf := make([]byte, 1024)
		keys := []string{"\x1a", "k"}
		for len(keys) > 0 {
			n, err := ptmx.Read(buf)
			if err != nil {
				return
			}
			seen.Write(buf[:n])
			if strings.Count(seen.String(), "take over") > 0 {
				ptmx.Write([]byte(keys[0]))
				keys = keys[1:]
				seen.Reset()
			}
		}
	}()
	proceed, typed := ttyCountdown{term: term}.run(context.Background(), 30*time.Second)
	if proceed || typed != "k" || term.suspends.Load() != 1 {
		t.Errorf("run = %v, %q after %d suspends; want false, \"k\" after 1", proceed, typed, term.suspends.Load())
	}
}
