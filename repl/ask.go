package repl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent"
)

// errNoAnswer is Ask's error when the person pressed Ctrl-C or Escape, or
// the terminal went away: the backend treats it as a refusal.
var errNoAnswer = errors.New("no answer")

// ttyAsk is TurnRunner.Ask on a terminal: the question on one line with
// the options by key, and one key read in raw mode (as the countdown
// does), during an agent turn, while readline is not reading. out is the
// live region: the question goes above it, and its status line says
// "waiting for permission" until the key.
type ttyAsk struct {
	term Terminal
	out  *liveRegion
}

// ask shows q and waits for the key of an option: 1-9 pick one, Ctrl-C
// or Escape give no answer. Other keys are ignored.
func (a ttyAsk) ask(ctx context.Context, q agent.Question) (int, error) {
	restore, err := a.term.PollMode()
	if err != nil {
		// Windows: no key read with a timeout, so the question is shown
		// and refused in one line that says why.
		fmt.Fprintf(a.out, "%s\ntodosh: cannot read an answer key here (%v): refused; --approve always allows such requests\n", questionLine(q), err)
		return 0, fmt.Errorf("ask: %w", err)
	}
	defer restore()
	fmt.Fprintf(a.out, "%s\n", questionLine(q))
	a.out.SetActivity("waiting for permission")
	defer a.out.SetActivity("")
	buf := make([]byte, 16)
	for {
		if ctx.Err() != nil {
			return 0, errNoAnswer
		}
		n, err := a.term.ReadKey(buf)
		switch {
		case n > 0:
			for _, k := range buf[:n] {
				switch {
				case k == 3 || k == 27: // Ctrl-C, Escape
					return 0, errNoAnswer
				case k >= '1' && int(k-'1') < len(q.Options):
					return int(k - '1'), nil
				}
			}
		case errors.Is(err, syscall.EAGAIN):
			time.Sleep(keyPoll)
		case err != nil && !errors.Is(err, syscall.EINTR):
			return 0, errNoAnswer
		}
	}
}

// questionLine is the question and its options on one line:
// `claude asks: run "ls" — [1] Allow [2] Always allow [3] Reject (Ctrl-C: no)`.
func questionLine(q agent.Question) string {
	var b strings.Builder
	b.WriteString(todolist.ShortLine(q.Text, 120))
	b.WriteString(" —")
	for i, o := range q.Options {
		fmt.Fprintf(&b, " [%d] %s", i+1, todolist.ShortLine(o, 40))
	}
	b.WriteString(" (Ctrl-C: no)")
	return b.String()
}
