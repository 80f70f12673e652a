package procgroup

import (
	"os"
	"syscall"
	"testing"
)

func TestStat(t *testing.T) {
	tests := []struct {
		line, name string
		state      byte
		pg         int
		ok         bool
	}{
		{"1234 (a) b (c)) S 1 777 777 0 -1", "a) b (c)", 'S', 777, true},
		{"1 (node) Z 0 1 1", "node", 'Z', 1, true},
		{"garbage", "", 0, 0, false},
		{"1 (x) SS 0 1 1", "", 0, 0, false},
		{"1 (x) S 0 y 1", "", 0, 0, false},
	}
	for _, tt := range tests {
		name, st, pg, ok := Stat([]byte(tt.line))
		if name != tt.name || st != tt.state || pg != tt.pg || ok != tt.ok {
			t.Errorf("%q: %q %c %d %v", tt.line, name, st, pg, ok)
		}
	}
}

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

func FuzzStat(f *testing.F) {
	f.Add([]byte("1234 (a) b (c)) S 1 777 777 0 -1"))
	f.Add([]byte(")("))
	f.Fuzz(func(t *testing.T, data []byte) {
		name, _, _, ok := Stat(data)
		if ok && len(name) > len(data) {
			t.Fatal("name longer than the line")
		}
	})
}
