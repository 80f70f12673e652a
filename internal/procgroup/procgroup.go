// Package procgroup reads which processes of a process group are running,
// from /proc: the one place todosh looks behind an agent's launcher (a
// node script that starts the real agent) at what is left of its group.
// Its place in the whole is ARCHITECTURE.md §6.
package procgroup

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Member is one running process of a group.
type Member struct {
	Pid  int
	Name string // the command's name (comm), at most 15 bytes
}

// Members lists the running processes of group pgid. Members that died
// but wait for their parent (or, orphaned, for init) to reap them do not
// count: some inits reap seconds late. ok is false without /proc.
func Members(pgid int) (members []Member, ok bool) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	for _, p := range procs {
		if p.Name()[0] < '0' || p.Name()[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + p.Name() + "/stat")
		if err != nil {
			continue
		}
		if name, state, pg, ok := Stat(data); ok && pg == pgid && state != 'Z' && state != 'X' {
			pid, _ := strconv.Atoi(p.Name())
			members = append(members, Member{Pid: pid, Name: name})
		}
	}
	return members, true
}

// Alive reports whether a process of group pgid is still running. Without
// /proc it asks the kernel, where zombies still count.
func Alive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return false
	}
	members, ok := Members(pgid)
	return !ok || len(members) > 0
}

// Stat reads the name, state and process group from a /proc/PID/stat line:
// "pid (comm) state ppid pgrp ...", where comm may hold spaces and parens.
func Stat(data []byte) (name string, state byte, pgrp int, ok bool) {
	open := strings.IndexByte(string(data), '(')
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 || open < 0 || open > i {
		return "", 0, 0, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 3 || len(f[0]) != 1 {
		return "", 0, 0, false
	}
	pg, err := strconv.Atoi(f[2])
	if err != nil {
		return "", 0, 0, false
	}
	return string(data[open+1 : i]), f[0][0], pg, true
}
