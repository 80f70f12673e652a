//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
)

// Start starts cmd as the leader of a new process group, whose id is its
// pid. With endWithParent the leader is sent SIGTERM when todosh dies,
// where the kernel offers that (Linux); elsewhere it learns of it from
// its standard input closing.
func Start(cmd *exec.Cmd, endWithParent bool) error {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if endWithParent {
		parentDeathSignal(attr)
	}
	cmd.SysProcAttr = attr
	return cmd.Start()
}

// Terminate asks every process of group pgid to end (SIGTERM).
func Terminate(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGTERM) }

// Kill ends every process of group pgid at once (SIGKILL).
func Kill(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }

// Release forgets group pgid once its caller is done with it; on Unix
// the kernel keeps nothing for it.
func Release(pgid int) {}

// Alive reports whether a process of group pgid is still running. Where
// its members cannot be listed it asks the kernel, where zombies still
// count.
func Alive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return false
	}
	members, ok := Members(pgid)
	return !ok || len(members) > 0
}
