package procgroup

import (
	"os"
	"strconv"
)

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

// Running reports whether process pid runs: it exists and is not a zombie.
func Running(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, state, _, ok := Stat(data)
	return ok && state != 'Z' && state != 'X'
}
