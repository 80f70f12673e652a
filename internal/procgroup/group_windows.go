package procgroup

import (
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows a "group" is a job object: Start puts the leader in a new
// job (with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE) right after it starts,
// and every process it starts from then on is in the job too. The group's
// id is the leader's pid; the job's handle is kept here by that id.
var jobs sync.Map // pid → windows.Handle

// Start starts cmd in a new console process group (so Terminate can send
// it CTRL_BREAK) and puts it in a job object of its own. A child the
// leader starts before it is in the job (in the instant between the two)
// is not in it; node launchers start theirs much later.
func Start(cmd *exec.Cmd, endWithParent bool) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return err
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
	if err := cmd.Start(); err != nil {
		windows.CloseHandle(job)
		return err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err == nil {
		err = windows.AssignProcessToJobObject(job, h)
		windows.CloseHandle(h)
	}
	if err != nil {
		cmd.Process.Kill()
		windows.CloseHandle(job)
		return err
	}
	jobs.Store(cmd.Process.Pid, job)
	return nil
}

// Terminate asks the group to end: CTRL_BREAK to its console process
// group (node and the agents' runtimes end on it). A process without a
// console does not get it; Kill after the grace period ends it then.
func Terminate(pgid int) {
	_ = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(pgid))
}

// Kill ends every process in the group's job at once.
func Kill(pgid int) {
	if job, ok := jobs.Load(pgid); ok {
		_ = windows.TerminateJobObject(job.(windows.Handle), 1)
	}
}

// Release closes the group's job; KILL_ON_JOB_CLOSE ends whatever is
// still in it.
func Release(pgid int) {
	if job, ok := jobs.LoadAndDelete(pgid); ok {
		windows.CloseHandle(job.(windows.Handle))
	}
}

// Alive reports whether a process of the group's job is still running;
// for a group Start did not make, whether its leader runs.
func Alive(pgid int) bool {
	members, ok := Members(pgid)
	if !ok {
		return Running(pgid)
	}
	return len(members) > 0
}

// Running reports whether process pid has not exited.
func Running(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}

// processIDList is JOBOBJECT_BASIC_PROCESS_ID_LIST with room for 256.
type processIDList struct {
	assigned, listed uint32
	ids              [256]uintptr
}

// Members lists the processes in the group's job, named by their image
// file. ok is false for a group Start did not make.
func Members(pgid int) (members []Member, ok bool) {
	job, ok := jobs.Load(pgid)
	if !ok {
		return nil, false
	}
	var list processIDList
	if err := windows.QueryInformationJobObject(job.(windows.Handle), windows.JobObjectBasicProcessIdList, uintptr(unsafe.Pointer(&list)), uint32(unsafe.Sizeof(list)), nil); err != nil && err != windows.ERROR_MORE_DATA {
		return nil, false
	}
	for _, id := range list.ids[:min(list.listed, uint32(len(list.ids)))] {
		members = append(members, Member{Pid: int(id), Name: imageName(uint32(id))})
	}
	return members, true
}

// imageName is the base name of process pid's executable, or "?".
func imageName(pid uint32) string {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return "?"
	}
	defer windows.CloseHandle(h)
	buf := make([]uint16, windows.MAX_PATH)
	n := uint32(len(buf))
	if windows.QueryFullProcessImageName(h, 0, &buf[0], &n) != nil {
		return "?"
	}
	return filepath.Base(windows.UTF16ToString(buf[:n]))
}
