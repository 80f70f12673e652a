package procgroup

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/todosh/todosh/internal/testenv"
)

func TestStat(t *testing.T) {
	tests := []struct {
		line, name string
		state      byte
		pg         int
		ok         bool
	}{
		{"1234 (a) b (c)) S 1 777 777 0 -1", "a) b (c)", 'S', 777, true},
		{"1 (node) Z 0 1 1", "node", 'Z', 1, true},
		{"garbage", "", 0, 0, false},
		{"1 (x) SS 0 1 1", "", 0, 0, false},
		{"1 (x) S 0 y 1", "", 0, 0, false},
	}
	for _, tt := range tests {
		name, st, pg, ok := Stat([]byte(tt.line))
		if name != tt.name || st != tt.state || pg != tt.pg || ok != tt.ok {
			t.Errorf("%q: %q %c %d %v", tt.line, name, st, pg, ok)
		}
	}
}

// TestStartKill starts a child (this test binary, sleeping) in a group
// of its own, finds it among the group's members, and ends the group as a
// whole: a process group on Unix, a job object on Windows.
func TestStartKill(t *testing.T) {
	if os.Getenv("PROCGROUP_SLEEP") == "1" {
		time.Sleep(10 * time.Minute) // far past the bound below: only Kill ends it
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStartKill$")
	cmd.Env = testenv.Env(t.TempDir(), "PROCGROUP_SLEEP=1")
	if err := Start(cmd, true); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer Release(pid)
	members, ok := Members(pid)
	if ok && !slices.ContainsFunc(members, func(m Member) bool { return m.Pid == pid }) {
		t.Errorf("the leader (pid %d) is not among its group's members %+v", pid, members)
	}
	if !Alive(pid) {
		t.Fatal("a group whose leader sleeps is not alive")
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }() // should Kill have failed
	Kill(pid)
	// The leader is a zombie until Wait reaps it: not a member any more.
	for i := 0; Alive(pid); i++ {
		if i == 1000 {
			t.Fatal("the group is still alive 10s after Kill")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func FuzzStat(f *testing.F) {
	f.Add([]byte("1234 (a) b (c)) S 1 777 777 0 -1"))
	f.Add([]byte(")("))
	f.Fuzz(func(t *testing.T, data []byte) {
		name, _, _, ok := Stat(data)
		if ok && len(name) > len(data) {
			t.Fatal("name longer than the line")
		}
	})
}
