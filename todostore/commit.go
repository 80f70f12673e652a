package todostore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/todosh/todosh/todolist"
)

// Update is Commit by the person (ByYou), for callers that need not know
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
	st, err := s.readSession(id)
	if err != nil {
		return nil, false, err
	}
	var lines []HistoryLine
	if needHist {
		if lines, err = s.usableHistory(id); err != nil {
			return nil, false, err
		}
	}
	next, changed, err := applyChange(st.sess, lines, fn)
	if err != nil && !(needHist && st.present) {
		return st.sess.clone(), false, err
	}
	// A history read without the lock may catch a writer between its
	// rename and its append (the file a change ahead), which fn may
	// refuse (a gap): such a refusal is decided again under the lock.
	if err == nil && !changed {
		return next, false, nil // the same state, and already the caller's own copy
	}
	if err := s.ensureDirs(); err != nil {
		return nil, false, err
	}
	s.sweepOnce.Do(func() { sweepTemps(s.Dir, time.Now()) })
	unlock, err := s.lockFile(s.lockPath(id))
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	st2, err := s.readSession(id)
	if err != nil {
		return nil, false, err
	}
	if needHist || st2.present != st.present || st2.fid != st.fid {
		if needHist {
			if lines, err = s.usableHistory(id); err != nil {
				return nil, false, err
			}
		}
		if next, changed, err = applyChange(st2.sess, lines, fn); err != nil || !changed {
			return st2.sess.clone(), false, err
		}
	}
	st = st2
	cur := st.sess
	listSame := todolist.SameTodos(cur.Todos, next.Todos) // one comparison of the lists for both
	snap := sharedSnapshot(cur)
	stampRevs(cur, next, by, listSame)
	checkShared(cur, snap)
	next.Version = todolist.FormatVersion
	next.Session = id
	next.UpdatedAt = s.Now().UTC()
	if onlyMarks(cur, next, listSame) && len(next.Archive) == 0 {
		// Only ids given or the agent's read marked (ids.go): not a change
		// of the list, so no history line, and the file's change record
		// still names the history's last line.
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

	hist, err := openHistory(s.SessionHistoryPath(id), os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, false, err
	}
	defer hist.Close()
	hinfo, err := hist.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("history %s: %w", hist.Name(), err)
	}
	tail, known := s.cache.histTail(id, idOf(hinfo))
	_, damaged := s.damaged.Load(id)
	if !known {
		if tail, err = readTail(hist, hinfo); err != nil {
			return nil, false, fmt.Errorf("history %s: %w", hist.Name(), err)
		}
		// Another process wrote last: its chain is checked once, so a
		// change after lost or renumbered lines is a snapshot.
		damaged = damaged || !chainIntact(hist, tail)
	}
	// What the history must say first so that it explains the file
	// (nothing, when its last line is the change that wrote it), read
	// whole only when neither that nor a lost line of ours explains it.
	var newLines []HistoryLine
	if !explained(tail, st) || len(archive) > 0 {
		var last *HistoryLine
		if _, ok := lostLine(tail.n, st); !ok && tail.n > 0 {
			// The list the history ends with, for the words of the change
			// found on disk: read from its snapshot, never the whole file,
			// so a change costs the same with 10 or 1,900 lines.
			var whole bool
			last, whole = readChainEnd(hist, tail)
			damaged = damaged || !whole
		} else if tail.n > 0 {
			last = &HistoryLine{N: tail.n} // its list is not needed: the lost line is a snapshot
		}
		st.sess = cur.clone()
		st.sess.Archive = archive
		newLines = catchUp(last, st)
	}
	n := tail.n + 1
	if len(newLines) > 0 {
		n = newLines[len(newLines)-1].N + 1
	}
	hash, hashAt := listHashes(next.Todos, cur.Todos, st.hashAt)
	line := HistoryLine{N: n, At: next.UpdatedAt, By: by, What: next.describe(cur, by), Todos: next.Todos,
		Revert: next.revertOf, Dropped: next.dropped, PID: processID, hash: hashString(hash),
		snap: damaged && len(newLines) == 0} // after damage, a line that reads by itself
	newLines = append(newLines, line)
	next.Change = &todolist.ChangeRecord{N: n, Hash: line.hash, At: line.At, By: by, What: line.What, Revert: line.Revert, Dropped: line.Dropped, PID: processID}
	out, items, err := encodeReusing(next, cur.Todos, st.items)
	if err != nil {
		return nil, false, err
	}
	lb := lineBufs.Get().(*[]byte)
	buf, chain, err := encodeLinesTo(*lb, tail.lineChain, cur.Todos, newLines, out.Size)
	defer putLineBuf(lb, buf) // after the append below; nothing keeps buf
	if err != nil {
		return nil, false, fmt.Errorf("history %s: %w", hist.Name(), err)
	}
	if tail.Size == 0 {
		// A session's first history line: the lock file an older todosh
		// kept beside the session file is not needed any more.
		os.Remove(filepath.Join(s.Dir, ".todo-"+id+".lock"))
	}
	result, _, err := s.writeSession(id, cur, st.items, next, out, items, hash, hashAt)
	if err != nil {
		return nil, false, err
	}
	capped, err := s.appendHistory(hist, tail, buf, len(newLines))
	if err != nil {
		return result, true, err
	}
	if damaged {
		s.damaged.Delete(id)
	}
	if !capped {
		if info, err := hist.Stat(); err == nil {
			after := histTail{lineChain: chain, hash: line.hash, firstN: tail.firstN, end: tail.end + int64(len(buf)), Size: tail.end + int64(len(buf))}
			if after.firstN == 0 {
				after.firstN = newLines[0].N
			}
			s.cache.setHistTail(id, idOf(info), after)
		}
	}
	return result, true, nil
}

// writeSession writes out, the encoding of next, as session id's file: the
// one durable write of a change. It keeps a copy of next as the cache's
// decoded session (hash is its list's, hashAt its states at each item,
// items its items' encodings), sharing what did not change with cur, the
// cache's session before (whose items' encodings were prevItems), and
// returns next, the caller's own now.
func (s *Store) writeSession(id string, cur *Session, prevItems [][]byte, next *Session, out encoding, items [][]byte, hash uint64, hashAt []uint64) (*Session, bool, error) {
	f, fid, err := writeLockedPieces(s.Path(id), out.pieces)
	if err != nil {
		s.cache.drop(id)
		return nil, false, err
	}
	if s.AfterWrite != nil {
		s.AfterWrite(id, out.bytes())
	}
	if a := next.Agent; a != nil && (cur.Agent == nil || cur.Agent.Kind != a.Kind || cur.Agent.Session != a.Session) {
		s.linkAgent(id, a)
	}
	var same func(int) bool // the items whose encodings were cur's (prevItems)
	if len(items) == len(next.Todos) && len(prevItems) == len(items) {
		// Both nil when the list took encoding/json's way: compared then.
		same = func(i int) bool {
			return i < len(items) && len(items[i]) > 0 && len(prevItems[i]) > 0 && &items[i][0] == &prevItems[i][0]
		}
	}
	kept := next.cloneSharing(cur, same)
	next.note, next.notes, next.dropped, next.revertOf, next.agentSees = "", nil, nil, 0, false
	// kept is the cache's, never changed again; the file written stays
	// open as the entry's pin (cache.go).
	s.cache.put(id, state{sess: kept, present: true, fid: fid, hash: hash, items: items, hashAt: hashAt}, f)
	return next, true, nil
}

// usableHistory is History for a change made from it (revert, restore):
// lines that cannot be read are skipped, but a history that cannot be used
// at all (refused, unreadable) is an error rather than an empty history.
func (s *Store) usableHistory(id string) ([]HistoryLine, error) {
	lines, err := s.History(id)
	var he *HistoryError
	if err != nil && !errors.As(err, &he) {
		return nil, err
	}
	return lines, nil
}

// explained reports whether the history's last line is the change that
// wrote the session file as it is: the file's record names that line, and
// the line, the record and the list have one hash.
func explained(t histTail, st state) bool {
	c := st.sess.Change
	if !st.present {
		return t.n == 0
	}
	return c != nil && c.N == t.n && t.hash != "" && c.Hash == t.hash && c.Hash == hashString(st.hash)
}

// lostLine is the history line of the change that wrote the session file
// when the history does not have it: the process died after the rename
// and before the append. It keeps its author and words, and states the
// whole list (what the history ends with before it is not read).
func lostLine(lastN int, st state) (HistoryLine, bool) {
	c := st.sess.Change
	if !st.present || c == nil || c.N <= lastN || c.Hash != hashString(st.hash) {
		return HistoryLine{}, false
	}
	return HistoryLine{At: c.At, By: c.By, What: c.What, Todos: todolist.CloneTodos(st.sess.Todos), Revert: c.Revert, Dropped: c.Dropped, PID: c.PID, hash: c.Hash, snap: true}, true
}

// catchUp returns the lines that make a history whose last line is last
// (nil: none) explain the session as read: the change a crash kept out of
// it, or, once, the entries of an older file's archive and the list no
// line explains (found in a file written before the history, or by
// another program). They are numbered after last; a list stated without
// the line before it is a snapshot.
//
// Change numbers are never given twice: a session file whose change is
// numbered past the history's end (lines were lost: the history was cut,
// emptied or damaged) keeps its number, and the lines between are a Gap.
func catchUp(last *HistoryLine, st state) []HistoryLine {
	cur := st.sess
	n := 0
	lastTodos := []todolist.Todo{}
	if last != nil {
		n, lastTodos = last.N, last.Todos
	}
	var out []HistoryLine
	add := func(l HistoryLine) {
		n++
		l.N = n
		if l.PID == 0 {
			l.PID = processID
		}
		out = append(out, l)
	}
	// skipTo numbers the next line k, the changes before it missing.
	skipTo := func(k int, l *HistoryLine) {
		if k > n+1 {
			from := n + 1
			if n == 0 && last == nil {
				from = 1
			}
			l.Gap = &Gap{From: from, To: k - 1}
			n = k - 1
		}
	}
	if l, ok := lostLine(n, st); ok && len(cur.Archive) == 0 {
		skipTo(cur.Change.N, &l)
		add(l)
		return out
	}
	for _, a := range cur.Archive {
		who := todolist.ByYou
		if a.Reason == "dropped by agent" {
			who = todolist.ByAgent
		}
		todos := todolist.CloneTodos(a.Todos)
		todolist.Normalize(todos) // as a reader will see it, so its hash matches
		add(HistoryLine{At: a.At, By: who, What: fmt.Sprintf("from the archive: %s (%s)", a.Reason, todolist.Plural(len(a.Todos), "item")), Todos: todos, Base: true})
	}
	if !todolist.SameTodos(lastTodos, cur.Todos) || len(cur.Archive) > 0 {
		var l HistoryLine
		if last == nil && st.present && (cur.Change == nil || cur.Change.N == 0) {
			what := "the list as it was before its history began"
			if len(cur.Todos) == 0 {
				what = "the list was empty when its history began"
			}
			l = HistoryLine{At: cur.UpdatedAt, By: todolist.ByOther, What: what, Todos: todolist.CloneTodos(cur.Todos), Base: true}
		} else {
			l = HistoryLine{At: cur.UpdatedAt, By: todolist.ByOther, What: todolist.Describe(lastTodos, cur.Todos, todolist.ByOther), Todos: todolist.CloneTodos(cur.Todos), snap: true}
		}
		if c := cur.Change; c != nil && c.N > n {
			// The file was written by change c.N, which the history lacks,
			// and changed since by another program: after it, with it
			// missing.
			skipTo(c.N+1, &l)
		}
		add(l)
	}
	return out
}

// applyChange runs fn on a copy of cur (whose subtask arrays it shares,
// cloneForChange) and says whether the result
// differs from cur in anything but its archive.
func applyChange(cur *Session, lines []HistoryLine, fn func(*Session, []HistoryLine) error) (*Session, bool, error) {
	next := cur.cloneForChange()
	snap := sharedSnapshot(cur)
	if err := fn(next, lines); err != nil {
		checkShared(cur, snap)
		return nil, false, err
	}
	todolist.Normalize(next.Todos)
	if err := todolist.ValidateAgainst(next.Todos, cur.Todos); err != nil {
		checkShared(cur, snap)
		return nil, false, err
	}
	if next.Todos == nil {
		next.Todos = []todolist.Todo{}
	}
	if !cur.uidsGiven || next.NextUID != cur.NextUID || !todolist.SameUIDs(cur.Todos, next.Todos) {
		assignUIDs(next)
		next.uidsGiven = true
	}
	checkShared(cur, snap)
	if next.agentSees {
		next.AgentRead = next.Rev // stampRevs sets it again if the list changes
	}
	return next, !sameState(cur, next), nil
}
