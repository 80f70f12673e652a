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
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
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

	sweepOnce sync.Once // leftover temp files are removed at the first write
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

// ValidSessionID refuses ids that could escape the store directory or
// collide with its own files: only [A-Za-z0-9._-], 1 to 100 characters,
// and not "." or "..". It is a loop, not a regexp, because List runs it on
// every file name of the store (a regexp cost 1 µs per name).
func ValidSessionID(id string) error {
	ok := len(id) >= 1 && len(id) <= MaxSessionIDLen && id != "." && id != ".."
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
	}
	if !ok {
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

// lockDir holds the sessions' lock files, out of the listed directory so
// that they do not double its entries.
func (s *Store) lockDir() string { return filepath.Join(s.Dir, ".locks") }

func (s *Store) lockPath(id string) string { return filepath.Join(s.lockDir(), id+".lock") }

// ConvPath is where the model API backend saves the conversation of
// session id, next to the session file and named so that List skips it.
func (s *Store) ConvPath(id string) string { return filepath.Join(s.Dir, "conv-"+id+".json") }

// sessionFiles is every file the store keeps for session id, the session
// file first: Remove deletes them in this order, so a session is gone from
// List before anything else of it is. A new per-session file is one more
// line here. The lock file is last, and is removed after the lock is let go.
func (s *Store) sessionFiles(id string) []string {
	path := s.Path(id)
	return []string{
		path,
		filepath.Join(s.Dir, "."+filepath.Base(path)+".tmp"), // writeLocked's temp file, left by a killed writer
		s.SessionHistoryPath(id),
		s.ConvPath(id),
		s.lockPath(id),
	}
}

// Remove deletes every file the store keeps for session id (its list,
// history, conversation and lock). It holds the session's lock while it does, so it
// never interleaves with a write; a todosh still open on the session
// writes a new file on its next change. A session without a file is an
// error that wraps fs.ErrNotExist, and nothing is removed.
func (s *Store) Remove(id string) error {
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
	for _, f := range files[:len(files)-1] {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			unlock()
			return fmt.Errorf("remove session %s: %w", id, err)
		}
	}
	unlock()
	if err := os.Remove(lock); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove session %s: %w", id, err)
	}
	return nil
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
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("file is %d bytes, over the limit of %d: %w", len(data), MaxFileSize, ErrLimit)
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
		sess.Version = FormatVersion
	} else {
		if err := json.Unmarshal(trimmed, &sess); err != nil {
			return nil, fmt.Errorf("parse: %w", err)
		}
		if sess.Version == 0 {
			sess.Version = FormatVersion // llxprt-code's {todos, paused}
		}
	}
	if err := readExtras(trimmed, &sess, trimmed[0] == '['); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
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
	// A file written by hand or by another program may carry ids and
	// statuses that disagree with the rules; show it as it will be saved.
	Normalize(sess.Todos)
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

// readFile reads a session file of at most MaxFileSize bytes. A file that
// is not regular or too large is a *CorruptError. It opens with O_NONBLOCK
// so that a FIFO named like a session file is refused instead of blocking
// the shell forever; on a regular file the flag has no effect.
func readFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, bareError(err))
	}
	if !info.Mode().IsRegular() {
		return nil, &CorruptError{Path: path, Err: fmt.Errorf("not a regular file (%s)", fileKind(info.Mode()))}
	}
	if info.Size() > MaxFileSize {
		return nil, &CorruptError{Path: path, Err: fmt.Errorf("file is %d bytes, over the limit of %d: %w", info.Size(), MaxFileSize, ErrLimit)}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, bareError(err))
	}
	if len(data) > MaxFileSize { // grew between Stat and read
		return nil, &CorruptError{Path: path, Err: fmt.Errorf("file is over the limit of %d bytes: %w", MaxFileSize, ErrLimit)}
	}
	return data, nil
}

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

func (s *Store) newSession(id string) *Session {
	now := s.Now().UTC()
	return &Session{Version: FormatVersion, Session: id, CreatedAt: now, UpdatedAt: now, Todos: []Todo{}}
}

// Update is Commit by the person (ByYou), for callers that need not know
// whether anything changed.
func (s *Store) Update(id string, fn func(*Session) error) (*Session, error) {
	sess, _, err := s.Commit(id, ByYou, fn)
	return sess, err
}

// Commit is the only way a session changes. It applies fn to the session
// as it is on disk (a new empty one when there is no file), normalizes and
// validates the list, and reports whether anything changed. A change that
// changes nothing writes nothing: no directory, no lock file, no history
// line. A real change is, under the session's lock, one atomic durable
// write of the session file and one line appended to its history, with
// by as its author and, as its words, the note fn gave (Session.Note) or
// a description of the difference in the list. If fn or validation fails
// nothing is written and the error is returned as is. fn may run twice
// (once before the lock is taken, again under it when the file changed in
// between), so it must only change the session it is given and values it
// sets afresh each time.
func (s *Store) Commit(id string, by Author, fn func(*Session) error) (*Session, bool, error) {
	return s.commit(id, by, false, func(sess *Session, _ []HistoryLine) error { return fn(sess) })
}

// commit is Commit for fns that need the history (revert, restore): with
// needHist it is read again under the lock.
func (s *Store) commit(id string, by Author, needHist bool, fn func(*Session, []HistoryLine) error) (*Session, bool, error) {
	if err := ValidSessionID(id); err != nil {
		return nil, false, err
	}
	cur, data, err := s.readSession(id)
	if err != nil {
		return nil, false, err
	}
	var lines []HistoryLine
	if needHist {
		lines, _ = s.History(id) // unreadable lines are skipped
	}
	next, changed, err := applyChange(cur, lines, fn)
	if err != nil || !changed {
		return cur, false, err
	}
	if err := mkdirStore(s.Dir); err != nil {
		return nil, false, err
	}
	if err := mkdirStore(s.lockDir()); err != nil {
		return nil, false, err
	}
	s.sweepOnce.Do(func() { sweepTemps(s.Dir, time.Now()) })
	unlock, err := s.lockFile(s.lockPath(id))
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	cur2, data2, err := s.readSession(id)
	if err != nil {
		return nil, false, err
	}
	if needHist || !bytes.Equal(data, data2) {
		if needHist {
			lines, _ = s.History(id)
		}
		if next, changed, err = applyChange(cur2, lines, fn); err != nil || !changed {
			return cur2, false, err
		}
	}
	cur, data = cur2, data2
	next.Version = FormatVersion
	next.Session = id
	next.UpdatedAt = s.Now().UTC()
	archive := next.Archive
	next.Archive = nil // now kept in the history
	out, err := Encode(next)
	if err != nil {
		return nil, false, err
	}
	hist, err := os.OpenFile(s.SessionHistoryPath(id), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, FileMode)
	if err != nil {
		return nil, false, fmt.Errorf("history: %w", err)
	}
	defer hist.Close()
	tail, err := readTail(hist)
	if err != nil {
		return nil, false, fmt.Errorf("history %s: %w", hist.Name(), err)
	}
	newLines := historyLines(tail, data != nil, archive, cur, next, by)
	if tail.size == 0 {
		// A session's first history line: the lock file an older todosh
		// kept beside the session file is not needed any more.
		os.Remove(filepath.Join(s.Dir, ".todo-"+id+".lock"))
	}
	if err := writeLocked(s.Path(id), out); err != nil {
		return nil, false, err
	}
	if s.AfterWrite != nil {
		s.AfterWrite(id, out)
	}
	if err := s.appendHistory(hist, tail, newLines); err != nil {
		return next, true, err
	}
	return next, true, nil
}

// historyLines are the lines one change appends: first, once, the entries
// of an older file's archive and the list the history does not explain
// (found in a file written before the history, or by another program),
// then the change itself (none when next is nil: what History shows
// before the first change).
func historyLines(tail histTail, hadFile bool, archive []ArchiveEntry, cur, next *Session, by Author) []HistoryLine {
	n := 0
	last := []Todo{}
	if tail.last != nil {
		n, last = tail.last.N, tail.last.Todos
	}
	var out []HistoryLine
	add := func(l HistoryLine) {
		n++
		l.N, l.PID = n, processID
		out = append(out, l)
	}
	for _, a := range archive {
		who := ByYou
		if a.Reason == "dropped by agent" {
			who = ByAgent
		}
		add(HistoryLine{At: a.At, By: who, What: fmt.Sprintf("from the archive: %s (%s)", a.Reason, Plural(len(a.Todos), "item")), Todos: CloneTodos(a.Todos), Base: true})
	}
	if !SameTodos(last, cur.Todos) || len(archive) > 0 {
		if tail.last == nil && hadFile {
			what := "the list as it was before its history began"
			if len(cur.Todos) == 0 {
				what = "the list was empty when its history began"
			}
			add(HistoryLine{At: cur.UpdatedAt, By: ByOther, What: what, Todos: CloneTodos(cur.Todos), Base: true})
		} else {
			add(HistoryLine{At: cur.UpdatedAt, By: ByOther, What: Describe(last, cur.Todos, ByOther), Todos: CloneTodos(cur.Todos)})
		}
	}
	if next != nil {
		add(HistoryLine{At: next.UpdatedAt, By: by, What: next.describe(cur, by), Todos: CloneTodos(next.Todos), Revert: next.revertOf, Dropped: next.dropped})
	}
	return out
}

// readSession reads session id and its bytes; a missing file is a new
// session and nil bytes.
func (s *Store) readSession(id string) (*Session, []byte, error) {
	path := s.Path(id)
	data, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s.newSession(id), nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	sess, err := Decode(data)
	if err != nil {
		return nil, nil, &CorruptError{Path: path, Err: err}
	}
	return sess, data, nil
}

// applyChange runs fn on a copy of cur and says whether the result
// differs from cur in anything but its archive.
func applyChange(cur *Session, lines []HistoryLine, fn func(*Session, []HistoryLine) error) (*Session, bool, error) {
	next := cur.clone()
	if err := fn(next, lines); err != nil {
		return nil, false, err
	}
	Normalize(next.Todos)
	if err := Validate(next.Todos); err != nil {
		return nil, false, err
	}
	if next.Todos == nil {
		next.Todos = []Todo{}
	}
	return next, !sameState(cur, next), nil
}

// Defaults of waiting for another process's lock on a session.
const (
	// DefaultLockTimeout is how long a write waits for another process
	// that holds the session's lock before it gives up (--lock-timeout).
	DefaultLockTimeout = 30 * time.Second
	// lockNotice is how long a write waits silently before saying so.
	lockNotice = time.Second
)

// lockFile takes an exclusive advisory lock on path (created if needed,
// never through a symlink) and returns the function that releases it. The
// lock is on a separate file because the data file is replaced by every
// rename. When another process holds it, the wait is said after a moment
// (OnLockWait) and given up after LockTimeout with one line naming the
// holder.
func (s *Store) lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, FileMode)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("lock %s: it is a symlink, which todosh never makes: remove it", path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, bareError(err))
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, bareError(err))
		}
		return nil, fmt.Errorf("lock %s: it is %s, not a lock file: move it aside", path, fileKind(info.Mode()))
	}
	unlock := func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		return unlock, nil
	}
	if err != syscall.EWOULDBLOCK {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// Held by another process: wait for it in a goroutine, which a
	// blocking flock keeps fair and prompt, and give up after the limit.
	got := make(chan error, 1)
	go func() {
		var err error
		for {
			if err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != syscall.EINTR {
				break
			}
		}
		got <- err
	}()
	timeout := s.LockTimeout
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	holder := lockHolder(f)
	noticed := false
	sayWaiting := func() {
		if !noticed && s.OnLockWait != nil {
			s.OnLockWait(fmt.Sprintf("waiting for %s to release %s (up to %s)", orSomeone(holder), path, timeout))
		}
		noticed = true
	}
	notice := time.NewTimer(min(lockNotice, timeout))
	defer notice.Stop()
	limit := time.NewTimer(timeout)
	defer limit.Stop()
	for {
		select {
		case err := <-got:
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("lock %s: %w", path, err)
			}
			return unlock, nil
		case <-notice.C:
			sayWaiting()
		case <-limit.C:
			sayWaiting() // however late this goroutine ran, the wait was said before it ends
			// The waiting goroutine may still get the lock: release it then.
			go func() {
				if <-got == nil {
					unlock()
				} else {
					f.Close()
				}
			}()
			if h := lockHolder(f); h != "" {
				holder = h
			}
			return nil, fmt.Errorf("%s is still locked by %s after %s: gave up (end that process, or wait and try again; --lock-timeout sets the limit)", path, orSomeone(holder), timeout)
		}
	}
}

// orSomeone is a lock holder's name, or "another process" when it is not known.
func orSomeone(holder string) string {
	if holder == "" {
		return "another process"
	}
	return holder
}

// WriteFileAtomic replaces path with data so that a reader, or a crash at
// any moment, sees either the old file or the new one: temp file in the
// same directory, fsync, rename, fsync the directory. The file keeps its
// mode without the group and other bits, or gets 0600 when it is new.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, bareError(err))
	}
	return countWrite(commitTemp(tmp, path, data))
}

// writeLocked is WriteFileAtomic for a writer that holds the session's
// lock: no other writer can be using the fixed temp name, so the one a
// killed writer left behind is removed instead of piling up. O_EXCL and
// O_NOFOLLOW after the remove mean a planted symlink is never followed;
// anything else in the way (a directory of that name) is reported.
func writeLocked(path string, data []byte) error {
	name := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if info, err := os.Lstat(name); err == nil && (info.IsDir() || !info.Mode().IsRegular() && info.Mode()&fs.ModeSymlink == 0) {
		return fmt.Errorf("write %s: %s is in the way of its temp file (%s, not todosh's): move it aside", path, name, fileKind(info.Mode()))
	}
	if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write %s: remove the old temp file %s: %w", path, name, bareError(err))
	}
	tmp, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, FileMode)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, bareError(err))
	}
	return countWrite(commitTemp(tmp, path, data))
}

// commitTemp writes data to the new temp file tmp, syncs it, renames it
// over path and syncs the directory. On error the temp file is removed.
// The temp file is locked while it exists, so sweepTemps knows it is not
// a leftover.
func commitTemp(tmp *os.File, path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	syscall.Flock(int(tmp.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) // only tells the sweep it is in use
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), bareError(err))
	}
	if err = tmp.Chmod(modeFor(path)); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), bareError(err))
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp.Name(), bareError(err))
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, bareError(err))
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, bareError(err))
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, bareError(err))
	}
	defer d.Close()
	if err = d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, bareError(err))
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
	isSession := func(name string) bool { _, ok := IDFromFileName(name); return ok }
	names, stats, err := readDirNames(s.Dir, isSession)
	if err != nil {
		return nil, err
	}
	dir := filepath.Clean(s.Dir) + string(filepath.Separator)
	entries := make([]Entry, len(names))
	for i, name := range names {
		id, _ := IDFromFileName(name)
		entries[i] = Entry{ID: id, Path: dir + name, ModTime: stats[i].modTime}
	}
	slices.SortFunc(entries, func(a, b Entry) int {
		if c := b.ModTime.Compare(a.ModTime); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return entries, nil
}

// nameStat is what listing needs to know of a directory entry.
type nameStat struct {
	ok      bool // false when the entry vanished or could not be stat'ed
	modTime time.Time
	size    int64
	mode    uint32 // S_IFMT bits, as unix.S_IFDIR
}

// statNames stats names (without following symlinks) in the directory open
// as dirfd. fstatat relative to the directory walks one path component
// instead of the whole path (5x faster than os.Lstat here), and large
// directories are split across the CPUs.
func statNames(dirfd int, names []string) []nameStat {
	out := make([]nameStat, len(names))
	stat := func(lo, hi int) {
		var st unix.Stat_t
		for i := lo; i < hi; i++ {
			if unix.Fstatat(dirfd, names[i], &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
				out[i] = nameStat{ok: true, modTime: time.Unix(st.Mtim.Unix()), size: st.Size, mode: st.Mode & unix.S_IFMT}
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), 4, len(names)/2000)
	if workers <= 1 {
		stat(0, len(names))
		return out
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stat(w*len(names)/workers, (w+1)*len(names)/workers)
		}()
	}
	wg.Wait()
	return out
}

// readDirNames lists the names of a directory that keep accepts, without
// sorting, and stats them. A missing directory is empty, not an error.
func readDirNames(dir string, keep func(name string) bool) ([]string, []nameStat, error) {
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
	return names, statNames(int(d.Fd()), names), nil
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
