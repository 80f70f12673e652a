//go:build unix

package procgroup

import (
	"os"
	"syscall"
	"testing"
)

func TestMembersOfOwnGroup(t *testing.T) {
	pg := syscall.Getpgrp()
	members, ok := Members(pg)
	if !ok {
		t.Skip("no /proc")
	}
	found := false
	for _, m := range members {
		found = found || m.Pid == os.Getpid()
	}
	if !found || !Alive(pg) {
		t.Errorf("the test's own process is not in its group %d: %+v", pg, members)
	}
}
