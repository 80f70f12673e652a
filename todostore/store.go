package todostore

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Store is the directory of session files, $TODOSH_HOME/todos. Its zero
// value is not usable; build one with Open.
type Store struct {
	// Root is $TODOSH_HOME (or ~/.todosh); Dir is Root/todos.
	Root string
	Dir  string
	// Now is the clock used for timestamps; tests replace it.
	Now func() time.Time
	// AfterWrite, when set, is called with the bytes of every file this
	// Store wrote, after the rename; the watcher uses it to tell our own
	// writes from other processes'.
	AfterWrite func(id string, data []byte)
}

// ResolveRoot returns $TODOSH_HOME if set, else ~/.todosh. getenv is
// os.Getenv outside tests.
func ResolveRoot(getenv func(string) string) (string, error) {
	if h := getenv("TODOSH_HOME"); h != "" {
		return h, nil
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("find home directory: %w (set TODOSH_HOME)", err)
		}
	}
	return filepath.Join(home, ".todosh"), nil
}

// Open returns the Store under root. It creates nothing: directories are
// made by the first write, so a read-only command never changes the disk.
func Open(root string) *Store {
	return &Store{Root: root, Dir: filepath.Join(root, "todos"), Now: time.Now}
}

// HistoryPath is where readline keeps the command history.
func (s *Store) HistoryPath() string { return filepath.Join(s.Root, "history") }

var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)

// ValidSessionID refuses ids that could escape the store directory or
// collide with its own files: only [A-Za-z0-9._-], 1 to 100 characters,
// and not "." or "..".
func ValidSessionID(id string) error {
	if !sessionIDPattern.MatchString(id) || id == "." || id == ".." {
		return fmt.Errorf("invalid session id %q: use 1-%d characters from A-Z a-z 0-9 . _ -", id, MaxSessionIDLen)
	}
	return nil
}

// NewSessionID returns an id that sorts by start time and is unlikely to
// collide: 20261121-223344-7f3a.
func NewSessionID(now time.Time) string {
	var b [2]byte
	if _, err := io.ReadFull(rand.Reader, b[:]); err != nil {
		b = [2]byte{byte(now.Nanosecond() >> 8), byte(now.Nanosecond())}
	}
	return now.Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// Path is the file of session id.
func (s *Store) Path(id string) string { return filepath.Join(s.Dir, "todo-"+id+".json") }

func (s *Store) lockPath(id string) string { return filepath.Join(s.Dir, ".todo-"+id+".lock") }

// CorruptError reports a session file that exists but cannot be used. Such a
// file is never overwritten; the message says how to recover.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s: %v (the file is left as it is: move it aside or start a new session)", e.Path, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// ErrUnsupportedVersion is wrapped when a file was written by a newer todosh.
var ErrUnsupportedVersion = errors.New("unsupported version")

// Decode parses and checks the bytes of a session file. Files in
// llxprt-code's shapes (a bare array of todos, or {todos, paused}) decode
// too, as version 1.
func Decode(data []byte) (*Session, error) {
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("file is %d bytes, over the limit of %d: %w", len(data), MaxFileSize, ErrLimit)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("file is empty")
	}
	var sess Session
	if trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &sess.Todos); err != nil {
			return nil, fmt.Errorf("parse todo array: %w", err)
		}
		sess.Version = FormatVersion
	} else {
		if err := json.Unmarshal(trimmed, &sess); err != nil {
			return nil, fmt.Errorf("parse: %w", err)
		}
		if sess.Version == 0 {
			sess.Version = FormatVersion // llxprt-code's {todos, paused}
		}
	}
	if sess.Version != FormatVersion {
		return nil, fmt.Errorf("version %d: %w (this todosh reads version %d)", sess.Version, ErrUnsupportedVersion, FormatVersion)
	}
	for i := range sess.Todos {
		for j := range sess.Todos[i].Subtasks {
			if sess.Todos[i].Subtasks[j].Status == "" {
				sess.Todos[i].Subtasks[j].Status = Pending // llxprt subtasks carry no status
			}
		}
	}
	if err := Validate(sess.Todos); err != nil {
		return nil, err
	}
	if sess.Todos == nil {
		sess.Todos = []Todo{}
	}
	return &sess, nil
}

// Encode renders a session as the bytes of its file.
func Encode(sess *Session) ([]byte, error) {
	data, err := json.MarshalIndent(sess, "", "  ")
	if err != nil {
		return nil, err
	}
	data = append(data, '\n')
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("session file would be %d bytes, over the limit of %d: %w", len(data), MaxFileSize, ErrLimit)
	}
	return data, nil
}

// Load reads session id. A missing file is an error that wraps
// fs.ErrNotExist; a file that cannot be used is a *CorruptError.
func (s *Store) Load(id string) (*Session, error) {
	if err := ValidSessionID(id); err != nil {
		return nil, err
	}
	return s.loadPath(s.Path(id))
}

func (s *Store) loadPath(path string) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &CorruptError{Path: path, Err: fmt.Errorf("not a regular file (%s)", info.Mode().Type())}
	}
	if info.Size() > MaxFileSize {
		return nil, &CorruptError{Path: path, Err: fmt.Errorf("file is %d bytes, over the limit of %d: %w", info.Size(), MaxFileSize, ErrLimit)}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	sess, err := Decode(data)
	if err != nil {
		return nil, &CorruptError{Path: path, Err: err}
	}
	return sess, nil
}

// LoadOrNew reads session id, or returns a new empty session (not yet
// written) when its file does not exist.
func (s *Store) LoadOrNew(id string) (*Session, error) {
	sess, err := s.Load(id)
	if errors.Is(err, fs.ErrNotExist) {
		return s.newSession(id), nil
	}
	return sess, err
}

func (s *Store) newSession(id string) *Session {
	now := s.Now().UTC()
	return &Session{Version: FormatVersion, Session: id, CreatedAt: now, UpdatedAt: now, Todos: []Todo{}}
}

// Update is the only way a session file changes: under an exclusive lock it
// reads the file (or starts a new session), applies fn, normalizes and
// validates the list, and writes the result atomically. If fn or validation
// fails nothing is written and the error is returned as is.
func (s *Store) Update(id string, fn func(*Session) error) (*Session, error) {
	if err := ValidSessionID(id); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", s.Dir, err)
	}
	unlock, err := lockFile(s.lockPath(id))
	if err != nil {
		return nil, err
	}
	defer unlock()
	sess, err := s.LoadOrNew(id)
	if err != nil {
		return nil, err
	}
	if err := fn(sess); err != nil {
		return nil, err
	}
	Normalize(sess.Todos)
	if err := Validate(sess.Todos); err != nil {
		return nil, err
	}
	if sess.Todos == nil {
		sess.Todos = []Todo{}
	}
	sess.Version = FormatVersion
	sess.Session = id
	sess.UpdatedAt = s.Now().UTC()
	data, err := Encode(sess)
	if err != nil {
		return nil, err
	}
	if err := WriteFileAtomic(s.Path(id), data); err != nil {
		return nil, err
	}
	if s.AfterWrite != nil {
		s.AfterWrite(id, data)
	}
	return sess, nil
}

// lockFile takes an exclusive advisory lock on path (created if needed) and
// returns the function that releases it. The lock is on a separate file
// because the data file is replaced by every rename.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// WriteFileAtomic replaces path with data so that a reader, or a crash at
// any moment, sees either the old file or the new one: temp file in the
// same directory, fsync, rename, fsync the directory.
func WriteFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp.Name(), err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err = d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

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
	des, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", s.Dir, err)
	}
	entries := make([]Entry, 0, len(des))
	for _, de := range des {
		id, ok := IDFromFileName(de.Name())
		if !ok {
			continue
		}
		e := Entry{ID: id, Path: filepath.Join(s.Dir, de.Name())}
		if info, err := de.Info(); err == nil {
			e.ModTime = info.ModTime()
		}
		entries = append(entries, e)
	}
	sort.SliceStable(entries, func(i, j int) bool {
		if !entries[i].ModTime.Equal(entries[j].ModTime) {
			return entries[i].ModTime.After(entries[j].ModTime)
		}
		return entries[i].ID > entries[j].ID
	})
	return entries, nil
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
