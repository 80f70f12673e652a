// Package procgroup starts an agent as the leader of a process group of
// its own and reads, signals and ends that group: the one place todosh
// looks behind an agent's launcher (a node script that starts the real
// agent) at what is left of its group. Its place in the whole is
// ARCHITECTURE.md §6.
//
// One reader per platform lists a group's members: /proc on Linux, the
// kern.proc.pgrp sysctl on macOS, the job object's process list on
// Windows, where a "group" is the job todosh put the leader in.
package procgroup

import (
	"strconv"
	"strings"
)

// Member is one running process of a group.
type Member struct {
	Pid  int
	Name string // the command's name (comm), at most 15 bytes on Linux
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
