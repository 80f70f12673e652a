package repl

import (
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/todosh/todosh/agent"
)

// killer is an agent with processes that must not outlive todosh (an ACP
// agent): Kill ends them at once, from any goroutine.
type killer interface{ Kill() }

// endAgent makes sure an agent's processes end with todosh: on SIGTERM and
// SIGHUP they are killed before todosh dies of the signal as it would
// have, and the returned func, run when the shell ends, closes the agent.
func endAgent(ag agent.Agent) (end func()) {
	k, ok := ag.(killer)
	if !ok {
		return func() {}
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			k.Kill()
			// Die of the signal, as without the handler.
			signal.Reset(sig)
			syscall.Kill(os.Getpid(), sig.(syscall.Signal))
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
		if c, ok := ag.(io.Closer); ok {
			c.Close()
		}
	}
}
