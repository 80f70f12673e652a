package agent

import (
	"strconv"
	"strings"
	"time"

	"github.com/todosh/todosh/todostore"
)

// DroppedReason is the archive reason of items, and subtasks, an agent
// left out when it rewrote its list.
const DroppedReason = "dropped by agent"

// Merge is the outcome of MergeAgentList.
type Merge struct {
	// Todos is the merged list; ids and derived statuses are left to
	// todostore.Normalize.
	Todos []todostore.Todo
	// FromAgent[i] is the index in the agent's list of Todos[i], or -1
	// for an item of the person's the agent left out.
	FromAgent []int
	// KeptItems are the indexes in Todos of the person's items the agent
	// left out; KeptSubtasks are the {item, subtask} indexes of the
	// person's subtasks the agent's version of their item left out.
	KeptItems    []int
	KeptSubtasks [][2]int
	// Dropped are the current items the agent left out that are not the
	// person's, as they were (their ids are their old positions).
	Dropped []todostore.Todo
	// DroppedSubtasks holds, for each item the agent kept but sent with
	// fewer subtasks, a copy of the current item with only the subtasks it
	// lost that are not the person's.
	DroppedSubtasks []todostore.Todo
}

// Archived is what the merge takes off the list: Dropped, then
// DroppedSubtasks, for one archive entry.
func (m Merge) Archived() []todostore.Todo {
	return append(append([]todostore.Todo(nil), m.Dropped...), m.DroppedSubtasks...)
}

// MergeAgentList merges the list an agent just wrote (its whole list, as
// todo_write, TodoWrite, update_plan and write_todos send it) into the
// session's current list, so that nothing the person added is silently
// lost:
//
//   - The agent's items come first in its order, with its text and status.
//     An item matches a current item with the same text (spaces around it
//     ignored; duplicates pair up in order). An agent item whose text
//     matches no current item but whose ID names the position of a current
//     item no other agent item matched is that item renamed.
//   - A matched item keeps what only the current one has: its evidence,
//     its activeForm, its origin (an item the person added stays the
//     person's), and its subtasks when the agent's item has none. When the
//     agent's item has subtasks they are merged by the same rule: the
//     person's subtasks it left out stay in place, others go to
//     DroppedSubtasks.
//   - A person's item (Origin OriginPerson) the agent left out stays,
//     placed right after the current item before it that is still in the
//     list (at the top when there is none), so it keeps its place.
//   - Any other current item the agent left out goes to Dropped, for the
//     caller to archive (DroppedReason).
//
// Neither input is changed and the result shares no memory with them.
func MergeAgentList(current, agentList []todostore.Todo) Merge {
	cur := todostore.CloneTodos(current)
	in := todostore.CloneTodos(agentList)
	var m Merge
	keptSubs := map[int][]int{} // by agent index: kept person subtasks
	items := mergeOrdered(cur, in, mergeSpec[todostore.Todo]{
		key:    func(t todostore.Todo) string { return MergeKey(t.Content) },
		person: func(t todostore.Todo) bool { return t.Origin == todostore.OriginPerson },
		renames: func(t todostore.Todo) int {
			n, err := strconv.Atoi(strings.TrimSpace(t.ID))
			if err != nil {
				return -1
			}
			return n - 1
		},
		combine: func(i, j int) todostore.Todo {
			t, subs := mergeItem(cur[i], in[j])
			if len(subs.dropped) > 0 {
				gone := cur[i]
				gone.Subtasks = subs.dropped
				m.DroppedSubtasks = append(m.DroppedSubtasks, gone)
			}
			keptSubs[j] = subs.kept
			return t
		},
	})
	m.Todos, m.FromAgent, m.KeptItems, m.Dropped = items.out, items.from, items.kept, items.dropped
	for i, j := range m.FromAgent {
		for _, k := range keptSubs[j] {
			m.KeptSubtasks = append(m.KeptSubtasks, [2]int{i, k})
		}
	}
	return m
}

// mergeItem is the agent's version a of an item completed with what only
// the current version has; subs says which current subtasks were kept for
// the person or dropped.
func mergeItem(cur, a todostore.Todo) (todostore.Todo, ordered[todostore.Subtask]) {
	var subs ordered[todostore.Subtask]
	if len(a.Subtasks) == 0 {
		a.Subtasks = cur.Subtasks
	} else {
		subs = mergeOrdered(cur.Subtasks, a.Subtasks, mergeSpec[todostore.Subtask]{
			key:    func(s todostore.Subtask) string { return MergeKey(s.Content) },
			person: func(s todostore.Subtask) bool { return s.Origin == todostore.OriginPerson },
			combine: func(i, j int) todostore.Subtask {
				s, c := a.Subtasks[j], cur.Subtasks[i]
				if s.Evidence == "" && s.Status == todostore.Completed && c.Status == todostore.Completed {
					s.Evidence = c.Evidence // finished work re-sent keeps its proof
				}
				if c.Origin != "" {
					s.Origin = c.Origin
				}
				s.Extra = c.Extra // fields another program added stay with the subtask
				return s
			},
		})
		a.Subtasks = subs.out
	}
	if a.Evidence == "" {
		a.Evidence = cur.Evidence
	}
	if a.ActiveForm == "" {
		a.ActiveForm = cur.ActiveForm
	}
	if cur.Origin != "" {
		a.Origin = cur.Origin
	}
	a.Extra = cur.Extra // fields another program added (llxprt's priority) stay with the item
	return a, subs
}

// MergeKey is what two items must share to be the same item.
func MergeKey(content string) string { return strings.TrimSpace(content) }

// mergeSpec tells mergeOrdered about the entries it merges (items or
// subtasks).
type mergeSpec[T any] struct {
	key    func(T) string // the text two entries share to be the same
	person func(T) bool   // the person's entries are never dropped
	// renames, when not nil, is the index of the current entry an
	// incoming entry names by id, or -1.
	renames func(T) int
	// combine is incoming[j] merged with its match current[i].
	combine func(i, j int) T
}

// ordered is the outcome of mergeOrdered; see Merge.
type ordered[T any] struct {
	out     []T
	from    []int
	kept    []int
	dropped []T
}

// mergeOrdered is the one merge rule, for items and subtasks alike: the
// incoming entries in their order, each combined with its current match;
// the person's unmatched entries placed after their nearest kept
// predecessor; the other unmatched current entries dropped.
func mergeOrdered[T any](current, incoming []T, spec mergeSpec[T]) ordered[T] {
	byText := map[string][]int{}
	for i, c := range current {
		k := spec.key(c)
		byText[k] = append(byText[k], i)
	}
	matchOf := make([]int, len(current)) // incoming index + 1, 0 for none
	curOf := make([]int, len(incoming))  // current index, -1 for none
	for j, e := range incoming {
		curOf[j] = -1
		k := spec.key(e)
		if idx := byText[k]; len(idx) > 0 {
			curOf[j], matchOf[idx[0]] = idx[0], j+1
			byText[k] = idx[1:]
		}
	}
	if spec.renames != nil {
		for j, e := range incoming {
			if _, textKnown := byText[spec.key(e)]; textKnown {
				continue // a text match, or a further duplicate of one
			}
			if i := spec.renames(e); i >= 0 && i < len(current) && matchOf[i] == 0 {
				curOf[j], matchOf[i] = i, j+1
			}
		}
	}

	// The person's entries left out go after the incoming entry their
	// nearest matched predecessor became; -1 means before all of them.
	var res ordered[T]
	after := map[int][]int{}
	anchor := -1
	for i, c := range current {
		switch {
		case matchOf[i] > 0:
			anchor = matchOf[i] - 1
		case spec.person(c):
			after[anchor] = append(after[anchor], i)
		default:
			res.dropped = append(res.dropped, c)
		}
	}
	res.out = make([]T, 0, len(incoming)+len(current))
	res.from = make([]int, 0, cap(res.out))
	keep := func(anchor int) {
		for _, i := range after[anchor] {
			res.kept = append(res.kept, len(res.out))
			res.out = append(res.out, current[i])
			res.from = append(res.from, -1)
		}
	}
	keep(-1)
	for j, e := range incoming {
		if i := curOf[j]; i >= 0 {
			e = spec.combine(i, j)
		}
		res.out = append(res.out, e)
		res.from = append(res.from, j)
		keep(j)
	}
	return res
}

// Applied is what ApplyAgentList did.
type Applied struct {
	// Changed is true when the list on disk changed.
	Changed bool
	// Todos is the list on disk afterwards.
	Todos []todostore.Todo
	// Merge is the merge that was applied, its list normalized; when
	// nothing changed it equals Todos.
	Merge Merge
}

// UpdateIfChanged runs fn on the session under its lock as the agent's
// change; fn says whether it changed anything, and the store writes only
// a real change; changed says whether it wrote. An error from fn changes
// nothing and is returned. The session returned is the one on disk
// afterwards.
func UpdateIfChanged(sess Session, fn func(s *todostore.Session) (bool, error)) (s *todostore.Session, changed bool, err error) {
	return sess.Commit(todostore.ByAgent, func(s *todostore.Session) error {
		_, err := fn(s)
		return err
	})
}

// ApplyAgentList merges an agent's whole list into the session's list
// with MergeAgentList, under the session's lock, and writes it only when it
// differs from the list on disk; what the merge dropped is archived as
// DroppedReason. rules, when not nil, may adjust the merged list in place
// (m.Todos) or refuse it with an error, which changes nothing and is
// returned; current is the list on disk. Every backend whose agent sends
// its whole list goes through here.
func ApplyAgentList(sess Session, list []todostore.Todo, now time.Time, rules func(current []todostore.Todo, m *Merge) error) (Applied, error) {
	var res Applied
	s, changed, err := UpdateIfChanged(sess, func(s *todostore.Session) (bool, error) {
		var err error
		res.Merge, err = MergeInto(s, list, now, rules)
		return true, err
	})
	if err != nil {
		return Applied{}, err
	}
	res.Changed, res.Todos = changed, s.Todos
	return res, nil
}

// MergeInto is ApplyAgentList's change for a caller that is already inside
// a Commit and writes more of the session in the same change (todosh's
// agent hooks): it merges list into s.Todos, archives what the merge
// dropped and returns the merge; s is left as it was when rules or
// validation refuse the list.
func MergeInto(s *todostore.Session, list []todostore.Todo, now time.Time, rules func(current []todostore.Todo, m *Merge) error) (Merge, error) {
	m := MergeAgentList(s.Todos, list)
	if rules != nil {
		if err := rules(s.Todos, &m); err != nil {
			return Merge{}, err
		}
	}
	todostore.Normalize(m.Todos)
	if err := todostore.Validate(m.Todos); err != nil {
		return Merge{}, err
	}
	before := todostore.CloneTodos(s.Todos)
	todostore.Normalize(before)
	if SameList(before, m.Todos) {
		return m, nil
	}
	s.AppendArchive(DroppedReason, m.Archived(), now)
	s.Todos = m.Todos
	return m, nil
}

// SameList reports whether two lists are equal field by field, treating
// nil and empty subtask lists alike.
func SameList(a, b []todostore.Todo) bool { return todostore.SameTodos(a, b) }
