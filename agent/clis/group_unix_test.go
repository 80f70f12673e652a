//go:build unix

package clis

import (
	"os"
	"syscall"
	"testing"

	"github.com/todosh/todosh/internal/procgroup"
)

func TestGroupAlive(t *testing.T) {
	if procgroup.Alive(os.Getpid()) != (syscall.Getpgrp() == os.Getpid()) {
		t.Error("procgroup.Alive wrong about the test's own group")
	}
}
