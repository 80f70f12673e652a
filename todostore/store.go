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
	"sync"
	"time"

	"github.com/todosh/todosh/todolist"
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
	// LockTimeout is how long a write waits for another process's lock on
	// the session; 0 means DefaultLockTimeout.
	LockTimeout time.Duration
	// OnLockWait, when set, is told (once) that a write is waiting for
	// another process's lock, so the wait is never silent.
	OnLockWait func(msg string)

	// watchSource is where Watch gets its events; nil is the platform's
	// (watchsource.go). Tests set pollSource to try the poller anywhere.
	watchSource eventSource

	// unlockedRead, set by tests, is called when a change has read the
	// session without its lock: where another process's write may come.
	unlockedRead func(id string)
	// afterRename, set by crash tests, is called when a change has written
	// the session file and not yet its history lines, so a test can kill
	// the writer exactly there.
	afterRename func(id string)

	sweepOnce sync.Once // leftover temp files are removed at the first write
	// damaged holds the ids whose history a read found damaged: the next
	// change of each states the whole list (a snapshot).
	damaged sync.Map
	cache   sessionCache
	work    workCache
	dirs    dirsChecked
}

// ResolveRoot returns $TODOSH_HOME if set, else .todosh in the home
// directory (HomeDir): ~/.todosh, %USERPROFILE%\.todosh on Windows.
// getenv is os.Getenv outside tests.
func ResolveRoot(getenv func(string) string) (string, error) {
	if h := getenv("TODOSH_HOME"); h != "" {
		return h, nil
	}
	home, err := HomeDir(getenv)
	if err != nil {
		return "", fmt.Errorf("find home directory: %w (set TODOSH_HOME)", err)
	}
	return filepath.Join(home, ".todosh"), nil
}

// HomeDir is the user's home directory as the agents find it (node's
// os.homedir): $HOME, or %USERPROFILE% on Windows, where a HOME set by
// Git Bash or MSYS is not where the agents keep their settings.
func HomeDir(getenv func(string) string) (string, error) {
	if home := getenv(homeVar); home != "" {
		return home, nil
	}
	return os.UserHomeDir()
}

// Open returns the Store under root. It creates nothing: directories are
// made by the first write, so a read-only command never changes the disk.
func Open(root string) *Store {
	return &Store{Root: root, Dir: filepath.Join(root, "todos"), Now: time.Now}
}

// HistoryPath is where readline keeps the command history.
func (s *Store) HistoryPath() string { return filepath.Join(s.Root, "history") }

// HooksFilesPath is where `todosh hooks install` keeps what it found at
// the settings files it had to create or fill (hooks.Record), so that
// uninstall gives them back as they were.
func (s *Store) HooksFilesPath() string { return filepath.Join(s.Root, "hooks-files.json") }

// ValidSessionID refuses ids that could escape the store directory or
// collide with its own files: only [A-Za-z0-9._-], 1 to 100 characters,
// and not "." or "..". It is a loop, not a regexp, because List runs it on
// every file name of the store (a regexp cost 1 µs per name).
func ValidSessionID(id string) error {
	ok := len(id) >= 1 && len(id) <= todolist.MaxSessionIDLen && id != "." && id != ".."
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
	}
	if !ok {
		return fmt.Errorf("invalid session id %q: use 1-%d characters from A-Z a-z 0-9 . _ -", id, todolist.MaxSessionIDLen)
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

// ConvPath is where the model API backend saves the conversation of
// session id, next to the session file and named so that List skips it.
func (s *Store) ConvPath(id string) string { return filepath.Join(s.Dir, "conv-"+id+".json") }

// sessionFiles is every file the store keeps for session id, the session
// file first: Remove deletes them in this order, so a session is gone from
// List before anything else of it is. A new per-session file is one more
// line here. The lock file is last: Remove unlinks it while it still holds
// the lock, which lockFile's waiters notice (ARCHITECTURE.md §3).
func (s *Store) sessionFiles(id string) []string {
	path := s.Path(id)
	return []string{
		path,
		filepath.Join(s.Dir, "."+filepath.Base(path)+".tmp"), // writeLocked's temp file, left by a killed writer
		s.SessionHistoryPath(id),
		s.WorkPath(id),
		s.ConvPath(id),
		s.ThreadPath(id),
		s.EvidencePath(id),
		s.lockPath(id),
	}
}

// Remove deletes every file the store keeps for session id (its list,
// history, conversation and lock). It holds the session's lock while it
// does, so it never interleaves with a write; a write that waited for the
// lock runs after it and starts the session afresh, as does a todosh still
// open on the session at its next change. A session without a file is an
// error that wraps fs.ErrNotExist, and nothing is removed.
func (s *Store) Remove(id string) error { return s.RemoveIf(id, nil) }

// RemoveIf is Remove with a last word: under the session's lock, before
// anything is removed, check (when not nil) is given the session file's
// state as it is then; an error from it keeps every file and is returned
// as is. /todo prune older AGE checks the age again there, so a session
// written after it was chosen is kept.
func (s *Store) RemoveIf(id string, check func(fs.FileInfo) error) error {
	if err := ValidSessionID(id); err != nil {
		return err
	}
	if _, err := os.Lstat(s.Path(id)); err != nil {
		return fmt.Errorf("remove session %s: %w", id, err)
	}
	files := s.sessionFiles(id)
	lock := files[len(files)-1]
	if err := mkdirStore(s.lockDir()); err != nil { // a file from before .locks
		return err
	}
	unlock, err := s.lockFile(lock)
	if err != nil {
		return err
	}
	defer unlock()
	// Looked at again under the lock: removed meanwhile by another
	// process, or changed since the caller chose it.
	info, err := os.Lstat(s.Path(id))
	if err != nil {
		return fmt.Errorf("remove session %s: %w", id, err)
	}
	if check != nil {
		if err := check(info); err != nil {
			return err
		}
	}
	// The files the caches keep open are let go with the names, so a
	// removed work log's megabytes are freed now, not when its entry is
	// pushed out.
	defer s.forget(id)
	// The lock file goes last and while it is held: a writer waiting on it
	// sees that it is no longer at its path and locks the new one (lockFile).
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove session %s: %w", id, err)
		}
	}
	return nil
}

// forget drops what this process keeps of session id, whose files are
// removed: the cached session and work log with the files they hold open,
// and its damage mark.
func (s *Store) forget(id string) {
	s.cache.drop(id)
	s.work.forget(id)
	s.damaged.Delete(id)
}

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
	if len(data) > todolist.MaxFileSize {
		return nil, fmt.Errorf("file is %d bytes, over the limit of %d: %w", len(data), todolist.MaxFileSize, todolist.ErrLimit)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("file is empty")
	}
	if trimmed[0] != '{' && trimmed[0] != '[' {
		// json.Unmarshal accepts "null" into a struct as a no-op, which
		// would turn a garbage file into an empty list that Update then
		// writes over.
		return nil, errors.New("parse: not a JSON object or array")
	}
	var sess Session
	if trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &sess.Todos); err != nil {
			return nil, fmt.Errorf("parse todo array: %w", err)
		}
		sess.Version = todolist.FormatVersion
	} else {
		if err := json.Unmarshal(trimmed, &sess); err != nil {
			return nil, fmt.Errorf("parse: %w", err)
		}
		if sess.Version == 0 {
			sess.Version = todolist.FormatVersion // llxprt-code's {todos, paused}
		}
	}
	if err := readExtras(trimmed, &sess, trimmed[0] == '['); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if sess.Version != todolist.FormatVersion {
		return nil, fmt.Errorf("version %d: %w (this todosh reads version %d)", sess.Version, ErrUnsupportedVersion, todolist.FormatVersion)
	}
	defaultSubtaskStatus(sess.Todos)
	if err := todolist.Validate(sess.Todos); err != nil {
		return nil, err
	}
	// An old file's archive moves into the history at the next change,
	// each entry a line the history reader checks like a list: an entry
	// it would reject refuses the file now, before any of it is moved.
	for i := range sess.Archive {
		defaultSubtaskStatus(sess.Archive[i].Todos)
		if err := todolist.Validate(sess.Archive[i].Todos); err != nil {
			return nil, fmt.Errorf("archive entry %d: %w", i+1, err)
		}
	}
	if sess.Todos == nil {
		sess.Todos = []todolist.Todo{}
	}
	// A file written by hand or by another program may carry ids and
	// statuses that disagree with the rules; show it as it will be saved.
	todolist.Normalize(sess.Todos)
	return &sess, nil
}

// defaultSubtaskStatus makes a subtask without a status pending: llxprt
// subtasks carry none.
func defaultSubtaskStatus(todos []todolist.Todo) {
	for i := range todos {
		for j := range todos[i].Subtasks {
			if todos[i].Subtasks[j].Status == "" {
				todos[i].Subtasks[j].Status = todolist.Pending
			}
		}
	}
}

// Load reads session id. A missing file is an error that wraps
// fs.ErrNotExist; a file that cannot be used is a *CorruptError.
func (s *Store) Load(id string) (*Session, error) {
	if err := ValidSessionID(id); err != nil {
		return nil, err
	}
	st, err := s.readSession(id)
	if err != nil {
		return nil, err
	}
	if !st.present {
		return nil, &fs.PathError{Op: "open", Path: s.Path(id), Err: fs.ErrNotExist}
	}
	return st.sess.clone(), nil
}

func (s *Store) loadPath(path string) (*Session, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	sess, err := Decode(data)
	if err != nil {
		return nil, &CorruptError{Path: path, Err: err}
	}
	return sess, nil
}

// readFile reads a session file of todosh's own store, of at most
// todolist.MaxFileSize bytes. A file that is a symlink (never followed), is not
// regular, is too large, or that another user owns or may write
// (checkOwnFile) is a *CorruptError.
func readFile(path string) ([]byte, error) { return ReadPath(path, true) }

// ReadPath is readFile; own is false for another agent's file, which may
// be a symlink and is not ours to judge by owner or mode.
func ReadPath(path string, own bool) ([]byte, error) {
	data, f, _, err := readOpen(path, own)
	if err != nil {
		return nil, err
	}
	f.Close()
	return data, nil
}

// readOpen is readFile that leaves the file open and returns its stat,
// for the cache to keep. It opens with O_NONBLOCK so that a FIFO named
// like a session file is refused instead of blocking the shell forever;
// on a regular file the flag has no effect. The buffer is sized from the
// stat, so a file is read in one read call, not grown from 512 bytes.
func readOpen(path string, own bool) ([]byte, *os.File, os.FileInfo, error) {
	flags := os.O_RDONLY | oNonBlock
	if own {
		flags |= oNoFollow
	}
	f, err := openStore(path, flags, 0)
	if own && isSymlinkErr(err) {
		return nil, nil, nil, &CorruptError{Path: path, Err: errSymlink}
	}
	if err != nil {
		return nil, nil, nil, err
	}
	data, info, err := readOpened(f, path, own)
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	return data, f, info, nil
}

func readOpened(f *os.File, path string, own bool) ([]byte, os.FileInfo, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, bareError(err))
	}
	if own && info.Mode().IsRegular() {
		if err := checkOwnFile(info); err != nil {
			return nil, nil, &CorruptError{Path: path, Err: err}
		}
	}
	if !info.Mode().IsRegular() {
		return nil, nil, &CorruptError{Path: path, Err: fmt.Errorf("not a regular file (%s)", fileKind(info.Mode()))}
	}
	if info.Size() > todolist.MaxFileSize {
		return nil, nil, &CorruptError{Path: path, Err: fmt.Errorf("file is %d bytes, over the limit of %d: %w", info.Size(), todolist.MaxFileSize, todolist.ErrLimit)}
	}
	// One byte more than the stat said, to see the end of file in the
	// same read; a file that grew since is read on to the limit.
	data := make([]byte, 0, info.Size()+1)
	for {
		want := cap(data) - len(data)
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF || err == nil && n < want {
			break // a short read of a regular file is its end: no second call to be told so
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", path, bareError(err))
		}
		if len(data) > todolist.MaxFileSize { // grew between Stat and read
			return nil, nil, &CorruptError{Path: path, Err: fmt.Errorf("file is over the limit of %d bytes: %w", todolist.MaxFileSize, todolist.ErrLimit)}
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
	if len(data) != int(info.Size()) {
		// Changed while read: its identity is not the one stat gave.
		if info, err = f.Stat(); err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", path, bareError(err))
		}
	}
	return data, info, nil
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// fileKind names a file type for people: "a directory" reads better than
// "d---------".
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a file"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
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

// ReadShared is LoadOrNew for a reader that only reads: the session it
// returns is the store's own decoded one, shared with the cache and every
// other reader, so nothing in it (its list, its items' subtasks) may ever
// be changed. A turn reads the list before and after it this way rather
// than copying it twice (turnstep).
func (s *Store) ReadShared(id string) (*Session, error) {
	if err := ValidSessionID(id); err != nil {
		return nil, err
	}
	st, err := s.readSession(id)
	if err != nil {
		return nil, err
	}
	return st.sess, nil // a new session when there is no file: not present, and its own
}

func (s *Store) newSession(id string) *Session {
	now := s.Now().UTC()
	return &Session{Version: todolist.FormatVersion, Session: id, CreatedAt: now, UpdatedAt: now, Todos: []todolist.Todo{}}
}
