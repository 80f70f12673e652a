package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/internal/procgroup"
)

// initializes counts the initialize calls the fake agent received: one
// per start of the inner agent.
func (r acpRun) initializes(t *testing.T) int {
	t.Helper()
	return strings.Count(r.received(t), `"method":"initialize"`)
}

// initOnly sends the editor's initialize alone; todosh answers once its
// probe of the inner agent is over.
func (e *editor) initOnly() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if _, err := e.conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
}

// newSessionIn opens a new session in cwd, initialize already sent.
func (e *editor) newSessionIn(cwd string) acp.SessionId {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	s, err := e.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}})
	if err != nil {
		e.t.Fatalf("session/new: %v", err)
	}
	return s.SessionId
}

// TestACPServeProbeIsFirstSession: the inner agent todosh starts at the
// editor's initialize (to learn its MCP transports) is the one the first
// session/new uses: one start for an editor that opens one session; a
// second session gets a process of its own.
func TestACPServeProbeIsFirstSession(t *testing.T) {
	r := newACP(t)
	pidFile := filepath.Join(r.h.dir, "agent.pid")
	e := startEditor(t, r.h, append(r.env, "FAKEACP_PID="+pidFile), "--", fakeacp)
	e.initOnly()
	probed := readPid(t, pidFile)
	id := e.newSessionIn(r.h.dir)
	e.mustPrompt(id, "[[plan]] build")
	e.waitFor("the plan", func() bool { return e.lastPlanHas("Write unit tests for the parser") })
	if n := r.initializes(t); n != 1 {
		t.Errorf("%d initialize calls for one session, want 1 (the probe's process is the session's)", n)
	}
	if got := readPid(t, pidFile); got != probed || !alive(probed) {
		t.Errorf("the session's agent is pid %d, want the probed %d, running", got, probed)
	}
	s, err := r.h.store().Load(string(id))
	if err != nil || s.Agent == nil || s.Agent.Session == "" {
		t.Errorf("session %s keeps no agent session: %+v %v", id, s.Agent, err)
	}

	id2 := e.newSessionIn(r.h.dir)
	e.mustPrompt(id2, "hello two")
	if !strings.Contains(e.text(), "echo: hello two") {
		t.Errorf("second session did not answer:\n%s", e.text())
	}
	if n := r.initializes(t); n != 2 {
		t.Errorf("%d initialize calls for two sessions, want 2 (a second session has its own process)", n)
	}
	e.mustPrompt(id, "hello one")
	if !strings.Contains(e.text(), "echo: hello one") || r.initializes(t) != 2 {
		t.Errorf("the first session lost its agent: %d initialize calls\n%s", r.initializes(t), e.text())
	}
}

// TestACPServeProbeNoSession: an editor that initializes and never opens
// a session leaves no process behind when its stdin ends.
func TestACPServeProbeNoSession(t *testing.T) {
	r := newACP(t)
	pidFile := filepath.Join(r.h.dir, "agent.pid")
	e := startEditor(t, r.h, append(r.env, "FAKEACP_PID="+pidFile), "--", fakeacp)
	e.initOnly()
	pid := readPid(t, pidFile)
	if !procgroup.Alive(pid) {
		t.Fatalf("the probed agent (pid %d) is not waiting for a session", pid)
	}
	e.in.Close()
	<-e.done
	waitGone(t, "the probed agent", pid)
	if procgroup.Alive(pid) {
		t.Errorf("the probed agent's process group %d outlived todosh acp", pid)
	}
	if n := r.initializes(t); n != 1 {
		t.Errorf("%d initialize calls, want 1", n)
	}
}

// TestACPServeProbeDied: a probed agent that dies before the session/new
// is replaced by a fresh start there; a session/new in another directory
// or a session/load does not get the probed agent (it runs in todosh's
// directory, under its own session id), which is ended then.
func TestACPServeProbeDied(t *testing.T) {
	t.Run("died", func(t *testing.T) {
		r := newACP(t)
		pidFile := filepath.Join(r.h.dir, "agent.pid")
		e := startEditor(t, r.h, append(r.env, "FAKEACP_PID="+pidFile), "--", fakeacp)
		e.initOnly()
		pid := readPid(t, pidFile)
		killProcess(pid)
		waitGone(t, "the killed agent", pid)
		id := e.newSessionIn(r.h.dir)
		e.mustPrompt(id, "still there")
		if !strings.Contains(e.text(), "echo: still there") {
			t.Errorf("no fresh agent after the probed one died:\n%s", e.text())
		}
		if n := r.initializes(t); n != 2 {
			t.Errorf("%d initialize calls, want 2 (the probe, then a fresh start)", n)
		}
	})
	t.Run("other directory", func(t *testing.T) {
		r := newACP(t)
		pidFile := filepath.Join(r.h.dir, "agent.pid")
		e := startEditor(t, r.h, append(r.env, "FAKEACP_PID="+pidFile), "--", fakeacp)
		e.initOnly()
		pid := readPid(t, pidFile)
		other := filepath.Join(r.h.dir, "project")
		if err := os.Mkdir(other, 0o755); err != nil {
			t.Fatal(err)
		}
		id := e.newSessionIn(other)
		waitGone(t, "the probed agent of another directory", pid)
		e.mustPrompt(id, "[[fs]] x")
		if n := r.initializes(t); n != 2 {
			t.Errorf("%d initialize calls, want 2", n)
		}
		s, err := r.h.store().Load(string(id))
		if err != nil || s.Cwd != other {
			t.Errorf("session %s in %q, want %q (%v)", id, s.Cwd, other, err)
		}
	})
	t.Run("load", func(t *testing.T) {
		r := newACP(t)
		e := startEditor(t, r.h, r.env, "--", fakeacp)
		id := e.newSession(false)
		e.mustPrompt(id, "[[plan]] build")
		e.in.Close()
		<-e.done
		os.Remove(r.log)

		pidFile := filepath.Join(r.h.dir, "agent.pid")
		e2 := startEditor(t, r.h, append(r.env, "FAKEACP_PID="+pidFile), "--", fakeacp)
		e2.initOnly()
		pid := readPid(t, pidFile)
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		if _, err := e2.conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: id, Cwd: r.h.dir, McpServers: []acp.McpServer{}}); err != nil {
			t.Fatalf("session/load: %v", err)
		}
		waitGone(t, "the probed agent after session/load", pid)
		e2.mustPrompt(id, "after load")
		if !strings.Contains(e2.text(), "echo: after load") {
			t.Errorf("the loaded session did not answer:\n%s", e2.text())
		}
		if n := r.initializes(t); n != 2 {
			t.Errorf("%d initialize calls, want 2 (the probe, the loaded session's agent)", n)
		}
	})
}
