//go:build unix && !linux

package procgroup

import "syscall"

// parentDeathSignal has nothing to set outside Linux (macOS has no
// PR_SET_PDEATHSIG): an ACP agent ends when its standard input, todosh's
// pipe, closes with todosh.
func parentDeathSignal(attr *syscall.SysProcAttr) {}
