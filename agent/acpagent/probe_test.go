package acpagent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/internal/procgroup"
)

// TestProbeThenSession: the process Probe starts is the one the session
// opens on (one initialize); one that died before is replaced by a fresh
// start; Close ends one that never got a session, with its group.
func TestProbeThenSession(t *testing.T) {
	for _, tc := range []struct {
		name        string
		kill, close bool // kill the probed process; close instead of a session
		inits       int
	}{
		{"used by the session", false, false, 1},
		{"died before the session", true, false, 2},
		{"closed without a session", false, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			log := filepath.Join(dir, "log")
			a, sess := newTestAgent(t, "FAKEACP_LOG="+log, "FAKEACP_MCP=http")
			caps, err := a.Probe(context.Background())
			if err != nil || !caps.McpCapabilities.Http {
				t.Fatalf("Probe = %+v, %v; want http", caps.McpCapabilities, err)
			}
			pid := a.proc.cmd.Process.Pid
			if tc.kill {
				a.proc.cmd.Process.Kill()
				waitExit(t, pid)
			}
			if tc.close {
				a.Close()
				waitExit(t, pid)
				if procgroup.Alive(pid) {
					t.Errorf("process group %d outlived Close", pid)
				}
			} else {
				if _, err := a.opened(context.Background()); err != nil {
					t.Fatalf("opened: %v", err)
				}
				if got := a.proc.cmd.Process.Pid; (got == pid) == tc.kill {
					t.Errorf("session on pid %d, probed %d, killed %v", got, pid, tc.kill)
				}
				s, err := sess.Load()
				if err != nil || s.Agent == nil || s.Agent.Session == "" {
					t.Errorf("no agent session kept: %+v %v", s.Agent, err)
				}
			}
			b, _ := os.ReadFile(log)
			if n := strings.Count(string(b), `"method":"initialize"`); n != tc.inits {
				t.Errorf("%d initialize calls, want %d", n, tc.inits)
			}
			if n := strings.Count(string(b), `"method":"session/new"`); n != map[bool]int{true: 0, false: 1}[tc.close] {
				t.Errorf("%d session/new calls", n)
			}
		})
	}
}

// waitExit waits until pid, the leader of its group, is gone or a zombie;
// the bound only stops a hang.
func waitExit(t *testing.T, pid int) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		members, ok := procgroup.Members(pid) // zombies are not members
		if !ok || !slices.ContainsFunc(members, func(m procgroup.Member) bool { return m.Pid == pid }) {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("pid %d still runs", pid)
		}
	}
}
