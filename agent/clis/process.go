package clis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/todosh/todosh/internal/procgroup"
)

// outputLinger is how long todosh keeps reading after the CLI exited, in
// case a process it left behind still holds its standard output.
const outputLinger = 500 * time.Millisecond

// runOut is what a run leaves besides its updates.
type runOut struct {
	stderr string // the start and end of the CLI's standard error
}

// run starts the CLI with stdin as its standard input, feeds its output to
// parser, and waits for it. When ctx ends it ends the CLI's whole process
// group: SIGTERM, then SIGKILL after the grace period. Whatever the CLI
// left behind in its group when it exited is ended the same way, so no
// process of a turn outlives it. It returns only when the group is gone.
func (a *cliAgent) run(ctx context.Context, args []string, stdin string, parser Parser, handle func(Update)) (runOut, error) {
	var out runOut
	path, err := exec.LookPath(a.cfg.Bin)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return out, fmt.Errorf("%s: %s not found (install it, or name it with --agent-bin PATH)", a.kind, a.cfg.Bin)
		}
		return out, fmt.Errorf("%s: %w", a.kind, err)
	}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return out, fmt.Errorf("%s: %w", a.kind, err)
	}
	defer pr.Close()
	stderr := &stderrBuffer{max: 8 << 10, trouble: make(chan string, 16)}
	cmd := exec.Command(path, args...)
	cmd.Dir = a.cfg.Dir
	cmd.Env = a.cfg.Env
	// The prompt goes on stdin: never on the command line, where other
	// users can read it and one argument is limited to 128 KiB.
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout = pw
	cmd.Stderr = stderr
	// Wait returns this long after the CLI exits even if something it left
	// behind still holds its standard error open.
	cmd.WaitDelay = outputLinger
	if err := procgroup.Start(cmd, false); err != nil {
		pw.Close()
		return out, fmt.Errorf("%s: start %s: %w", a.kind, a.cfg.Bin, err)
	}
	pw.Close()
	pgid := cmd.Process.Pid
	defer procgroup.Release(pgid)

	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
		// Unblock a read that waits on a pipe a stray process still holds.
		_ = pr.SetReadDeadline(time.Now().Add(outputLinger))
	}()
	finished := make(chan struct{})
	var killer sync.WaitGroup
	killer.Add(1)
	go func() {
		defer killer.Done()
		select {
		case <-ctx.Done():
			killGroup(pgid, a.cfg.KillGrace)
		case <-finished:
		}
	}()

	readErr := a.read(&outputReader{f: pr, exited: exited}, parser, stderr.trouble, handle)
	<-exited
	close(finished)
	killer.Wait()
	if procgroup.Alive(pgid) {
		killGroup(pgid, a.cfg.KillGrace) // what the CLI forked and left behind
	}
	out.stderr = stderr.String()

	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	if readErr != nil {
		return out, fmt.Errorf("%s: read output: %w", a.kind, readErr)
	}
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		// The CLI's own error event, when it sent one, says more than this.
		return out, &exitError{cli: a.kind, status: ee.ProcessState.String(), stderr: stderr.meaningfulLine()}
	}
	if waitErr != nil && !errors.Is(waitErr, exec.ErrWaitDelay) {
		return out, fmt.Errorf("%s: %w", a.kind, waitErr)
	}
	return out, nil
}

// read parses the CLI's output and hands each update to handle, together
// with the trouble lines of its standard error as statuses, all on this
// goroutine (agent.Agent emits from the caller's goroutine only). It
// returns ParseStream's error when the output ends.
//
// Updates own their memory (texts are strings encoding/json made), so
// the parser may run ahead by a buffer's worth: fewer goroutine handoffs.
func (a *cliAgent) read(r io.Reader, parser Parser, trouble <-chan string, handle func(Update)) error {
	updates := make(chan Update, 64)
	done := make(chan error, 1)
	go func() {
		done <- ParseStream(r, a.kind, parser, func(u Update) { updates <- u })
	}()
	for {
		select {
		case u := <-updates:
			handle(u)
		case line := <-trouble:
			handle(Update{Kind: UpdateStatus, Text: line})
		case err := <-done:
			for { // what the parser sent before it ended, in order
				select {
				case u := <-updates:
					handle(u)
				default:
					return err
				}
			}
		}
	}
}

// outputReader reads a CLI's standard output. Once the CLI has exited it
// reads on until the pipe is empty and idle for outputLinger, so output
// still buffered is never cut, while a process the CLI left behind holding
// the pipe cannot keep the turn open.
type outputReader struct {
	f      *os.File
	exited <-chan struct{}
}

func (r *outputReader) Read(p []byte) (int, error) {
	select {
	case <-r.exited:
		_ = r.f.SetReadDeadline(time.Now().Add(outputLinger))
	default:
	}
	n, err := r.f.Read(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return n, io.EOF
	}
	return n, err
}

// exitError is a CLI that ended with a non-zero status or a signal.
type exitError struct {
	cli, status, stderr string
}

func (e *exitError) Error() string {
	if e.stderr == "" {
		return e.cli + ": " + e.status
	}
	return e.cli + ": " + e.status + ": " + e.stderr
}

// killGroup ends process group pgid: SIGTERM, then SIGKILL once grace has
// passed with members still alive. It returns when no member is running.
func killGroup(pgid int, grace time.Duration) {
	procgroup.Terminate(pgid)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if !procgroup.Alive(pgid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	procgroup.Kill(pgid)
	for i := 0; i < 500 && procgroup.Alive(pgid); i++ {
		time.Sleep(10 * time.Millisecond)
	}
}
