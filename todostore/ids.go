package todostore

// Stable ids and revisions (ARCHITECTURE.md §3): Commit gives every item
// and subtask a stable id, counts the list's revisions, stamps each entry
// with the revision of its last change, and records the revision the
// agent was last shown. The merge of an agent's list (agent/merge.go) and
// the todo tools (agent/todotools) read them; nothing else writes them.

import (
	"strconv"
	"strings"
)

// MarkAgentRead records, in the change being made, that the agent is shown
// the list as this change leaves it (a todo tool's reply shows the whole
// list): Commit then sets AgentRead to the list's revision. A change that
// only marks the read writes the session file but no history line.
func (s *Session) MarkAgentRead() { s.agentSees = true }

// AgentStale reports whether the list changed since the agent was last
// shown it, so positions the agent remembers may name other items now.
func (s *Session) AgentStale() bool { return s.Rev > s.AgentRead }

// IsPosition reports whether id is a position ("3", "2.1") rather than a
// stable id ("t7", "s12").
func IsPosition(id string) bool {
	id = strings.TrimSpace(id)
	if id == "" {
		return false
	}
	for _, c := range id {
		if (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}

// FindUID finds the item (sub -1) or subtask with stable id uid.
func FindUID(todos []Todo, uid string) (item, sub int, ok bool) {
	uid = strings.TrimSpace(uid)
	if uid == "" {
		return 0, 0, false
	}
	for i, t := range todos {
		if t.UID == uid {
			return i, -1, true
		}
		for j, st := range t.Subtasks {
			if st.UID == uid {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// UIDNumber is the number of a stable id ("t7" → 7), or 0.
func UIDNumber(uid string) int {
	if len(uid) < 2 || (uid[0] != 't' && uid[0] != 's') {
		return 0
	}
	n, err := strconv.Atoi(uid[1:])
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// assignUIDs gives a stable id to every entry without one, and a new one
// to an entry whose id another entry before it holds (a list restored
// beside its own items). Numbers come from NextUID, never reused; the
// prefix says what the entry is (t: item, s: subtask).
func assignUIDs(s *Session) {
	n := len(s.Todos)
	for _, t := range s.Todos {
		n += len(t.Subtasks)
		s.NextUID = max(s.NextUID, UIDNumber(t.UID)+1)
		for _, st := range t.Subtasks {
			s.NextUID = max(s.NextUID, UIDNumber(st.UID)+1)
		}
	}
	seen := make(map[string]bool, n) // sized once: a list may hold 5,100 entries
	s.NextUID = max(s.NextUID, 1)
	give := func(uid *string, prefix byte) {
		if *uid == "" || seen[*uid] || UIDNumber(*uid) == 0 || (*uid)[0] != prefix {
			*uid = string(prefix) + strconv.Itoa(s.NextUID)
			s.NextUID++
		}
		seen[*uid] = true
	}
	for i := range s.Todos {
		give(&s.Todos[i].UID, 't')
		for j := range s.Todos[i].Subtasks {
			give(&s.Todos[i].Subtasks[j].UID, 's')
		}
	}
}

// sameUIDs reports whether two lists hold the same stable ids in the same
// places.
func sameUIDs(a, b []Todo) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].UID != b[i].UID || len(a[i].Subtasks) != len(b[i].Subtasks) {
			return false
		}
		for j := range a[i].Subtasks {
			if a[i].Subtasks[j].UID != b[i].Subtasks[j].UID {
				return false
			}
		}
	}
	return true
}

// stampRevs numbers the change from cur to next made by by: when the list
// changed it gets the next revision, and every entry that is new or
// changed (by stable id) gets it too, or 0 when an agent made the change
// (an agent knows its own changes); the others keep theirs. A change the
// agent is shown (MarkAgentRead) sets AgentRead to the resulting revision.
func stampRevs(cur, next *Session, by Author) {
	next.Rev = cur.Rev
	if !SameTodos(cur.Todos, next.Todos) {
		next.Rev = cur.Rev + 1
		stamp := next.Rev
		if by == ByAgent {
			stamp = 0
		}
		type entry struct {
			t   *Todo
			sub *Subtask
		}
		old := map[string]entry{}
		for i := range cur.Todos {
			t := &cur.Todos[i]
			old[t.UID] = entry{t: t}
			for j := range t.Subtasks {
				old[t.Subtasks[j].UID] = entry{sub: &t.Subtasks[j]}
			}
		}
		for i := range next.Todos {
			t := &next.Todos[i]
			if o := old[t.UID]; o.t == nil || o.t.Content != t.Content || o.t.Status != t.Status ||
				o.t.ActiveForm != t.ActiveForm || o.t.Evidence != t.Evidence || o.t.Origin != t.Origin {
				t.Rev = stamp
			} else {
				t.Rev = o.t.Rev
			}
			for j := range t.Subtasks {
				st := &t.Subtasks[j]
				if o := old[st.UID]; o.sub == nil || o.sub.Content != st.Content || o.sub.Status != st.Status ||
					o.sub.Evidence != st.Evidence || o.sub.Origin != st.Origin {
					st.Rev = stamp
				} else {
					st.Rev = o.sub.Rev
				}
			}
		}
	}
	if next.agentSees {
		next.AgentRead = next.Rev
	}
}

// onlyMarks reports whether next differs from cur only in what Commit
// keeps for ids and reads (stable ids, AgentRead), which gets no history
// line.
func onlyMarks(cur, next *Session) bool {
	c := *cur
	c.AgentRead, c.Todos = next.AgentRead, next.Todos
	return SameTodos(cur.Todos, next.Todos) && sameState(&c, next)
}

// ClearUIDs takes the stable ids off a list copied from another session
// (/todo load), so Commit gives its entries ids of this session: an id of
// the other session could name an entry this one removed.
func ClearUIDs(todos []Todo) {
	for i := range todos {
		todos[i].UID, todos[i].Rev = "", 0
		for j := range todos[i].Subtasks {
			todos[i].Subtasks[j].UID, todos[i].Subtasks[j].Rev = "", 0
		}
	}
}
