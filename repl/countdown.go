package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"
)

// noCountdown says once that the countdown cannot run on this terminal.
var noCountdown sync.Once

// ctrlZ is the key that suspends a program at a Unix terminal.
const ctrlZ = 0x1a

// keyPoll is how long one read of the terminal waits for a key during the
// countdown; the line is redrawn between reads.
const keyPoll = 100 * time.Millisecond

// ttyCountdown is TurnRunner.Countdown on a terminal. It runs while
// readline is not reading, so it owns the terminal: it switches it to a
// raw mode whose reads return after keyPoll, and shows its line with
// show: in the live region's status line, or (show nil) rewritten in
// place on the terminal's last line.
type ttyCountdown struct {
	term Terminal
	show func(line string) // "" clears it
}

func (c ttyCountdown) showLine(line string) {
	if c.show != nil {
		c.show(line)
		return
	}
	io.WriteString(c.term.Output(), "\r"+line+"\x1b[K")
}

// run shows "continuing in Ns — type to take over" for d and returns
// proceed=true if no key was pressed. Ctrl-Z suspends todosh and the
// countdown starts again after fg. Any other key, Ctrl-C included, cancels;
// printable text typed is returned to start the person's next line. If the
// terminal cannot be put in raw mode the continuation goes ahead at once,
// as in a script.
func (c ttyCountdown) run(ctx context.Context, d time.Duration) (proceed bool, typed string) {
	restore, err := c.term.PollMode()
	if err != nil {
		// Said once a process, so the person knows why nothing waits
		// (Windows: no key read with a timeout).
		noCountdown.Do(func() {
			fmt.Fprintf(c.term.Output(), "todosh: no countdown before a continuation here (%v): it starts at once; Ctrl-C stops it\r\n", err)
		})
		return true, ""
	}
	defer func() { restore() }()
	defer c.showLine("")
	deadline := time.Now().Add(d)
	shown := ""
	buf := make([]byte, 64<<10) // room for a pasted block in one read
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return true, ""
		}
		if line := countdownLine(left); line != shown {
			c.showLine(line)
			shown = line
		}
		if ctx.Err() != nil {
			return false, ""
		}
		n, err := c.term.ReadKey(buf)
		switch {
		case n > 0 && buf[0] == ctrlZ:
			// Ctrl-Z stops todosh as it does at the prompt; after fg the
			// countdown starts again in its raw mode.
			restore()
			c.showLine("")
			c.term.Suspend()
			if restore, err = c.term.PollMode(); err != nil {
				restore = func() {}
				return false, ""
			}
			if n > 1 {
				return false, typedText(buf[1:n]) // keys typed after it take over
			}
			deadline, shown = time.Now().Add(d), ""
		case n > 0:
			return false, typedText(buf[:n])
		case errors.Is(err, syscall.EAGAIN):
			// A terminal left non-blocking by another program.
			time.Sleep(keyPoll)
		case err != nil && !errors.Is(err, syscall.EINTR):
			// The terminal is gone: do not run the agent unattended.
			return false, ""
		}
	}
}

// countdownLine is the countdown's text with the time left rounded up to
// whole seconds, so it never shows 0s.
func countdownLine(left time.Duration) string {
	secs := int((left + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	return fmt.Sprintf("continuing in %ds — type to take over", secs)
}

// typedText is what the person typed into the countdown, up to the first
// key that is neither printable nor Enter (a bracketed paste is text): each Enter ends a line ("\n"),
// so fast typing or a paste of several lines is not lost. Ctrl-C, arrows
// and other control keys cancel the countdown without leaving text.
func typedText(keys []byte) string {
	var b strings.Builder
	lineStart := 0
	for len(keys) > 0 {
		if bytes.HasPrefix(keys, []byte(pasteStart)) {
			// A bracketed paste is one block of the next line, its line
			// breaks marked as in the editor; it never runs by itself.
			keys = keys[len(pasteStart):]
			end := bytes.Index(keys, []byte(pasteEnd))
			if end < 0 {
				end = len(keys)
			}
			pasteText(&b, keys[:end])
			keys = keys[min(end+len(pasteEnd), len(keys)):]
			continue
		}
		r, n := utf8.DecodeRune(keys)
		keys = keys[n:]
		switch {
		case r == '\r' || r == '\n':
			if b.Len() > lineStart { // an empty line would do nothing
				b.WriteByte('\n')
				lineStart = b.Len()
			}
		case r == utf8.RuneError || !unicode.IsPrint(r):
			return b.String()
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
