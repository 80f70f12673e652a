package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/chzyer/readline"
	"github.com/todosh/todosh/commands"
	"github.com/todosh/todosh/todostore"
)

// interruptHint is printed when Ctrl-C is pressed on an empty line: the
// shell never exits on Ctrl-C, so it says how to.
const interruptHint = "(Ctrl-D or /quit to exit)"

// terminals returns stdin and stdout as files when both are terminals,
// which is when the shell is interactive.
func terminals(stdin io.Reader, stdout io.Writer) (in, out *os.File, ok bool) {
	in, okIn := stdin.(*os.File)
	out, okOut := stdout.(*os.File)
	if !okIn || !okOut || !readline.IsTerminal(int(in.Fd())) || !readline.IsTerminal(int(out.Fd())) {
		return nil, nil, false
	}
	return in, out, true
}

// interactive runs the readline loop until Ctrl-D on an empty line, /quit
// or /exit. One goroutine (this one) owns every Readline call and Close,
// because readline's Close hangs while another goroutine reads.
func (s *shell) interactive(ctx context.Context, in, out *os.File) int {
	history := s.store.HistoryPath()
	if err := privateHistory(history); err != nil {
		fmt.Fprintf(s.stderr, "todosh: history will not be saved: %v\n", err)
		history = ""
	}
	rl, err := readline.NewEx(&readline.Config{
		Prompt:            promptText(nil),
		HistoryFile:       history,
		HistorySearchFold: true,
		AutoComplete:      completer{complete: s.registry.Complete},
		Stdout:            out,
	})
	if err != nil {
		fmt.Fprintf(s.stderr, "todosh: start the terminal: %v\n", err)
		return ExitFailed
	}
	defer rl.Close()
	if history != "" {
		// readline's rewrite of a long history goes through history.tmp,
		// which privateHistory made 0600; whatever is left of it goes.
		os.Remove(history + ".tmp")
	}
	stop := ignoreInterrupts()
	defer stop()

	s.runner.Out, s.runner.Err = rl.Stdout(), rl.Stderr()
	s.runner.render = NewRenderer(s.runner.Out)
	s.runner.render.InPlace = true // the agent's status is one line rewritten in place

	// The watcher must hook the store before anything else uses it.
	var asking atomic.Bool
	if w, err := s.store.Watch(s.id); err != nil {
		fmt.Fprintf(s.stderr, "todosh: changes from other processes will not be shown: %v\n", err)
	} else {
		defer w.Close()
		view := liveView{out: rl.Stdout(), render: s.runner.render, asking: &asking, lastGood: &s.lastGood, setPrompt: func(p string) {
			rl.SetPrompt(p)
			rl.Refresh()
		}}
		go view.run(w.Changes())
	}

	// Writes through readline redraw the prompt when it is shown.
	s.env.Out, s.env.Err = rl.Stdout(), rl.Stderr()
	s.env.LastGood = s.lastGood.Load
	ask := askWith(rl)
	s.env.Ask = func(prompt string) (string, error) {
		asking.Store(true)
		defer asking.Store(false)
		return ask(prompt)
	}
	s.runner.Countdown = ttyCountdown{fd: int(in.Fd()), out: out}.run
	s.runner.Ask = ttyAsk{fd: int(in.Fd()), out: out}.ask

	fmt.Fprintf(s.env.Out, "todosh session %s — type /help for commands, Ctrl-D to quit\n", s.id)
	if _, err := s.store.LoadOrNew(s.id); err != nil {
		fmt.Fprintf(s.env.Err, "todosh: %v\n", err)
	}
	// Keys typed during a countdown: whole lines (ended by Enter) run next,
	// as if typed at the prompt; the rest starts the next line read.
	var typedLines []string
	typed := ""
	for {
		prompt := s.prompt()
		rl.SetPrompt(prompt)
		var line string
		var err error
		if len(typedLines) > 0 {
			line, typedLines = typedLines[0], typedLines[1:]
			fmt.Fprintf(s.env.Out, "%s%s\n", prompt, line)
			rl.SaveHistory(line)
		} else {
			line, err = rl.ReadlineWithDefault(typed)
			typed = ""
		}
		if errors.Is(err, readline.ErrInterrupt) {
			// readline has already dropped a typed line; an empty one gets
			// the hint instead of an exit.
			if strings.TrimSpace(line) == "" {
				fmt.Fprintln(s.env.Out, interruptHint)
			}
			continue
		}
		if err != nil { // io.EOF: Ctrl-D on an empty line
			return ExitOK
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		restore := func() {}
		if !commands.IsCommand(line) {
			restore = noEchoMode(int(in.Fd()))
		}
		more, quit, _ := s.exec(ctx, line)
		restore()
		if quit {
			return ExitOK
		}
		if more != "" {
			parts := strings.Split(more, "\n")
			typedLines = append(typedLines, parts[:len(parts)-1]...)
			typed = parts[len(parts)-1]
		}
	}
}

// prompt is the prompt for the session as it is on disk now, so changes
// by commands, the agent or another process all show.
// While the file cannot be used the last good progress stays, marked.
func (s *shell) prompt() string {
	sess, err := s.store.LoadOrNew(s.id)
	if err != nil {
		return strings.Replace(promptText(s.lastGood.Load()), " ›", " (file unusable) ›", 1)
	}
	s.lastGood.Store(sess)
	return promptText(sess)
}

// askWith returns the Env.Ask of a terminal: one line read with the
// shell's readline under another prompt, kept out of the history. Enter
// and Ctrl-C both answer "" (cancel); Ctrl-D returns io.EOF.
func askWith(rl *readline.Instance) func(string) (string, error) {
	return func(prompt string) (string, error) {
		rl.SetPrompt(prompt)
		rl.HistoryDisable()
		defer rl.HistoryEnable()
		line, err := rl.Readline()
		if errors.Is(err, readline.ErrInterrupt) {
			return "", nil
		}
		return strings.TrimSpace(line), err
	}
}

// ignoreInterrupts keeps SIGINT from killing the shell outside readline
// (during a slow command, between two reads); each agent turn still gets
// its own SIGINT through signal.NotifyContext. The returned func undoes it.
func ignoreInterrupts() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// privateHistory makes every line typed readable by its owner only: the
// store root is private, and the history file and the temp file readline
// rewrites it through exist with mode 0600 before readline opens them
// (readline creates files 0666 and keeps the mode of an existing one). A
// history file that is a symlink is refused rather than followed.
func privateHistory(path string) error {
	if err := todostore.EnsurePrivateDir(filepath.Dir(path)); err != nil {
		return err
	}
	if err := todostore.PrivateFile(path); err != nil {
		return err
	}
	return todostore.PrivateFile(path + ".tmp")
}
