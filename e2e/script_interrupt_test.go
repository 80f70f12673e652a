package e2e_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/todosh/todosh/internal/testenv"
)

// Ctrl-C (SIGINT) during an agent turn of a script cancels the turn and
// stops the script: the next line does not run and the status is 1.
func TestScriptStopsOnCtrlC(t *testing.T) {
	testenv.NeedSignals(t)
	h := newHome(t)
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	fake := filepath.Join(dir, "claude")
	script := "#!/bin/sh\n" +
		`echo '{"type":"system","subtype":"init","session_id":"s-1"}'` + "\n" +
		"touch " + started + "\nexec sleep 60\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "--session", "stop", "--agent", "claude", "--agent-bin", fake)
	cmd.Env = h.env()
	cmd.Dir = h.dir
	cmd.Stdin = strings.NewReader("do the work\n/todo add after the prompt\n")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(deadline); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(end) {
			cmd.Process.Kill()
			t.Fatalf("the fake CLI never started; stderr %q", errOut.String())
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(deadline):
		cmd.Process.Kill()
		t.Fatal("todosh did not stop after SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit status %d, want 130 (cancelled)", code)
	}
	if !strings.Contains(out.String(), "turn cancelled") || !strings.Contains(errOut.String(), "stopped by Ctrl-C") {
		t.Errorf("stdout %q, stderr %q: want the turn cancelled and the script stopped", out.String(), errOut.String())
	}
	if sess, err := h.store().Load("stop"); err == nil && len(sess.Todos) > 0 {
		t.Errorf("the line after the cancelled prompt ran: %+v", sess.Todos)
	}
}
