package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// exitSignals end todosh, each with the name its line says: a kill, a
// closed terminal, Ctrl-\. Ctrl-C is not among them: it cancels the turn,
// never the shell.
var exitSignals = []struct {
	sig  syscall.Signal
	name string
}{
	{syscall.SIGTERM, "SIGTERM"},
	{syscall.SIGHUP, "SIGHUP"},
	{syscall.SIGQUIT, "SIGQUIT"},
}

// exitWait bounds how long an exit on a signal waits for the running
// prompt to end once cancelled: the agent's process group gets its grace
// period, then SIGKILL, and the backend returns only when it is gone.
const exitWait = 15 * time.Second

// signalCause is the cause of the shell's context when an exit signal
// cancelled it, so the turn it stops says nothing of a cancel (the exit's
// one line names the signal) and the JSONL stream ends with its status.
type signalCause struct {
	sig  syscall.Signal
	name string
}

func (c signalCause) Error() string { return "terminated by " + c.name }

// exitStatus is the conventional status of an exit on the signal.
func (c signalCause) exitStatus() int { return 128 + int(c.sig) }

// endedBySignal reports the exit signal that cancelled ctx, if one did.
func endedBySignal(ctx context.Context) (signalCause, bool) {
	var c signalCause
	ok := errors.As(context.Cause(ctx), &c)
	return c, ok
}

// signalExit ends the shell on one of exitSignals: it cancels the context
// every prompt runs under, which ends the running agent turn and the
// agent's whole process group, waits (up to exitWait) until the prompt has
// returned (busy is held while a line runs), puts the terminal back as it
// was, prints one line naming the signal and exits with the conventional
// status, 128 + the signal's number. Every change is saved by then: the
// store writes atomically and at once.
type signalExit struct {
	busy    sync.Mutex // held while a line runs
	restore func()     // puts the terminal back; set before Readline runs
	// beforeExit ends what must not outlive todosh (an ACP agent's
	// process group); nil: nothing.
	beforeExit func()
	// atPrompt reports whether readline shows the prompt now, so the
	// line starts below it; nil: never (a script).
	atPrompt func() bool
	// final sends the last event of --output jsonl, with the exit status;
	// nil in text.
	final  func(c signalCause)
	stderr io.Writer
	exit   func(int)
	fired  chan struct{} // closed when a signal arrived
}

// watch starts watching for exitSignals and returns the context lines run
// under; stop ends the watch.
func (e *signalExit) watch(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	e.fired = make(chan struct{})
	ch := make(chan os.Signal, 1)
	for _, s := range exitSignals {
		signal.Notify(ch, s.sig)
	}
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			c := causeOf(sig)
			close(e.fired)
			cancel(c)
			e.exitOn(c)
		case <-done:
		}
	}()
	return ctx, func() {
		select {
		case <-e.fired:
			select {} // the shell ends with the signal's status, in exitOn
		default:
		}
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// causeOf is the signalCause of one of exitSignals.
func causeOf(sig os.Signal) signalCause {
	for _, s := range exitSignals {
		if s.sig == sig {
			return signalCause{s.sig, s.name}
		}
	}
	n, _ := sig.(syscall.Signal)
	return signalCause{n, sig.String()}
}

// exitOn waits for the running line to end and exits for c.
func (e *signalExit) exitOn(c signalCause) {
	deadline := time.Now().Add(exitWait)
	for !e.busy.TryLock() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if e.beforeExit != nil {
		e.beforeExit()
	}
	newline := e.atPrompt != nil && e.atPrompt()
	if e.restore != nil {
		e.restore()
	}
	if e.final != nil {
		e.final(c)
	}
	lead := ""
	if newline {
		lead = "\n" // below the prompt readline shows
	}
	fmt.Fprintf(e.stderr, "%stodosh: %s: stopped the agent and exited; saved changes are kept\n", lead, c.Error())
	e.exit(c.exitStatus())
}
