//go:build unix && !linux && !darwin

package procgroup

import "syscall"

// Members cannot list a group here (no /proc, no reader written for this
// system): ok is false, and Alive asks the kernel instead.
func Members(pgid int) (members []Member, ok bool) { return nil, false }

// Running reports whether process pid exists (zombies count here).
func Running(pid int) bool { return syscall.Kill(pid, 0) == nil }
