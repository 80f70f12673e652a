package todostore

import (
	"fmt"
	"os"

	"github.com/todosh/todosh/todolist"
)

// historyEnd is a session's history, open under the session's lock for a
// change to append to: its end, and whether its lines can be trusted.
type historyEnd struct {
	f    *os.File
	tail histTail
	// damaged is set when lines were found lost or renumbered: the next
	// line the change writes is a snapshot.
	damaged bool
}

// openTail opens session id's history and finds its end, without reading
// it when this process wrote it last (cache.go).
func (s *Store) openTail(id string) (historyEnd, error) {
	f, err := openHistory(s.SessionHistoryPath(id), os.O_RDWR|os.O_CREATE)
	if err != nil {
		return historyEnd{}, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return historyEnd{}, fmt.Errorf("history %s: %w", f.Name(), err)
	}
	tail, known := s.cache.histTail(id, idOf(info))
	_, damaged := s.damaged.Load(id)
	if !known {
		if tail, err = readTail(f, info); err != nil {
			f.Close()
			return historyEnd{}, fmt.Errorf("history %s: %w", f.Name(), err)
		}
		// Another process wrote last: its chain is checked once, so a
		// change after lost or renumbered lines is a snapshot.
		damaged = damaged || !chainIntact(f, tail)
	}
	return historyEnd{f: f, tail: tail, damaged: damaged}, nil
}

// linesFor is every line the change from st.sess to next by by appends
// to the history: what it must say first (linesBefore), then the change's
// own line, whose record next keeps (Session.Change). hash is next's list
// hash; next's archive moves into the history.
func (h *historyEnd) linesFor(st state, next *Session, by todolist.Author, hash uint64) []HistoryLine {
	archive := next.Archive
	next.Archive = nil
	lines := h.linesBefore(st, archive)
	n := h.tail.n + 1
	if len(lines) > 0 {
		n = lines[len(lines)-1].N + 1
	}
	line := HistoryLine{N: n, At: next.UpdatedAt, By: by, What: next.describe(st.sess, by), Todos: next.Todos,
		Revert: next.revertOf, Dropped: next.dropped, PID: processID, hash: hashString(hash),
		snap: h.damaged && len(lines) == 0} // after damage, a line that reads by itself
	rec := recordOf(line)
	rec.Ahead = aheadOf(lines)
	next.Change = &rec
	return append(lines, line)
}

// recordOf is the record a session file keeps of history line l
// (Session.Change), without the lines ahead of it.
func recordOf(l HistoryLine) todolist.ChangeRecord {
	return todolist.ChangeRecord{N: l.N, Hash: l.hash, At: l.At, By: l.By, What: l.What, Revert: l.Revert, Dropped: l.Dropped, PID: l.PID}
}

// lineOf is the history line record c stands for, stating todos: a
// snapshot, since the line before it may be lost too.
func lineOf(c todolist.ChangeRecord, todos []todolist.Todo) HistoryLine {
	return HistoryLine{N: c.N, At: c.At, By: c.By, What: c.What, Todos: todos, Revert: c.Revert,
		Dropped: todolist.CloneTodos(c.Dropped), PID: c.PID, hash: c.Hash, snap: true}
}

// aheadOf is what the record of a change keeps of the lines its writer
// appends before its own (ChangeRecord.Ahead): each with its whole list,
// so that a crash before the append loses none of them however many
// writers crash in a row. nil when there are none, the normal case.
func aheadOf(lines []HistoryLine) []todolist.LineAhead {
	if len(lines) == 0 {
		return nil
	}
	out := make([]todolist.LineAhead, len(lines))
	for i, l := range lines {
		if l.hash == "" {
			l.hash = hashString(listHash(l.Todos))
			lines[i].hash = l.hash // the same checksum for the line as written
		}
		todos := l.Todos
		if todos == nil {
			todos = []todolist.Todo{}
		}
		out[i] = todolist.LineAhead{ChangeRecord: recordOf(l), Todos: todos, Base: l.Base}
	}
	return out
}

// linesAhead are the lines the session file's record carries (aheadOf)
// that a history whose last change is lastN lacks: a writer before
// crashed after its rename and before its append. Each states its list
// (a snapshot). A line that is not in order, breaks a limit or does not
// match its checksum (the file was edited) is left out: its change is
// then missing, never given again.
func linesAhead(lastN int, st state) []HistoryLine {
	c := st.sess.Change
	if !st.present || c == nil {
		return nil
	}
	var out []HistoryLine
	prev := lastN
	for _, a := range c.Ahead {
		if a.N <= prev || a.N >= c.N {
			continue
		}
		todos := todolist.CloneTodos(a.Todos)
		if todos == nil {
			todos = []todolist.Todo{}
		}
		if todolist.Validate(todos) != nil {
			continue
		}
		todolist.Normalize(todos)
		if a.Hash != hashString(listHash(todos)) {
			continue
		}
		prev = a.N
		l := lineOf(a.ChangeRecord, todos)
		l.Base = a.Base
		out = append(out, l)
	}
	return out
}

// linesBefore is what the history must say first so that it explains the
// file as read (st) and archive, the entries an older file kept: nothing,
// when its last line is the change that wrote it. It is read whole only
// when neither that nor a lost line of ours explains the file.
func (h *historyEnd) linesBefore(st state, archive []ArchiveEntry) []HistoryLine {
	if explained(h.tail, st) && len(archive) == 0 {
		return nil
	}
	var last *HistoryLine
	if !recovers(h.tail.n, st) && h.tail.n > 0 {
		// The list the history ends with, for the words of the change
		// found on disk: read from its snapshot, never the whole file,
		// so a change costs the same with 10 or 1,900 lines.
		var whole bool
		last, whole = readChainEnd(h.f, h.tail)
		h.damaged = h.damaged || !whole
	} else if h.tail.n > 0 {
		last = &HistoryLine{N: h.tail.n} // its list is not needed: the lines recovered are snapshots
	}
	st.sess = st.sess.clone()
	st.sess.Archive = archive
	return catchUp(last, st)
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

// recovers reports whether the session file holds history lines a
// history whose last change is lastN lacks (lostLine, linesAhead): a
// writer died between its rename and its append.
func recovers(lastN int, st state) bool {
	if _, ok := lostLine(lastN, st); ok {
		return true
	}
	if c := st.sess.Change; st.present && c != nil {
		for _, a := range c.Ahead {
			if a.N > lastN {
				return true
			}
		}
	}
	return false
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
	return lineOf(*c, todolist.CloneTodos(st.sess.Todos)), true
}

// catchUp returns the lines that make a history whose last line is last
// (nil: none) explain the session as read: the changes crashes kept out
// of it (the lines the file's record carries ahead of its own, then its
// own), or, once, the entries of an older file's archive and the list no
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
	// Lines a writer that crashed was to append before its own: each
	// states its list, and the lines between are missing.
	for _, l := range linesAhead(n, st) {
		skipTo(l.N, &l)
		add(l)
		lastTodos = l.Todos
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
