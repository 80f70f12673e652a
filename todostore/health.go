package todostore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Health is what `todosh doctor` reports of the store, read without
// writing anything.
type Health struct {
	Root string
	// Exists: the root directory is there (a first write makes it).
	Exists bool
	// Writable: todosh can make its files here (the root, or the nearest
	// directory above it that exists, grants this user write access).
	Writable bool
	// RootMode and DirMode are the modes of the root and of todos/, 0 when
	// missing; Private is true when neither grants group or other users
	// anything (ARCHITECTURE.md §3).
	RootMode, DirMode fs.FileMode
	Private           bool
	// Sessions is the number of session files; Bytes the size of every
	// file under the root.
	Sessions int
	Bytes    int64
	// Problem says what is wrong in one line, "" when nothing is.
	Problem string
}

// Health looks at the store without changing it.
func (s *Store) Health() Health {
	h := Health{Root: s.Root}
	fi, err := os.Stat(s.Root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// The first write makes it: the nearest existing parent decides.
		dir := filepath.Dir(s.Root)
		for {
			if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
				break
			}
			dir = filepath.Dir(dir)
		}
		h.Writable = writable(dir)
		h.Private = true
		if !h.Writable {
			h.Problem = "cannot create " + s.Root + ": " + dir + " is not writable (set TODOSH_HOME to a directory you own)"
		}
		return h
	case err != nil:
		h.Problem = err.Error()
		return h
	case !fi.IsDir():
		h.Problem = s.Root + " is not a directory (set TODOSH_HOME to a directory)"
		return h
	}
	h.Exists, h.RootMode = true, fi.Mode().Perm()
	h.Writable = writable(s.Root)
	if di, err := os.Stat(s.Dir); err == nil {
		h.DirMode = di.Mode().Perm()
	}
	h.Private = !posixModes || h.RootMode&0o077 == 0 && h.DirMode&0o077 == 0 // Windows: the ACL todosh gave it
	if entries, err := s.List(); err == nil {
		h.Sessions = len(entries)
	}
	_ = filepath.WalkDir(s.Root, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				h.Bytes += info.Size()
			}
		}
		return nil
	})
	switch {
	case !h.Writable:
		h.Problem = s.Root + " is not writable (fix its owner or mode, or set TODOSH_HOME)"
	case !h.Private:
		h.Problem = s.Root + " can be read by other users (chmod -R go-rwx " + s.Root + ")"
	}
	return h
}
