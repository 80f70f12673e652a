package todostore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestThread: lines are appended and read back in order; a torn last line
// and lines that are not JSON are skipped and counted; lines over the
// limit are not kept; the file is private; Remove deletes it.
func TestThread(t *testing.T) {
	s := testStore(t)
	if lines, skipped, err := s.ReadThread("x"); err != nil || len(lines) != 0 || skipped != 0 {
		t.Fatalf("a missing thread: %q %d %v", lines, skipped, err)
	}
	kept, err := s.AppendThread("x", [][]byte{[]byte(`{"a":1}`), []byte(`not json`), bytes.Repeat([]byte("1"), MaxThreadLine+1), []byte("{\"b\":\n2}")})
	if err != nil || kept != 1 {
		t.Fatalf("AppendThread: kept %d, %v; want 1", kept, err)
	}
	s.AppendThread("x", [][]byte{[]byte(`{"c":3}`)})
	f, _ := os.OpenFile(s.ThreadPath("x"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"torn":`)
	f.Close()
	lines, skipped, err := s.ReadThread("x")
	if err != nil || len(lines) != 2 || string(lines[0]) != `{"a":1}` || string(lines[1]) != `{"c":3}` || skipped != 1 {
		t.Errorf("ReadThread = %q, %d skipped, %v", lines, skipped, err)
	}
	if info, _ := os.Stat(s.ThreadPath("x")); info.Mode().Perm() != 0o600 {
		t.Errorf("thread mode %v, want 0600", info.Mode().Perm())
	}
	if _, _, err := s.ReadThread("../x"); err == nil {
		t.Errorf("a bad session id read")
	}
	s.Update("x", addTodo("a"))
	if err := s.Remove("x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(s.ThreadPath("x")); err == nil {
		t.Errorf("the thread survived Remove")
	}
}

// TestThreadTrim: a thread over MaxThreadFile keeps its newest lines, in
// half of it.
func TestThreadTrim(t *testing.T) {
	s := testStore(t)
	line := func(i int) []byte { return []byte(fmt.Sprintf(`{"n":%d,"pad":%q}`, i, strings.Repeat("x", 1000))) }
	var batch [][]byte
	n := MaxThreadFile/1000 + 100
	for i := range n {
		batch = append(batch, line(i))
		if len(batch) == 500 {
			s.AppendThread("t", batch)
			batch = nil
		}
	}
	s.AppendThread("t", batch)
	info, _ := os.Stat(s.ThreadPath("t"))
	if info.Size() > MaxThreadFile {
		t.Errorf("thread of %d bytes, over the limit", info.Size())
	}
	lines, _, _ := s.ReadThread("t")
	var last struct{ N int }
	json.Unmarshal(lines[len(lines)-1], &last)
	if last.N != n-1 || len(lines) < 1000 {
		t.Errorf("after the trim: %d lines, the last %d; want the newest kept", len(lines), last.N)
	}
}

// TestThreadSymlinkRefused: a symlink at a thread's path is neither read
// nor written through.
func TestThreadSymlinkRefused(t *testing.T) {
	s := testStore(t)
	s.Update("x", addTodo("a"))
	target := t.TempDir() + "/elsewhere"
	os.WriteFile(target, []byte("{}\n"), 0o600)
	os.Symlink(target, s.ThreadPath("x"))
	if _, err := s.AppendThread("x", [][]byte{[]byte(`{}`)}); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("append through a symlink: %v", err)
	}
	if _, _, err := s.ReadThread("x"); err == nil {
		t.Errorf("read through a symlink")
	}
}

// FuzzReadThread: any file reads (parseThread, ReadThread's parser) as
// the JSON lines it holds, in order, the rest counted; nothing panics.
func FuzzReadThread(f *testing.F) {
	for _, s := range []string{"{}\n", "{\"a\":1}\n{\"b\"", "\n\n[]\n", "x\n{}\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, skipped := parseThread(data)
		parts := bytes.Split(data, []byte("\n"))
		nonEmpty := 0
		for _, p := range parts {
			if len(p) > 0 {
				nonEmpty++
			}
		}
		if len(lines)+skipped != nonEmpty {
			t.Fatalf("%d lines and %d skipped of %d", len(lines), skipped, nonEmpty)
		}
		for _, l := range lines {
			if !json.Valid(l) || bytes.IndexByte(l, '\n') >= 0 {
				t.Fatalf("bad line %q", l)
			}
		}
	})
}
