package procgroup

import "syscall"

// parentDeathSignal has the kernel send SIGTERM to the leader when the
// thread that started it (todosh) dies.
func parentDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGTERM }
