//go:build unix

package clis

import (
	"os"
	"syscall"
	"testing"
)

func TestGroupAlive(t *testing.T) {
	if groupAlive(os.Getpid()) != (syscall.Getpgrp() == os.Getpid()) {
		t.Error("groupAlive wrong about the test's own group")
	}
}
