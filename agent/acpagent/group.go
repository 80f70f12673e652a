package acpagent

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/todosh/todosh/internal/procgroup"
)

// launchers are node scripts that only start a native binary of a sibling
// npm package and hide how it ended (codex-acp's launcher exits 0 when its
// binary is killed): todosh starts that binary itself, so the process it
// waits for is the agent. script is the path's tail below node_modules;
// native the binary's, with {platform} and {arch} as npm names them.
var launchers = []struct{ script, native string }{
	{"@zed-industries/codex-acp/bin/codex-acp.js", "@zed-industries/codex-acp-{platform}-{arch}/bin/codex-acp"},
}

// nativeBinary returns the binary behind a known launcher at path, or path
// itself.
func nativeBinary(path string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return path
	}
	real = filepath.ToSlash(real)
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	for _, l := range launchers {
		root, ok := strings.CutSuffix(real, "/node_modules/"+l.script)
		if !ok || arch == "" {
			continue
		}
		native := strings.NewReplacer("{platform}", runtime.GOOS, "{arch}", arch).Replace(l.native)
		bin := filepath.FromSlash(root + "/node_modules/" + native)
		if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return bin
		}
	}
	return path
}

// groupWatch follows the agent's process group while it runs: which
// processes it holds (a launcher and the agent behind it), which of them
// ended first, and, once the leader is gone, what it left running, which
// it ends at once: an agent whose launcher was killed is noticed then, not
// when todosh exits.
type groupWatch struct {
	mu sync.Mutex
	// names are the members last seen, by pid.
	names map[int]string
	// firstGone is the first member other than the leader that ended while
	// the leader ran: "codex-acp (pid 12)".
	firstGone string
	// orphans are what the leader left running when it ended, which
	// the watch then stopped: "codex-acp (pid 12)".
	orphans string
	// done is closed when the watch has ended, orphans stopped.
	done chan struct{}
}

// watchInterval is how often the group is looked at.
const watchInterval = 100 * time.Millisecond

// watch runs until the leader has ended and its group is gone. The leader
// is seen to end here (it is then a zombie, not yet reaped: Wait may wait
// for its pipes), so what it left is stopped within watchInterval.
func (g *groupWatch) watch(p *process, grace time.Duration) {
	defer close(g.done)
	pgid := p.cmd.Process.Pid
	tick := time.NewTicker(watchInterval)
	defer tick.Stop()
	for {
		select {
		case <-p.exited:
			g.leaderGone(pgid, grace)
			return
		case <-tick.C:
			if g.look(pgid) {
				g.leaderGone(pgid, grace)
				return
			}
		}
	}
}

// leaderGone stops what the leader left running and notes it.
func (g *groupWatch) leaderGone(pgid int, grace time.Duration) {
	members, _ := procgroup.Members(pgid)
	if len(members) == 0 {
		return
	}
	g.mu.Lock()
	g.orphans = describe(members)
	g.mu.Unlock()
	procgroup.Terminate(pgid)
	deadline := time.Now().Add(grace)
	for procgroup.Alive(pgid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	procgroup.Kill(pgid)
}

// look notes the group's members and the first of them, other than the
// leader, that is gone while the leader runs. It reports whether the
// leader has ended.
func (g *groupWatch) look(pgid int) (leaderGone bool) {
	members, ok := procgroup.Members(pgid)
	if !ok {
		return false
	}
	now := map[int]string{}
	for _, m := range members {
		now[m.Pid] = m.Name
	}
	if _, alive := now[pgid]; !alive {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for pid, name := range g.names {
		if _, alive := now[pid]; !alive && g.firstGone == "" {
			g.firstGone = fmt.Sprintf("%s (pid %d)", name, pid)
		}
	}
	g.names = now
	return false
}

// report says what became of the group besides its leader, for the line
// that says why the agent ended; "" when nothing else was seen. It waits
// (at most wait) for the watch to have stopped what the leader left.
func (g *groupWatch) report(wait time.Duration) (firstGone, orphans string) {
	if g.done != nil {
		select {
		case <-g.done:
		case <-time.After(wait):
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.firstGone, g.orphans
}

// describe names processes: "codex-acp (pid 12), sh (pid 13)".
func describe(members []procgroup.Member) string {
	slices.SortFunc(members, func(a, b procgroup.Member) int { return a.Pid - b.Pid })
	var s []string
	for _, m := range members {
		s = append(s, fmt.Sprintf("%s (pid %d)", m.Name, m.Pid))
	}
	return strings.Join(s, ", ")
}
