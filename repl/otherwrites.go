package repl

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync/atomic"

	"github.com/todosh/todosh/todostore"
)

// liveView shows, while the shell runs in a terminal, the changes that
// other processes (a second todosh, an editor, a sync tool) make to the
// session file: a one-line notice, then the list once. Our own writes are
// recognised by the watcher and never echoed.
type liveView struct {
	out io.Writer // readline's stdout: whole lines redraw the prompt
	// render is the turn runner's renderer, so that a list shown here is
	// not shown again at the end of a turn, and the other way round.
	render *Renderer
	// setPrompt updates the prompt after a change; it is skipped while
	// the shell asks a question (the /todo list chooser) so that prompt
	// stays.
	setPrompt func(string)
	asking    *atomic.Bool
	lastGood  *atomic.Pointer[todostore.Session]
}

// run prints every change until changes is closed.
func (v liveView) run(changes <-chan todostore.Change) {
	for ch := range changes {
		v.show(ch)
	}
}

// show prints one change. An unusable file is reported in one line and the
// list shown before stays the last good one.
func (v liveView) show(ch todostore.Change) {
	switch {
	case errors.Is(ch.Err, fs.ErrNotExist):
		fmt.Fprintln(v.out, "todo list file was removed by another process; the next change starts it again")
	case ch.Err != nil:
		fmt.Fprintf(v.out, "todo list file changed but cannot be used: %v\n", ch.Err)
		if !v.asking.Load() {
			v.setPrompt(strings.Replace(promptText(v.lastGood.Load()), " ›", " (file unusable) ›", 1))
		}
	case ch.Session != nil:
		v.lastGood.Store(ch.Session)
		v.render.Changed(ch.Session.Todos, "todo list changed by another process:")
		if !v.asking.Load() {
			v.setPrompt(promptText(ch.Session))
		}
	}
}
