package todostore

// Commit, the one way a session changes (ARCHITECTURE.md §3).

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

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
		if lines, err = s.usableHistory(id); err != nil {
			return nil, false, err
		}
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
			if lines, err = s.usableHistory(id); err != nil {
				return nil, false, err
			}
		}
		if next, changed, err = applyChange(cur2, lines, fn); err != nil || !changed {
			return cur2, false, err
		}
	}
	cur, data = cur2, data2
	stampRevs(cur, next, by)
	// A change that only gives ids or marks the agent's read (ids.go) is
	// not a change of the list: no history line.
	quiet := onlyMarks(cur, next) && len(next.Archive) == 0
	next.Version = FormatVersion
	next.Session = id
	next.UpdatedAt = s.Now().UTC()
	archive := next.Archive
	next.Archive = nil // now kept in the history
	out, err := Encode(next)
	if err != nil {
		return nil, false, err
	}
	if quiet {
		if err := writeLocked(s.Path(id), out); err != nil {
			return nil, false, err
		}
		if s.AfterWrite != nil {
			s.AfterWrite(id, out)
		}
		return next, true, nil
	}
	hist, err := openHistory(s.SessionHistoryPath(id), os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, false, err
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

// usableHistory is History for a change made from it (revert, restore):
// unreadable lines are skipped, but a history file that is refused
// (openHistory) is an error, not an empty history.
func (s *Store) usableHistory(id string) ([]HistoryLine, error) {
	lines, err := s.History(id)
	var he *HistoryError
	if err != nil && !errors.As(err, &he) {
		return nil, err
	}
	return lines, nil
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
	assignUIDs(next)
	if next.agentSees {
		next.AgentRead = next.Rev // stampRevs sets it again if the list changes
	}
	return next, !sameState(cur, next), nil
}
