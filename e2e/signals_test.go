//go:build linux || darwin

package e2e_test

import (
	"strings"
	"syscall"
	"testing"
)

// An exit signal during a turn (in a script, in --output jsonl, in a
// terminal) or during the countdown prints one line naming the signal,
// never "Ctrl-C", "turn cancelled" or "you took over"; the process exits
// with 128+signal, the JSONL stream's last event is an end event with that
// status, and no prompt is drawn on the way out.
func TestSignalNamedOnExit(t *testing.T) {
	skipIfShort(t, "waits for a fake agent to start")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		name := map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}[sig]
		for _, output := range []string{"text", "jsonl"} {
			t.Run("script/"+output+"/"+name, func(t *testing.T) {
				h := newHome(t)
				h.seedSession(t, "hang", h.dir)
				f := newFaultFake(t, h, "claude")
				setFakeEnv(t, map[string]string{"FAKECLI_MODE": "sleep", "FAKECLI_PIDFILE": f.pidFile})
				code, stdout, stderr := signalMidTurn(t, h, f, sig, "--session", "hang", "--agent", "claude", "--agent-bin", f.bin, "--output", output)
				want := 128 + int(sig)
				if code != want {
					t.Errorf("exit status %d, want %d", code, want)
				}
				lines := strings.Split(strings.TrimSpace(stderr), "\n")
				if len(lines) != 1 || !strings.HasPrefix(lines[0], "todosh: terminated by "+name+": ") {
					t.Errorf("stderr is not one line naming %s: %q", name, stderr)
				}
				for _, bad := range []string{"Ctrl-C", "turn cancelled", "cancelled"} {
					if strings.Contains(stdout+stderr, bad) {
						t.Errorf("output says %q:\nstdout %q\nstderr %q", bad, stdout, stderr)
					}
				}
				if output == "jsonl" {
					evs := parseJSONL(t, stdout)
					last := evs[len(evs)-1]
					if last.Type != "end" || last.Exit == nil || *last.Exit != want || last.Reason != "signal" {
						t.Errorf("last event %+v, want an end event with reason signal and exit %d", last, want)
					}
					ends := 0
					for _, ev := range evs {
						if ev.Type == "end" {
							ends++
						}
					}
					if ends != 1 {
						t.Errorf("%d end events, want 1:\n%s", ends, stdout)
					}
				}
				f.gone(t)
				h.assertList(t, "hang", "keep me")
			})
		}
	}
	t.Run("terminal/turn", func(t *testing.T) {
		h := newHome(t)
		h.seedSession(t, "hang", h.dir)
		f := newFaultFake(t, h, "claude")
		env := []string{"FAKECLI_MODE=sleep", "FAKECLI_PIDFILE=" + f.pidFile}
		tm := h.startProgram(t, binary, env, "--session", "hang", "--agent", "claude", "--agent-bin", f.bin)
		tm.expect("todosh 0/1 › ")
		tm.typ("work on it" + enter)
		tm.expect("work on it\n")
		f.started(t)
		tm.cmd.Process.Signal(syscall.SIGTERM)
		checkSignalExit(t, tm, "SIGTERM", 143)
		f.gone(t)
	})
	t.Run("terminal/countdown", func(t *testing.T) {
		h := newHome(t)
		tm := h.startSized(t, 80, 24, fakeshell, []string{"FAKESHELL_DELAY=60s", "NO_COLOR=1"})
		tm.expect("› ")
		tm.typ("go" + enter)
		tm.expect("continuing in")
		tm.cmd.Process.Signal(syscall.SIGHUP)
		checkSignalExit(t, tm, "SIGHUP", 129)
	})
}

// checkSignalExit waits for todosh to exit on the signal name and checks
// what it showed since the last match: the one line, nothing else of a
// cancel, no prompt.
func checkSignalExit(t *testing.T, tm *term, name string, want int) {
	t.Helper()
	shown := tm.expect("terminated by " + name)
	if code := tm.wait(); code != want {
		t.Errorf("exit status %d, want %d", code, want)
	}
	rest := tm.screen()[tm.mark-len(shown):]
	for _, bad := range []string{"Ctrl-C", "turn cancelled", "took over", "cancelled", "› "} {
		if strings.Contains(rest, bad) {
			t.Errorf("on the way out the screen shows %q:\n%s", bad, rest)
		}
	}
	if n := strings.Count(rest, "terminated by"); n != 1 {
		t.Errorf("the signal was named %d times:\n%s", n, rest)
	}
}
