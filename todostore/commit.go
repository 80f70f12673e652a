package todostore

// Commit, the one way a session changes (ARCHITECTURE.md §3).

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/todosh/todosh/todolist"
)

// Update is Commit by the person (todolist.ByYou), for callers that need not know
// whether anything changed.
func (s *Store) Update(id string, fn func(*Session) error) (*Session, error) {
	sess, _, err := s.Commit(id, todolist.ByYou, fn)
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
func (s *Store) Commit(id string, by todolist.Author, fn func(*Session) error) (*Session, bool, error) {
	return s.commit(id, by, false, func(sess *Session, _ []HistoryLine) error { return fn(sess) })
}

// commit is Commit for fns that need the history (revert, restore): with
// needHist it is read under the lock, and fn's outcome is decided there
// (apply.go: a history read without the lock may disagree with the file).
//
// The session is read once before the lock and once under it, each a stat
// when the file is the one this process last read or wrote (cache.go); fn
// runs again under the lock only when the file changed in between. The
// new state is encoded once; the history gets a delta of the list
// (history.go), and its end is known without reading it when this process
// wrote it last.
func (s *Store) commit(id string, by todolist.Author, needHist bool, fn func(*Session, []HistoryLine) error) (*Session, bool, error) {
	if err := ValidSessionID(id); err != nil {
		return nil, false, err
	}
	// 1. The change, made on the session as read and, when it changes
	// anything, made good under the lock (apply.go).
	c, err := s.applyLocked(id, needHist, fn)
	if c.unlock != nil {
		defer c.unlock()
	}
	if err != nil || !c.changed {
		return c.next, false, err
	}
	st, cur, next := c.st, c.st.sess, c.next
	// 2. Its stamps: revisions, format, time (revs.go). Only ids given or
	// the agent's read marked is no change of the list (listed false): no
	// history line, and the file's change record still names the
	// history's last line.
	listed := stamp(cur, next, id, by, s.Now().UTC())
	hash, hashAt := listHashes(next.Todos, cur.Todos, st.hashAt) // an unchanged list is compared, not hashed
	// 3. The lines the history gets: what it must say first so that it
	// explains the file as read, then the change's own (catchup.go).
	var h historyEnd
	var lines []HistoryLine
	if listed {
		if h, err = s.openTail(id); err != nil {
			return nil, false, err
		}
		defer h.f.Close()
		lines = h.linesFor(st, next, by, hash)
	} else {
		next.Change = cur.Change
	}
	// 4. The session file and the lines, encoded before anything is
	// written (encode.go, history.go).
	out, items, err := encodeReusing(next, cur.Todos, st.items)
	for errors.Is(err, todolist.ErrLimit) && next.Change != nil && len(next.Change.Ahead) > 0 {
		// The lines ahead (catchup.go) must not stop the change: past the
		// file's limit the oldest go, and a crash before the append
		// would lose only those, as missing changes.
		next.Change.Ahead = next.Change.Ahead[1:]
		out, items, err = encodeReusing(next, cur.Todos, st.items)
	}
	if err != nil {
		return nil, false, err
	}
	var buf []byte
	var chain lineChain
	if listed {
		lb := lineBufs.Get().(*[]byte)
		buf, chain, err = encodeLinesTo(*lb, h.tail.lineChain, cur.Todos, lines, out.Size)
		defer putLineBuf(lb, buf) // after the append below; nothing keeps buf
		if err != nil {
			return nil, false, fmt.Errorf("history %s: %w", h.f.Name(), err)
		}
		if h.tail.Size == 0 {
			// A session's first history line: the lock file an older
			// todosh kept beside the session file is not needed any more.
			os.Remove(filepath.Join(s.Dir, ".todo-"+id+".lock"))
		}
	}
	// 5. The session file, then the history's lines (write.go,
	// historywrite.go).
	result, _, err := s.writeSession(id, cur, st.items, next, out, items, hash, hashAt)
	if err != nil {
		return nil, false, err
	}
	if listed {
		if s.afterRename != nil {
			s.afterRename(id)
		}
		if err := s.appendLines(id, h, buf, chain, lines); err != nil {
			return result, true, err
		}
	}
	return result, true, nil
}
