package repl

import (
	"io"

	"github.com/todosh/todosh/agent"
)

// closeAgent ends an agent whose processes must not outlive todosh (an
// ACP agent keeps one process group for the whole run): the shell runs it
// when it ends, and signalExit before it exits on a signal.
func closeAgent(ag agent.Agent) {
	if c, ok := ag.(io.Closer); ok {
		c.Close()
	}
}
