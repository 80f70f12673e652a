package todostore

// Listing sessions without parsing them: readdir and stat only.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Entry is one session file found by List, before it is parsed.
type Entry struct {
	ID      string
	Path    string
	ModTime time.Time
}

// List returns the session files newest first by modification time without
// parsing any of them, so listing thousands of sessions stays fast. A
// missing store directory is an empty list.
func (s *Store) List() ([]Entry, error) {
	isSession := func(name string) bool { _, ok := IDFromFileName(name); return ok }
	names, stats, err := ReadDirNames(s.Dir, isSession)
	if err != nil {
		return nil, err
	}
	dir := filepath.Clean(s.Dir) + string(filepath.Separator)
	entries := make([]Entry, len(names))
	for i, name := range names {
		id, _ := IDFromFileName(name)
		entries[i] = Entry{ID: id, Path: dir + name, ModTime: stats[i].ModTime}
	}
	slices.SortFunc(entries, func(a, b Entry) int {
		if c := b.ModTime.Compare(a.ModTime); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return entries, nil
}

// NameStat is what listing needs to know of a directory entry.
type NameStat struct {
	OK      bool // false when the entry vanished or could not be stat'ed
	ModTime time.Time
	Size    int64
	Mode    fs.FileMode // the type bits only: fs.ModeDir, fs.ModeSymlink, 0 for a regular file
}

// ReadDirNames lists the names of a directory that keep accepts, without
// sorting, and stats them. A missing directory is empty, not an error.
func ReadDirNames(dir string, keep func(name string) bool) ([]string, []NameStat, error) {
	d, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list %s: %w", dir, err)
	}
	defer d.Close()
	// Readdirnames, unlike os.ReadDir, neither sorts by name nor builds a
	// DirEntry per file; callers sort by time anyway.
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, nil, fmt.Errorf("list %s: %w", dir, err)
	}
	names = slices.DeleteFunc(names, func(name string) bool { return !keep(name) })
	return names, statNames(d, names), nil
}

// IDFromFileName returns the session id of a file named todo-<id>.json.
func IDFromFileName(name string) (string, bool) {
	if !strings.HasPrefix(name, "todo-") || !strings.HasSuffix(name, ".json") {
		return "", false
	}
	id := strings.TrimSuffix(strings.TrimPrefix(name, "todo-"), ".json")
	if ValidSessionID(id) != nil {
		return "", false
	}
	return id, true
}

// LoadEntry parses the file of a listed entry.
func (s *Store) LoadEntry(e Entry) (*Session, error) { return s.loadPath(e.Path) }

// MostRecentIn returns the id of the most recently changed session whose cwd
// is dir, for `todosh --resume`. Unreadable files are skipped.
func (s *Store) MostRecentIn(dir string) (string, error) {
	entries, err := s.List()
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		sess, err := s.LoadEntry(e)
		if err == nil && sess.Cwd == dir {
			return e.ID, nil
		}
	}
	return "", fmt.Errorf("no session was started in %s (start one with todosh, or name one with --session ID)", dir)
}
