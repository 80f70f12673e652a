package procgroup

import (
	"golang.org/x/sys/unix"
)

// szomb is a zombie's p_stat (SZOMB in XNU's bsd/sys/proc.h).
const szomb = 5

// Members lists the running processes of group pgid from the kernel's
// process table, sysctl {CTL_KERN, KERN_PROC, KERN_PROC_PGRP, pgid}: macOS
// has no /proc. Zombies waiting to be reaped do not count. ok is false
// when the sysctl fails.
func Members(pgid int) (members []Member, ok bool) {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgid)
	if err != nil {
		return nil, false
	}
	for _, p := range procs {
		if int(p.Eproc.Pgid) != pgid || p.Proc.P_stat == szomb {
			continue
		}
		members = append(members, Member{Pid: int(p.Proc.P_pid), Name: unix.ByteSliceToString(p.Proc.P_comm[:])})
	}
	return members, true
}

// Running reports whether process pid runs: sysctl kern.proc.pid finds
// it (an error when it does not exist) and it is not a zombie.
func Running(pid int) bool {
	p, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	return err == nil && int(p.Proc.P_pid) == pid && p.Proc.P_stat != szomb
}
