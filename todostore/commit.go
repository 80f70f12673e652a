package todostore

// Commit, the one way a session changes (ARCHITECTURE.md §3).

import (
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
// needHist it is read again under the lock.
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
	// the agent's read marked is no change of the list: no history line,
	// and the file's change record still names the history's last line.
	if listed := stamp(cur, next, id, by, s.Now().UTC()); !listed {
		next.Change = cur.Change
		out, items, err := encodeReusing(next, cur.Todos, st.items)
		if err != nil {
			return nil, false, err
		}
		hash, hashAt := listHashes(next.Todos, cur.Todos, st.hashAt) // the same list: compared, not hashed
		return s.writeSession(id, cur, st.items, next, out, items, hash, hashAt)
	}
	archive := next.Archive
	next.Archive = nil // now kept in the history

	// 3. The history's end, and the lines it must say before this change
	// so that it explains the file as read (catchup.go).
	h, err := s.openTail(id)
	if err != nil {
		return nil, false, err
	}
	defer h.f.Close()
	newLines := h.linesBefore(st, archive)
	n := h.tail.n + 1
	if len(newLines) > 0 {
		n = newLines[len(newLines)-1].N + 1
	}
	// 4. The change's own line and the record the file keeps of it.
	hash, hashAt := listHashes(next.Todos, cur.Todos, st.hashAt)
	line := HistoryLine{N: n, At: next.UpdatedAt, By: by, What: next.describe(cur, by), Todos: next.Todos,
		Revert: next.revertOf, Dropped: next.dropped, PID: processID, hash: hashString(hash),
		snap: h.damaged && len(newLines) == 0} // after damage, a line that reads by itself
	newLines = append(newLines, line)
	next.Change = &todolist.ChangeRecord{N: n, Hash: line.hash, At: line.At, By: by, What: line.What, Revert: line.Revert, Dropped: line.Dropped, PID: processID}
	// 5. Both encoded (encode.go, history.go) before anything is written.
	out, items, err := encodeReusing(next, cur.Todos, st.items)
	if err != nil {
		return nil, false, err
	}
	lb := lineBufs.Get().(*[]byte)
	buf, chain, err := encodeLinesTo(*lb, h.tail.lineChain, cur.Todos, newLines, out.Size)
	defer putLineBuf(lb, buf) // after the append below; nothing keeps buf
	if err != nil {
		return nil, false, fmt.Errorf("history %s: %w", h.f.Name(), err)
	}
	if h.tail.Size == 0 {
		// A session's first history line: the lock file an older todosh
		// kept beside the session file is not needed any more.
		os.Remove(filepath.Join(s.Dir, ".todo-"+id+".lock"))
	}
	// 6. The session file, then the history's lines (write.go, history.go).
	result, _, err := s.writeSession(id, cur, st.items, next, out, items, hash, hashAt)
	if err != nil {
		return nil, false, err
	}
	if err := s.appendLines(id, h, buf, chain, newLines); err != nil {
		return result, true, err
	}
	return result, true, nil
}
