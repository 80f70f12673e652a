package repl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
)

// maxScriptLine is the longest script line read; a longer one stops the
// script with an error rather than being cut. It is far above every limit
// of a command, so such lines get the command's own error first.
const maxScriptLine = 4 << 20

// lineSource yields the lines of a script one at a time; ok is false at
// the end, and err is set if reading failed.
type lineSource func() (line string, ok bool, err error)

// sliceLines yields the -c commands in order.
func sliceLines(lines []string) lineSource {
	i := 0
	return func() (string, bool, error) {
		if i >= len(lines) {
			return "", false, nil
		}
		i++
		return lines[i-1], true, nil
	}
}

// scanLines yields the lines of r. It reads no further than the line it
// returns, so a command that reads stdin itself would see the rest.
func scanLines(r io.Reader) lineSource {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxScriptLine)
	n := 0
	return func() (string, bool, error) {
		n++
		if sc.Scan() {
			return sc.Text(), true, nil
		}
		err := sc.Err()
		if errors.Is(err, bufio.ErrTooLong) {
			return "", false, fmt.Errorf("line %d of stdin is longer than %d MiB, the longest line todosh reads: the script stopped before it; split it into shorter lines, or put the text in a file and name the file in the prompt", n, maxScriptLine>>20)
		}
		if err != nil {
			return "", false, fmt.Errorf("read stdin: %w", err)
		}
		return "", false, nil
	}
}

// runScript runs every line as if typed, with no prompt, banner, history
// or countdown, and goes on after a failed line. The status is ExitFailed
// if any line failed, else says how the last prompt ended (ExitFor); /quit
// stops the script there, Ctrl-C during a turn too (ExitCancelled).
func (s *shell) runScript(ctx context.Context, next lineSource) int {
	failed := false
	lastEnd := ""
	status := func() int {
		switch {
		case failed:
			return ExitFailed
		case lastEnd != "":
			return ExitFor(lastEnd)
		}
		return ExitOK
	}
	for {
		raw, ok, err := next()
		if err != nil {
			fmt.Fprintf(s.stderr, "todosh: %v\n", err)
			return ExitFailed
		}
		if !ok {
			return status()
		}
		line, run := scriptLine(raw)
		if !run {
			continue
		}
		prompts := s.runner.Prompts
		_, quit, err := s.exec(ctx, line)
		if quit {
			return status()
		}
		if s.runner.Prompts != prompts { // a prompt, or /todo budget +N that continued one
			lastEnd = s.runner.LastEnd
		}
		if _, ok := endedBySignal(ctx); ok {
			return ExitFailed // not reached: exitOn exits with the signal's status
		}
		if errors.Is(err, context.Canceled) {
			// Ctrl-C ended a turn: the person wants the script stopped,
			// not its next line run.
			fmt.Fprintln(s.stderr, "todosh: script stopped by Ctrl-C")
			return ExitCancelled
		}
		if err != nil {
			failed = true
		}
	}
}
