// Package perf holds todosh's performance benchmarks (docs/performance.md)
// and the floor they are measured against: the durable steps a change
// cannot do without, done by the smallest program that does them. Every
// figure is a ratio of two things timed in the same run, so it holds on a
// busy machine.
package perf

import (
	"os"
	"path/filepath"
)

// Floor does exactly the durable steps of one change to a session and
// nothing else: write a temp file, fsync it, rename it over the session
// file, fsync the directory, append one history line, fsync the history.
type Floor struct {
	Dir  string
	Data []byte // the session file's bytes
	Line []byte // one history line, with its newline
}

// Change does the steps once.
func (f *Floor) Change() error {
	path := filepath.Join(f.Dir, "todo-floor.json")
	tmp := filepath.Join(f.Dir, ".todo-floor.json.tmp")
	t, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := t.Write(f.Data); err != nil {
		t.Close()
		return err
	}
	if err := t.Sync(); err != nil {
		t.Close()
		return err
	}
	if err := t.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	d, err := os.Open(f.Dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	d.Close()
	if err != nil {
		return err
	}
	h, err := os.OpenFile(filepath.Join(f.Dir, "hist-floor.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if _, err := h.Write(f.Line); err != nil {
		h.Close()
		return err
	}
	err = h.Sync()
	h.Close()
	return err
}
