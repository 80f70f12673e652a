package todostore

// Stable ids and revisions (ARCHITECTURE.md §3): Commit gives every item
// and subtask a stable id, counts the list's revisions, stamps each entry
// with the revision of its last change, and records the revision the
// agent was last shown. The merge of an agent's list (agent/merge.go) and
// the todo tools (agent/todotools) read them; nothing else writes them.

import (
	"strconv"
	"time"

	"github.com/todosh/todosh/todolist"
)

// MarkAgentRead records, in the change being made, that the agent is shown
// the list as this change leaves it (a todo tool's reply shows the whole
// list): Commit then sets AgentRead to the list's revision. A change that
// only marks the read writes the session file but no history line.
func (s *Session) MarkAgentRead() { s.agentSees = true }

// AgentStale reports whether the list changed since the agent was last
// shown it, so positions the agent remembers may name other items now.
func (s *Session) AgentStale() bool { return s.Rev > s.AgentRead }

// assignUIDs gives a stable id to every entry without one, and a new one
// to an entry whose id another entry before it holds (a list restored
// beside its own items). Numbers come from NextUID, never reused; the
// prefix says what the entry is (t: item, s: subtask).
//
// Which ids are taken is kept in a bit set per prefix, indexed by number,
// when every id is written the way todosh writes them (no leading zero or
// sign, so one number is one id) and the numbers are not far beyond the
// list's size; otherwise in a set of strings. A list of 5,100 entries
// needs two sets of 640 bytes rather than a map of 5,100 strings.
func assignUIDs(s *Session) {
	n := len(s.Todos)
	canonical := true
	note := func(uid string) {
		k := todolist.UIDNumber(uid)
		s.NextUID = max(s.NextUID, k+1)
		if k > 0 && (uid[1] < '1' || uid[1] > '9') {
			canonical = false // "t05", "t+5": another spelling of a number
		}
	}
	for _, t := range s.Todos {
		n += len(t.Subtasks)
		note(t.UID)
		for _, st := range t.Subtasks {
			note(st.UID)
		}
	}
	s.NextUID = max(s.NextUID, 1)
	var taken func(uid string, prefix byte) bool // reports whether uid was taken, and takes it
	if limit := 8*n + 1024; canonical && s.NextUID <= limit {
		// Ids given below grow NextUID by at most n past the bits' end.
		bits := [2][]uint64{make([]uint64, (s.NextUID+n)/64+1), make([]uint64, (s.NextUID+n)/64+1)}
		taken = func(uid string, prefix byte) bool {
			b := bits[0]
			if prefix == 's' {
				b = bits[1]
			}
			k := todolist.UIDNumber(uid)
			w, m := k/64, uint64(1)<<(k%64)
			was := b[w]&m != 0
			b[w] |= m
			return was
		}
	} else {
		seen := make(map[string]bool, n)
		taken = func(uid string, _ byte) bool {
			was := seen[uid]
			seen[uid] = true
			return was
		}
	}
	give := func(uid *string, prefix byte) {
		if *uid == "" || todolist.UIDNumber(*uid) == 0 || (*uid)[0] != prefix || taken(*uid, prefix) {
			*uid = string(prefix) + strconv.Itoa(s.NextUID)
			s.NextUID++
			taken(*uid, prefix)
		}
	}
	for i := range s.Todos {
		give(&s.Todos[i].UID, 't')
		owned := false // the subtasks may be shared: copied before a write (OwnSubtasks)
		for j := range s.Todos[i].Subtasks {
			uid := s.Todos[i].Subtasks[j].UID
			give(&uid, 's')
			if uid != s.Todos[i].Subtasks[j].UID {
				if !owned {
					todolist.OwnSubtasks(&s.Todos[i])
					owned = true
				}
				s.Todos[i].Subtasks[j].UID = uid
			}
		}
	}
}

// stampRevs numbers the change from cur to next made by by: when the list
// changed it gets the next revision, and every entry that is new or
// changed (by stable id) gets it too, or 0 when an agent made the change
// (an agent knows its own changes); the others keep theirs. A change the
// agent is shown (MarkAgentRead) sets AgentRead to the resulting revision.
//
// An entry is looked up at its own position in cur first: most changes
// move nothing, so the map of cur's entries by stable id is built only
// when an entry is not where it was.
//
// listSame is todolist.SameTodos(cur.Todos, next.Todos), which the caller knows.
func stampRevs(cur, next *Session, by todolist.Author, listSame bool) {
	next.Rev = cur.Rev
	if !listSame {
		next.Rev = cur.Rev + 1
		stamp := next.Rev
		if by == todolist.ByAgent {
			stamp = 0
		}
		old := uidIndex{todos: cur.Todos}
		for i := range next.Todos {
			t := &next.Todos[i]
			var o *todolist.Todo
			if i < len(cur.Todos) && cur.Todos[i].UID == t.UID {
				o = &cur.Todos[i]
			} else if e := old.find(t.UID); e.item >= 0 && e.sub < 0 {
				o = &cur.Todos[e.item]
			}
			if o == nil || o.Content != t.Content || o.Status != t.Status ||
				o.ActiveForm != t.ActiveForm || o.Evidence != t.Evidence || o.Origin != t.Origin {
				t.Rev = stamp
			} else {
				t.Rev = o.Rev
			}
			if o != nil && todolist.SameArray(o.Subtasks, t.Subtasks) {
				continue // the same array: the same subtasks, their revisions kept
			}
			owned := false // the subtasks may be shared: copied before a write (OwnSubtasks)
			for j := range t.Subtasks {
				st := &t.Subtasks[j]
				var ps *todolist.Subtask
				var rev int
				if o != nil && j < len(o.Subtasks) && o.Subtasks[j].UID == st.UID {
					ps = &o.Subtasks[j]
				} else if e := old.find(st.UID); e.item >= 0 && e.sub >= 0 {
					ps = &cur.Todos[e.item].Subtasks[e.sub]
				}
				if ps == nil || ps.Content != st.Content || ps.Status != st.Status ||
					ps.Evidence != st.Evidence || ps.Origin != st.Origin {
					rev = stamp
				} else {
					rev = ps.Rev
				}
				if rev != st.Rev {
					if !owned {
						todolist.OwnSubtasks(t)
						owned = true
						st = &t.Subtasks[j]
					}
					st.Rev = rev
				}
			}
		}
	}
	if next.agentSees {
		next.AgentRead = next.Rev
	}
}

// uidPlace is where a stable id is in a list: item, and sub (-1 for the
// item itself); item -1 when it is not there.
type uidPlace struct{ item, sub int }

// uidIndex finds entries of a list by stable id, building its map at the
// first lookup.
type uidIndex struct {
	todos []todolist.Todo
	m     map[string]uidPlace
}

func (x *uidIndex) find(uid string) uidPlace {
	if x.m == nil {
		n := len(x.todos)
		for _, t := range x.todos {
			n += len(t.Subtasks)
		}
		x.m = make(map[string]uidPlace, n)
		for i, t := range x.todos {
			x.m[t.UID] = uidPlace{i, -1}
			for j, st := range t.Subtasks {
				x.m[st.UID] = uidPlace{i, j}
			}
		}
	}
	if p, ok := x.m[uid]; ok {
		return p
	}
	return uidPlace{-1, -1}
}

// onlyMarks reports whether next differs from cur only in what Commit
// keeps for ids and reads (stable ids, AgentRead), which gets no history
// line.
// listSame is todolist.SameTodos(cur.Todos, next.Todos), which the caller knows.
func onlyMarks(cur, next *Session, listSame bool) bool {
	c := *cur
	c.AgentRead, c.Todos = next.AgentRead, next.Todos
	return listSame && sameState(&c, next)
}

// stamp marks next, the change of session id from cur by by, with its
// revisions (stampRevs), the format and the time, and reports whether it
// is a change of the list that the history records: not when only ids
// were given or the agent's read marked (onlyMarks), with nothing to
// archive.
func stamp(cur, next *Session, id string, by todolist.Author, now time.Time) (listed bool) {
	listSame := todolist.SameTodos(cur.Todos, next.Todos) // one comparison of the lists for both
	snap := sharedSnapshot(cur)
	stampRevs(cur, next, by, listSame)
	checkShared(cur, snap)
	next.Version = todolist.FormatVersion
	next.Session = id
	next.UpdatedAt = now
	return !onlyMarks(cur, next, listSame) || len(next.Archive) > 0
}
