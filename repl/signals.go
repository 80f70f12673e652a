package repl

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// exitSignals end todosh: a kill, a closed terminal, Ctrl-\. Ctrl-C is not
// among them: it cancels the turn, never the shell.
var exitSignals = []os.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// exitWait bounds how long an exit on a signal waits for the running
// prompt to end once cancelled: the agent's process group gets its grace
// period, then SIGKILL, and the backend returns only when it is gone.
const exitWait = 15 * time.Second

// signalExit ends the shell on one of exitSignals: it cancels the context
// every prompt runs under, which ends the running agent turn and the
// agent's whole process group, waits (up to exitWait) until the prompt has
// returned (busy is held while a line runs), puts the terminal back as it
// was, and exits with the conventional status, 128 + the signal's number.
// Every change is saved by then: the store writes atomically and at once.
type signalExit struct {
	busy    sync.Mutex // held while a line runs
	restore func()     // puts the terminal back; set before Readline runs
	// beforeExit ends what must not outlive todosh (an ACP agent's
	// process group); nil: nothing.
	beforeExit func()
	stderr     io.Writer
	exit       func(int)
	fired      chan struct{} // closed when a signal arrived
}

// watch starts watching for exitSignals and returns the context lines run
// under; stop ends the watch.
func (e *signalExit) watch(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	e.fired = make(chan struct{})
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, exitSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			close(e.fired)
			cancel()
			e.exitOn(sig)
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
		cancel()
	}
}

// exitOn waits for the running line to end and exits for sig.
func (e *signalExit) exitOn(sig os.Signal) {
	deadline := time.Now().Add(exitWait)
	for !e.busy.TryLock() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if e.beforeExit != nil {
		e.beforeExit()
	}
	if e.restore != nil {
		e.restore()
	}
	n := 0
	if s, ok := sig.(syscall.Signal); ok {
		n = int(s)
	}
	fmt.Fprintf(e.stderr, "\ntodosh: %s: stopped the agent and exited; saved changes are kept\n", sig)
	e.exit(128 + n)
}
