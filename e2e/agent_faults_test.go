//go:build linux || darwin

package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// faultFake is a fake CLI set up to misbehave: its pid file and the pids
// it wrote there once it and the child it forked were running.
type faultFake struct {
	bin, pidFile string
	pid, child   int
}

func newFaultFake(t *testing.T, h home, kind string) *faultFake {
	t.Helper()
	f := &faultFake{bin: filepath.Join(fakeCLIDir(t), kind), pidFile: filepath.Join(h.dir, "cli.pids")}
	t.Cleanup(func() {
		// Only if todosh failed to end them: they would run for an hour.
		for _, p := range []int{f.pid, f.child} {
			if p > 0 && !processGone(p) {
				syscall.Kill(p, syscall.SIGKILL)
			}
		}
	})
	return f
}

// started waits until the fake and its child run.
func (f *faultFake) started(t *testing.T) {
	t.Helper()
	waitFor(t, "the fake CLI to start", func() bool {
		data, err := os.ReadFile(f.pidFile)
		if err != nil {
			return false
		}
		_, err = fmt.Sscan(string(data), &f.pid, &f.child)
		return err == nil
	})
}

// gone checks that the fake's whole process group has ended.
func (f *faultFake) gone(t *testing.T) {
	t.Helper()
	if f.pid == 0 {
		f.started(t)
	}
	waitFor(t, fmt.Sprintf("the CLI %d and its child %d to end", f.pid, f.child), func() bool {
		return processGone(f.pid) && processGone(f.child)
	})
	if err := syscall.Kill(-f.pid, 0); err == nil && !processGone(f.pid) {
		t.Errorf("process group %d still has members", f.pid)
	}
}

// signalMidTurn runs todosh with args as a script given one prompt, sends
// it sig once the fake agent has started, and returns how it exited.
func signalMidTurn(t *testing.T, h home, f *faultFake, sig syscall.Signal, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env, cmd.Dir = h.env(), h.dir
	cmd.Stdin = strings.NewReader("work on it\n")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	f.started(t)
	cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(3 * deadline):
		cmd.Process.Kill()
		t.Fatalf("todosh did not exit on %v", sig)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// TestAgentExitSignalsEndProcessGroup kills todosh in the middle of a turn
// with SIGTERM, SIGHUP and SIGQUIT, in a script and in a terminal, and by
// closing its terminal: each time the agent's whole process group (a CLI
// and a child, both ignoring SIGTERM) is gone afterwards, todosh exits
// with 128+signal, and the list is as it was.
func TestAgentExitSignalsEndProcessGroup(t *testing.T) {
	skipIfShort(t, "waits out signal grace periods")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run("script/"+sig.String(), func(t *testing.T) {
			h := newHome(t)
			before := h.seedSession(t, "hang", h.dir)
			f := newFaultFake(t, h, "claude")
			setFakeEnv(t, map[string]string{"FAKECLI_MODE": "sleep", "FAKECLI_PIDFILE": f.pidFile, "FAKECLI_IGNORE_TERM": "1"})
			code, _, stderr := signalMidTurn(t, h, f, sig, "--session", "hang", "--agent", "claude", "--agent-bin", f.bin)
			if code != 128+int(sig) {
				t.Errorf("exit status %d, want %d; stderr %q", code, 128+int(sig), stderr)
			}
			f.gone(t)
			if !strings.Contains(stderr, "stopped the agent and exited") {
				t.Errorf("stderr %q", stderr)
			}
			if after := h.sessionBytes(t, "hang"); !sameTodos(after, before) {
				t.Errorf("the session changed:\n%s", after)
			}
		})
	}
	for _, how := range []string{"SIGTERM", "closed terminal"} {
		t.Run("terminal/"+how, func(t *testing.T) {
			h := newHome(t)
			h.seedSession(t, "hang", h.dir)
			f := newFaultFake(t, h, "claude")
			env := []string{"FAKECLI_MODE=sleep", "FAKECLI_PIDFILE=" + f.pidFile, "FAKECLI_IGNORE_TERM=1"}
			tm := h.startClosable(t, env, "--session", "hang", "--agent", "claude", "--agent-bin", f.bin)
			tm.expect("todosh 0/1 › ")
			tm.typ("work on it" + enter)
			tm.expect("work on it\n")
			f.started(t)
			want := 128 + int(syscall.SIGTERM)
			if how == "SIGTERM" {
				tm.cmd.Process.Signal(syscall.SIGTERM)
				tm.expect("stopped the agent and exited")
			} else {
				want = 128 + int(syscall.SIGHUP)
				tm.tty.Close() // the last reference to the master: the kernel hangs up
			}
			if code := tm.wait(); code != want {
				t.Errorf("exit status %d, want %d", code, want)
			}
			f.gone(t)
			h.assertList(t, "hang", "keep me")
		})
	}
}

// TestAgentFaultsThroughBinary drives the built binary with fake CLIs
// that retry forever, reconnect forever, fall silent, exit after a usage
// message, and leave a child that ignores SIGTERM behind a finished turn.
func TestAgentFaultsThroughBinary(t *testing.T) {
	skipIfShort(t, "waits out idle and retry limits")
	cases := []struct {
		name, kind string
		env        map[string]string
		args       []string
		code       int
		stderr     string // what the one error line says
		stdout     string
		group      bool // the fake forks a child: its group must be gone
	}{
		{"retries forever", "claude", map[string]string{"FAKECLI_MODE": "retry", "FAKECLI_LINE_DELAY": "1ms"}, nil, 1,
			`agent error: claude: 30 retries or reconnects in a row, stopped; last it said: "API retry 30/10 in 0.6s: unknown"`, "  status: API retry 1/10 in 0.6s: unknown\n", true},
		{"reconnects forever", "codex", map[string]string{"FAKECLI_MODE": "retry", "FAKECLI_LINE_DELAY": "1ms"}, nil, 1,
			`agent error: codex: 30 retries or reconnects in a row, stopped; last it said: "Reconnecting...`, "  status: Reconnecting... 2/5", true},
		{"falls silent", "gemini", map[string]string{"FAKECLI_MODE": "sleep"}, []string{"--idle-limit", "500ms"}, 1,
			"agent error: gemini: no output for 500ms, stopped (it said nothing)", "", true},
		{"usage message", "qwen", map[string]string{"FAKECLI_MODE": "fail", "FAKECLI_STDERR": "Usage: qwen [options]\n\nUnknown argument: verbose\n  -h, --help  Show help  [boolean]\n"}, nil, 1,
			"agent error: qwen: exit status 3: Unknown argument: verbose", "", false},
		{"leaves a child behind", "gemini", map[string]string{"FAKECLI_MODE": "stray", "FAKECLI_RUN1": mustAbs(t, filepath.Join(clisTestdata, "transcripts", "gemini", "gemini-run1.jsonl"))}, []string{"--no-continue"}, 3, // stopped with open items
			"", "I'll stop here for now.", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHome(t)
			before := h.seedSession(t, "fault", h.dir)
			f := newFaultFake(t, h, c.kind)
			env := map[string]string{"FAKECLI_PIDFILE": f.pidFile, "FAKECLI_IGNORE_TERM": "1"}
			for k, v := range c.env {
				env[k] = v
			}
			setFakeEnv(t, env)
			args := append([]string{"--session", "fault", "--agent", c.kind, "--agent-bin", f.bin}, c.args...)
			r := h.script(t, h.dir, "work on it\n", args...)
			if r.code != c.code {
				t.Errorf("exit status %d, want %d; stderr %q", r.code, c.code, r.stderr)
			}
			if c.stderr != "" && (!strings.Contains(r.stderr, c.stderr) || countLines(r.stderr) != 1) {
				t.Errorf("stderr %q, want one line with %q", r.stderr, c.stderr)
			}
			if !strings.Contains(r.stdout, c.stdout) {
				t.Errorf("stdout lacks %q:\n%s", c.stdout, r.stdout)
			}
			if c.group {
				f.gone(t)
			}
			if c.code == 1 { // a failed turn
				if after := h.sessionBytes(t, "fault"); !sameTodos(after, before) {
					t.Errorf("the list changed:\n%s", after)
				}
				if strings.Contains(r.stdout, "continuing") {
					t.Errorf("a failed turn was continued:\n%s", r.stdout)
				}
			}
		})
	}
}

// startClosable is startProgram with a terminal the test can close for
// real. startProgram's master is in blocking mode (pty.StartWithSize sets
// the size through its Fd), so closing it waits for the pending read and
// the kernel never hangs up; here the size is set on the slave and the
// master stays with Go's poller, whose Close ends the read at once.
func (h home) startClosable(t *testing.T, env []string, args ...string) *term {
	t.Helper()
	skipIfShort(t, "a pseudo-terminal test")
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	if err := pty.Setsize(slave, &pty.Winsize{Rows: 40, Cols: 120}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, args...)
	cmd.Env, cmd.Dir = append(h.env(), env...), h.dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	// pty.Open put the master in blocking mode; a non-blocking copy goes
	// to the poller, and the original is closed at once.
	fd, err := syscall.Dup(int(master.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	master.Close()
	if err := syscall.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	return watchTerm(t, cmd, os.NewFile(uintptr(fd), "ptmx"))
}

// TestAgentQwenAndPi drives --agent qwen and --agent pi through the built
// binary with fakes replaying streams written from their source: a lazy
// first turn, a continuation that resumes the agent's own session and
// finishes the list, the prompt on stdin and never on the command line.
func TestAgentQwenAndPi(t *testing.T) {
	cases := []struct {
		kind, session string
		resumeArgs    []string
	}{
		{"qwen", "7c1f2b0e-3d4a-4f5b-9c6d-1e2f3a4b5c6d", []string{"--resume"}},
		{"pi", "0193f2a4-5b6c-7d8e-9f00-112233445566", []string{"--session"}},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			h := newHome(t)
			record := filepath.Join(h.dir, "cli-runs.jsonl")
			setFakeEnv(t, map[string]string{
				"FAKECLI_RUN1":    mustAbs(t, filepath.Join(clisTestdata, "fake", c.kind+"-run1.jsonl")),
				"FAKECLI_RESUME":  mustAbs(t, filepath.Join(clisTestdata, "fake", c.kind+"-resume.jsonl")),
				"FAKECLI_SESSION": c.session,
				"FAKECLI_RECORD":  record,
			})
			const prompt = "Plan and start building csvkit-lite"
			r := h.script(t, h.dir, "", "--agent", c.kind, "--agent-bin", filepath.Join(fakeCLIDir(t), c.kind), "-c", prompt)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
			}
			if !strings.Contains(r.stdout, "continuing 1/3") || !strings.HasSuffix(r.stdout, "\nall done\n") {
				t.Errorf("want a continuation and then all done; output:\n%s", r.stdout)
			}
			runs := readCLIRuns(t, record)
			if len(runs) != 2 || hasArgs(runs[0].Argv, c.resumeArgs...) || !hasArgs(runs[1].Argv, append(c.resumeArgs, c.session)...) {
				t.Fatalf("runs %+v", runs)
			}
			if !strings.Contains(runs[0].Stdin, prompt) || strings.Contains(strings.Join(runs[0].Argv, " "), prompt) {
				t.Errorf("prompt not on stdin only: argv %q, stdin %q", runs[0].Argv, runs[0].Stdin)
			}
			sess := h.onlySession(t)
			if !todolist.AllDone(sess.Todos) || len(sess.Todos) != 3 || sess.Agent == nil || sess.Agent.Session != c.session {
				t.Errorf("session %+v:\n%s", sess.Agent, todoview.FormatList(sess.Todos))
			}
		})
	}
}

// TestAgentStatusInPlace: in a terminal, a CLI that reconnects over and
// over shows its status in the live region's status line, rewritten in
// place (every earlier one is erased, none stays in the scrollback), and
// then the one line that stops it.
func TestAgentStatusInPlace(t *testing.T) {
	h := newHome(t)
	h.seedSession(t, "st", h.dir)
	f := newFaultFake(t, h, "codex")
	env := []string{"FAKECLI_MODE=retry", "FAKECLI_PIDFILE=" + f.pidFile, "FAKECLI_LINE_DELAY=5ms"}
	tm := h.startProgram(t, binary, env, "--session", "st", "--agent", "codex", "--agent-bin", f.bin)
	tm.expect("todosh 0/1 › ")
	tm.typ("go" + enter)
	tm.expect("30 retries or reconnects in a row, stopped")
	tm.expect("todosh 0/1 › ")
	// What stays on the screen has no status line; the output shows each
	// status in turn.
	if screen := tm.vtScreen(); strings.Contains(screen, "· Reconnecting") {
		t.Errorf("a status line was left on the screen:\n%s", screen)
	}
	if n := strings.Count(tm.rawText(), "· Reconnecting... 2/5"); n < 1 {
		t.Errorf("the statuses were not shown in turn")
	}
	f.gone(t)
	tm.quit()
}

// TestExitSignalAtPrompt: SIGTERM while readline waits at the prompt (the
// terminal in raw mode) exits at once with 143 and the terminal back in
// its normal mode.
func TestExitSignalAtPrompt(t *testing.T) {
	h := newHome(t)
	tm := h.startTerm(t, "--session", "idle")
	tm.expect("todosh › ")
	tm.cmd.Process.Signal(syscall.SIGTERM)
	tm.expect("stopped the agent and exited")
	if code := tm.wait(); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit status %d, want 143", code)
	}
	mode, e := unix.IoctlGetTermios(int(tm.tty.Fd()), getTermios)
	if e != nil {
		t.Skipf("read the terminal mode: %v", e)
	}
	if mode.Lflag&unix.ICANON == 0 || mode.Lflag&unix.ECHO == 0 {
		t.Errorf("terminal left in raw mode: lflag %#x", mode.Lflag)
	}
}
