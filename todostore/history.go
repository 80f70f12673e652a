package todostore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Author says who made a change, as the history shows it.
type Author string

// The authors of changes. ByOther is a change the store found on disk
// that no history line explains (an editor, another program, a crash
// between the session file and its history line).
const (
	ByYou   Author = "you"
	ByAgent Author = "agent"
	ByOther Author = "other process"
)

// Bounds of one session's history. When either is passed the oldest lines
// are dropped, down to half of both, so the cost is paid rarely;
// the newest line, which holds the current list, is never dropped.
const (
	MaxHistoryLines = 1000
	MaxHistoryBytes = 4 << 20
)

// HistoryLine is one change of a session, one JSON object per line of its
// history file: what the list was after the change, who made it and what
// it did in words.
type HistoryLine struct {
	// N numbers the changes of a session from 1; it keeps counting when
	// the cap drops old lines.
	N     int       `json:"n"`
	At    time.Time `json:"at"`
	By    Author    `json:"by"`
	What  string    `json:"what"`
	Todos []Todo    `json:"todos"`
	// Revert is the N of the change this line took back (/todo revert),
	// so the next revert goes one change further back.
	Revert int `json:"revert,omitempty"`
	// Base marks a starting point rather than a change: an archive entry
	// imported from an older file, or a list found without history. It is
	// never taken back by a revert.
	Base bool `json:"base,omitempty"`
	// Dropped are the items (or an item with only its dropped subtasks)
	// the change took off the list, as an agent's rewrite names them.
	Dropped []Todo `json:"dropped,omitempty"`
	// PID is the process that wrote the line, so a shell can tell a
	// change another todosh made while it ran.
	PID int `json:"pid,omitempty"`
}

// processStart and processID tell this process's lines from others'.
var (
	processStart = time.Now()
	processID    = os.Getpid()
)

// Who is the author as this process shows it: a person's change made by
// another todosh while this one ran is "other process".
func (l HistoryLine) Who() Author {
	if l.By == ByYou && l.PID != 0 && l.PID != processID && l.At.After(processStart) {
		return ByOther
	}
	return l.By
}

// Said is What as shown next to its author: lines written before the
// words stopped naming the agent ("agent wrote a list of 3 items") lose
// that first word, so the history never says "agent  agent wrote …".
func (l HistoryLine) Said() string {
	if l.By == ByAgent {
		return strings.TrimPrefix(l.What, string(ByAgent)+" ")
	}
	return l.What
}

// SessionHistoryPath is the append-only history file of session id.
func (s *Store) SessionHistoryPath(id string) string {
	return s.Dir + string(os.PathSeparator) + "hist-" + id + ".jsonl"
}

// BadLine is a line of a history file that could not be used; it is
// skipped, and the file is left as it is.
type BadLine struct {
	Line int // 1-based line number in the file
	Err  error
}

// ParseHistory reads the lines of a history file. A last line without its
// newline was torn by a crash and is ignored; any other line that does not
// parse, breaks a limit or does not number after the line before it is
// returned in bad and skipped.
func ParseHistory(data []byte) (lines []HistoryLine, bad []BadLine) {
	no := 0
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // torn by a crash mid-write
		}
		raw := data[:i]
		data = data[i+1:]
		no++
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		l, err := parseHistoryLine(raw)
		if err == nil && len(lines) > 0 && l.N <= lines[len(lines)-1].N {
			err = fmt.Errorf("change %d after change %d", l.N, lines[len(lines)-1].N)
		}
		if err != nil {
			bad = append(bad, BadLine{Line: no, Err: err})
			continue
		}
		lines = append(lines, l)
	}
	return lines, bad
}

func parseHistoryLine(raw []byte) (HistoryLine, error) {
	var l HistoryLine
	if len(raw) == 0 || raw[0] != '{' {
		return l, errors.New("not a JSON object")
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return l, fmt.Errorf("parse: %w", err)
	}
	if l.N < 1 {
		return l, fmt.Errorf("change number %d", l.N)
	}
	if err := Validate(l.Todos); err != nil {
		return l, err
	}
	if l.Todos == nil {
		l.Todos = []Todo{}
	}
	Normalize(l.Todos)
	return l, nil
}

func encodeHistoryLine(l HistoryLine) ([]byte, error) {
	if l.Todos == nil {
		l.Todos = []Todo{}
	}
	data, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// HistoryError reports a history file that could not be read whole.
type HistoryError struct {
	Path string
	Bad  []BadLine
}

func (e *HistoryError) Error() string {
	b := e.Bad[0]
	more := ""
	if len(e.Bad) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(e.Bad)-1)
	}
	return fmt.Sprintf("%s: line %d unreadable%s: %v (skipped and left in the file; the other changes are shown)", e.Path, b.Line, more, b.Err)
}

// History reads session id's changes, oldest first. A missing file is an
// empty history. Unreadable lines are skipped and reported as a
// *HistoryError beside the lines that could be read. What the next change
// will write first is shown as written already, numbered as it will be: an
// older file's archive entries, and a list on disk no line explains.
func (s *Store) History(id string) ([]HistoryLine, error) {
	if err := ValidSessionID(id); err != nil {
		return nil, err
	}
	lines, err := readHistory(s.SessionHistoryPath(id))
	if sess, data, rerr := s.readSession(id); rerr == nil && data != nil {
		var t histTail
		if len(lines) > 0 {
			t.last = &lines[len(lines)-1]
		}
		lines = append(lines, historyLines(t, true, sess.Archive, sess, nil, "")...)
	}
	return lines, err
}

func readHistory(path string) ([]HistoryLine, error) {
	f, err := openHistory(path, os.O_RDONLY)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 2*MaxHistoryBytes))
	if err != nil {
		return nil, fmt.Errorf("read history %s: %w", path, err)
	}
	lines, bad := ParseHistory(data)
	if len(bad) > 0 {
		return lines, &HistoryError{Path: path, Bad: bad}
	}
	return lines, nil
}

// histTail is what a write needs to know of a history file without
// reading it whole: the newest good line, the first line's number, where
// the last complete line ends and the size.
type histTail struct {
	last    *HistoryLine
	firstN  int
	end     int64 // offset after the last newline; a torn rest follows
	size    int64
	present bool
}

// readTail reads the end of the history file open as f: its newest good
// line, and the first line's number.
func readTail(f *os.File) (histTail, error) {
	info, err := f.Stat()
	if err != nil {
		return histTail{}, err
	}
	t := histTail{size: info.Size(), present: true}
	if t.size == 0 {
		return t, nil
	}
	if t.last, t.end, err = lastLine(f, t.size, nil); err != nil {
		return t, err
	}
	t.firstN = firstLineN(f)
	return t, nil
}

// lastLine returns the newest good line of the file for which keep (nil:
// any) is true, reading backwards in windows that double until one holds
// it or the whole file is read; end is the offset after the last newline
// (a torn rest follows it). The last line is nil when none is found.
func lastLine(f *os.File, size int64, keep func(*HistoryLine) bool) (last *HistoryLine, end int64, err error) {
	for window := int64(4 << 10); ; window *= 2 {
		start := max(size-window, 0)
		buf := make([]byte, size-start)
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return nil, 0, err
		}
		nl := bytes.LastIndexByte(buf, '\n')
		if nl < 0 && start == 0 {
			return nil, 0, nil // only a torn line
		}
		if nl >= 0 {
			end = start + int64(nl) + 1
			for body := buf[:nl]; len(body) > 0; {
				i := bytes.LastIndexByte(body, '\n')
				if i < 0 && start > 0 {
					break // the line begins before the window
				}
				if l, err := parseHistoryLine(bytes.TrimSpace(body[i+1:])); err == nil && (keep == nil || keep(&l)) {
					return &l, end, nil
				}
				if i < 0 {
					break
				}
				body = body[:i]
			}
		}
		if start == 0 {
			return nil, end, nil
		}
	}
}

// firstLineN reads the number of the first line from its opening
// `{"n":123,`, which encodeHistoryLine always writes first; 0 when that
// line is unreadable.
func firstLineN(f *os.File) int {
	var buf [32]byte
	n, _ := f.ReadAt(buf[:], 0)
	rest, ok := bytes.CutPrefix(buf[:n], []byte(`{"n":`))
	if !ok {
		return 0
	}
	i := 0
	for i < len(rest) && '0' <= rest[i] && rest[i] <= '9' {
		i++
	}
	v, err := strconv.Atoi(string(rest[:i]))
	if err != nil {
		return 0
	}
	return v
}

// appendHistory writes lines at the end of the history of id, under the
// session's lock: a torn rest left by a crash is cut first, each line is
// written whole in one write, and the file is synced. When the history is
// over its cap it is rewritten without its oldest lines.
func (s *Store) appendHistory(f *os.File, t histTail, lines []HistoryLine) error {
	path := f.Name()
	if t.end < t.size {
		if err := f.Truncate(t.end); err != nil {
			return fmt.Errorf("history %s: cut torn line: %w", path, err)
		}
	}
	var buf []byte
	for _, l := range lines {
		data, err := encodeHistoryLine(l)
		if err != nil {
			return fmt.Errorf("history %s: %w", path, err)
		}
		buf = append(buf, data...)
	}
	if _, err := f.WriteAt(buf, t.end); err != nil {
		return fmt.Errorf("history %s: %w", path, err)
	}
	if err := syncFile(f); err != nil {
		return fmt.Errorf("history %s: %w", path, err)
	}
	if t.size == 0 {
		// A new file: its directory entry must be durable too.
		if err := syncDir(path); err != nil {
			return err
		}
	}
	count := 0
	if t.last != nil && t.firstN > 0 {
		count = t.last.N - t.firstN + 1
	}
	count += len(lines)
	if count > MaxHistoryLines || t.end+int64(len(buf)) > MaxHistoryBytes {
		return s.capHistory(path)
	}
	return nil
}

// capHistory drops the oldest lines of a history over its cap, down to
// half of both bounds, so the rewrite is rare. Lines are kept as they are,
// not parsed again. A file with a line that is not a change at all
// (garbage, not an object starting with its number) is set aside under a
// new name instead of being replaced.
func (s *Store) capHistory(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("history %s: %w", path, err)
	}
	var ends []int // offsets just after each newline
	bad := false
	for start := 0; start < len(data); {
		i := bytes.IndexByte(data[start:], '\n')
		if i < 0 {
			break // a torn rest is dropped
		}
		if !bytes.HasPrefix(data[start:], []byte(`{"n":`)) {
			bad = true
		}
		start += i + 1
		ends = append(ends, start)
	}
	if len(ends) == 0 {
		return nil
	}
	// Line k spans ends[k-1] (or 0) to ends[k]; keep the newest lines
	// while both halves of the bounds allow one more.
	lineStart := func(k int) int {
		if k <= 0 {
			return 0
		}
		return ends[k-1]
	}
	end, n := ends[len(ends)-1], len(ends)
	keep := 1
	for keep < n && keep+1 <= MaxHistoryLines/2 && end-lineStart(n-keep-1) <= MaxHistoryBytes/2 {
		keep++
	}
	keepFrom := lineStart(n - keep)
	if bad {
		if err := setAside(path); err != nil {
			return err
		}
	}
	return writeLocked(path, data[keepFrom:end])
}

// setAside renames a file that must not be overwritten to path.bad-N.
func setAside(path string) error {
	for i := 1; ; i++ {
		aside := path + ".bad-" + strconv.Itoa(i)
		if _, err := os.Lstat(aside); err == nil {
			continue
		}
		if err := os.Rename(path, aside); err != nil {
			return fmt.Errorf("set aside %s: %w", path, err)
		}
		return nil
	}
}

// RevertTarget returns the index in lines of the change the next
// /todo revert takes back: the newest change of the list that is not
// itself a revert, already reverted, or a starting point; after a revert
// of change K, the newest such change before K, so reverts chain
// backwards. ok is false
// when there is nothing left to take back.
func RevertTarget(lines []HistoryLine) (int, bool) {
	bound := int(^uint(0) >> 1)
	if n := len(lines); n > 0 && lines[n-1].Revert > 0 {
		bound = lines[n-1].Revert
	}
	reverted := map[int]bool{}
	for _, l := range lines {
		if l.Revert > 0 {
			reverted[l.Revert] = true
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if l.N >= bound || l.Revert > 0 || l.Base || reverted[l.N] {
			continue
		}
		if i > 0 && SameTodos(lines[i-1].Todos, l.Todos) {
			continue // pause, agent id: not a change of the list
		}
		if i == 0 && (l.N != 1 || len(l.Todos) == 0) {
			return 0, false // what came before it is not kept
		}
		return i, true
	}
	return 0, false
}

// before is the list as it was before lines[i]: the line before it, or
// the empty list of a new session.
func before(lines []HistoryLine, i int) []Todo {
	if i == 0 {
		return []Todo{}
	}
	return CloneTodos(lines[i-1].Todos)
}

// ErrNothingToRevert is returned by Revert when no change is left to take
// back.
var ErrNothingToRevert = errors.New("nothing to revert")

// Revert takes back the last change of the list (see RevertTarget) as a
// new change by, and returns the change it took back.
func (s *Store) Revert(id string, by Author) (*Session, HistoryLine, error) {
	var took HistoryLine
	sess, changed, err := s.commit(id, by, true, func(sess *Session, lines []HistoryLine) error {
		i, ok := RevertTarget(lines)
		if !ok {
			return ErrNothingToRevert
		}
		took = lines[i]
		sess.Todos = before(lines, i)
		sess.revertOf = took.N
		sess.Note(fmt.Sprintf("reverted change %d (%s)", took.N, ShortLine(took.Said(), 60)))
		return nil
	})
	if err == nil && !changed {
		err = fmt.Errorf("%w: the list is already as it was before change %d", ErrNothingToRevert, took.N)
	}
	return sess, took, err
}

// FindChange returns the line of change n, or an error naming the changes
// that are kept.
func FindChange(lines []HistoryLine, n int) (HistoryLine, error) {
	for _, l := range lines {
		if l.N == n {
			return l, nil
		}
	}
	if len(lines) == 0 {
		return HistoryLine{}, fmt.Errorf("no change %d: this session has no history yet", n)
	}
	return HistoryLine{}, fmt.Errorf("no change %d: the history holds changes %d-%d", n, lines[0].N, lines[len(lines)-1].N)
}

// Restore makes the list what it was after change n, as a new change by.
func (s *Store) Restore(id string, n int, by Author) (*Session, bool, error) {
	return s.commit(id, by, true, func(sess *Session, lines []HistoryLine) error {
		l, err := FindChange(lines, n)
		if err != nil {
			return err
		}
		sess.Todos = CloneTodos(l.Todos)
		sess.Note(fmt.Sprintf("restored the list of change %d", n))
		return nil
	})
}

// LastList returns the newest non-empty list in session id's history, for
// a session whose current list is empty; ok is false when there is none.
// It reads the history backwards from its end, not whole.
func (s *Store) LastList(id string) (HistoryLine, bool) {
	nonEmpty := func(l *HistoryLine) bool { return len(l.Todos) > 0 }
	if sess, _, err := s.readSession(id); err == nil && len(sess.Archive) > 0 {
		// An older file: its archive is history only History shows.
		lines, _ := s.History(id)
		for i := len(lines) - 1; i >= 0; i-- {
			if nonEmpty(&lines[i]) {
				return lines[i], true
			}
		}
		return HistoryLine{}, false
	}
	f, err := os.OpenFile(s.SessionHistoryPath(id), os.O_RDONLY|openNoBlock|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return HistoryLine{}, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return HistoryLine{}, false
	}
	l, _, err := lastLine(f, info.Size(), nonEmpty)
	if err != nil || l == nil {
		return HistoryLine{}, false
	}
	return *l, true
}

// LastChange returns the newest line of session id's history; ok is false
// when it has none.
func (s *Store) LastChange(id string) (HistoryLine, bool) {
	lines, _ := s.History(id)
	if len(lines) == 0 {
		return HistoryLine{}, false
	}
	return lines[len(lines)-1], true
}

// LoadShown reads the listed session e for showing: a session whose list
// is empty but whose history holds lists shows its last non-empty list,
// marked Archived.
func (s *Store) LoadShown(e Entry) (*Session, error) {
	sess, err := s.LoadEntry(e)
	if err != nil || len(sess.Todos) > 0 {
		return sess, err
	}
	if l, ok := s.LastList(e.ID); ok {
		sess.Todos, sess.Archived = l.Todos, true
	}
	return sess, nil
}
