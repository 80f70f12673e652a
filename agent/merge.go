package agent

import (
	"errors"
	"strconv"
	"strings"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/todostore"
)

// DroppedReason is the archive reason of items, and subtasks, an agent
// left out when it rewrote its list.
const DroppedReason = "dropped by agent"

// View is what the agent has seen of the session's list (ViewOf).
type View struct {
	// Read is the revision of the list the agent was last shown
	// (Session.AgentRead); an entry whose Rev is above it was added or
	// changed by someone else since.
	Read int
	// Rev is the list's revision now (Session.Rev). The agent's positions
	// are used only when it has seen this revision (Rev <= Read).
	Rev int
	// NextUID is Session.NextUID: a stable id below it that names no
	// current entry names one that was removed.
	NextUID int
}

// ViewOf is the view of the agent on s.
func ViewOf(s *todostore.Session) View {
	return View{Read: s.AgentRead, Rev: s.Rev, NextUID: s.NextUID}
}

// Stale reports whether the list changed since the agent's last read, so
// positions it remembers may name other items.
func (v View) Stale() bool { return v.Rev > v.Read }

// unseen reports whether an entry last changed at rev was added or changed
// by someone else since the agent's last read.
func (v View) unseen(rev int) bool { return rev > v.Read }

// Stays reports whether a current item an agent left out (or deleted, as
// Claude's TaskUpdate does) stays on the list (ARCHITECTURE.md §6): the
// person's own item, or one that it or any of its subtasks was added or
// changed by someone else since the agent's last read — a subtask the
// person added to the agent's item, a tick or evidence the person gave.
// Once the agent has been shown it (a reply that names it keeps it, the
// next read), leaving it out removes it.
func (v View) Stays(t todolist.Todo) bool {
	return t.Origin == todolist.OriginPerson || v.unseen(t.Rev) || v.unseenSubtask(t)
}

// unseenSubtask reports whether a subtask of t was added or changed by
// someone else since the agent's last read.
func (v View) unseenSubtask(t todolist.Todo) bool {
	for _, st := range t.Subtasks {
		if v.unseen(st.Rev) {
			return true
		}
	}
	return false
}

// removed reports whether uid is a stable id the session gave to an
// entry that is no longer on the list (current holds no entry with it).
func (v View) removed(uid string) bool {
	n := todolist.UIDNumber(uid)
	return n > 0 && n < v.NextUID
}

// Merge is the outcome of MergeAgentList.
type Merge struct {
	// Todos is the merged list; positions and derived statuses are left
	// to todolist.Normalize, stable ids to Commit.
	Todos []todolist.Todo
	// FromAgent[i] is the index in the agent's list of Todos[i], or -1
	// for an item the agent left out that stays.
	FromAgent []int
	// KeptItems are the indexes in Todos of items the agent left out that
	// stay: the person's (Origin OriginPerson), and any added or changed
	// by someone else since the agent's last read. KeptSubtasks are the
	// {item, subtask} indexes of such subtasks.
	KeptItems    []int
	KeptSubtasks [][2]int
	// KeptForSubtasks are the KeptItems that stay only for their
	// subtasks: the agent's items that carry a subtask added or changed by
	// someone else since its last read (View.Stays).
	KeptForSubtasks []int
	// KeptChanges are the indexes in Todos of items the agent sent that
	// someone else changed since its last read: the current version stays
	// (text, status, evidence) and the agent's differing version is not
	// applied. KeptSubtaskChanges are the {item, subtask} indexes of such
	// subtasks.
	KeptChanges        []int
	KeptSubtaskChanges [][2]int
	// Gone are the agent's entries that name by stable id an item or
	// subtask no longer on the list (someone removed it): not added again.
	Gone []Gone
	// Dropped are the current items the agent left out that go, as they
	// were (their ids are their old positions).
	Dropped []todolist.Todo
	// DroppedSubtasks holds, for each item the agent kept but sent with
	// fewer subtasks, a copy of the current item with only the subtasks it
	// lost that go.
	DroppedSubtasks []todolist.Todo
}

// Gone is an entry of the agent's list whose stable id names an entry
// that was removed.
type Gone struct {
	UID, Content string
}

// Archived is what the merge takes off the list: Dropped, then
// DroppedSubtasks, for one archive entry.
func (m Merge) Archived() []todolist.Todo {
	return append(append([]todolist.Todo(nil), m.Dropped...), m.DroppedSubtasks...)
}

// MergeAgentList merges the list an agent just wrote (its whole list, as
// todo_write, TodoWrite, update_plan and write_todos send it) into the
// session's current list, given what the agent has seen of it (view), so
// that the agent never undoes the person (ARCHITECTURE.md §6):
//
//   - The agent's items come first in its order. An item matches the
//     current item its stable id names ("t7"); else a current item with
//     the same text (spaces around it ignored; duplicates pair up in
//     order); else, when its text matches no current item, the item at
//     the position its id names ("3"), only if the agent has seen the list
//     as it is (positions move). An id naming an item that was removed
//     is in Gone and not added again.
//   - A matched item someone else changed since the agent's last read
//     (Rev above view.Read) keeps its current text, status, evidence and
//     activeForm (KeptChanges when the agent's differ). Otherwise the
//     agent's version wins, keeping what only the current one has: its
//     evidence, activeForm, origin and stable id, and its subtasks when
//     the agent's item has none. When the agent's item has subtasks they
//     are merged by the same rule.
//   - A current item the agent left out stays when it is the person's
//     (Origin OriginPerson) or it or one of its subtasks was added or
//     changed by someone else since the agent's last read (View.Stays,
//     KeptItems), placed right after the current
//     item before it that is still in the list (at the top when there is
//     none), so it keeps its place; the others go to Dropped, for the
//     caller to archive (DroppedReason). The agent removes only what it
//     saw.
//
// Neither input is changed and the result shares no memory with them.
func MergeAgentList(current, agentList []todolist.Todo, view View) Merge {
	cur := todolist.CloneTodos(current)
	in := todolist.CloneTodos(agentList)
	var m Merge
	keptSubs := map[int][]int{}    // by agent index: kept subtasks
	changedSubs := map[int][]int{} // by agent index: subtasks whose current version won
	changed := map[int]bool{}      // by agent index: items whose current version won
	items := mergeOrdered(cur, in, mergeSpec[todolist.Todo]{
		key:    func(t todolist.Todo) string { return MergeKey(t.Content) },
		uid:    func(t todolist.Todo) string { return t.UID },
		keep:   view.Stays,
		gone:   view.removed,
		strip:  func(t todolist.Todo) todolist.Todo { t.UID, t.Rev = "", 0; return t },
		onGone: func(t todolist.Todo) { m.Gone = append(m.Gone, Gone{t.UID, t.Content}) },
		renames: func(t todolist.Todo) int {
			if view.Stale() || !todolist.IsPosition(t.ID) {
				return -1
			}
			n, err := strconv.Atoi(strings.TrimSpace(t.ID))
			if err != nil {
				return -1
			}
			return n - 1
		},
		combine: func(i, j int) todolist.Todo {
			t, subs := mergeItem(cur[i], in[j], view, func(uid, content string) { m.Gone = append(m.Gone, Gone{uid, content}) })
			if len(subs.dropped) > 0 {
				lost := cur[i]
				lost.Subtasks = subs.dropped
				m.DroppedSubtasks = append(m.DroppedSubtasks, lost)
			}
			keptSubs[j], changedSubs[j] = subs.kept, subs.changed
			if view.unseen(cur[i].Rev) && (MergeKey(t.Content) != MergeKey(in[j].Content) || t.Status != in[j].Status && len(in[j].Subtasks) == 0) {
				changed[j] = true
			}
			return t
		},
	})
	m.Todos, m.FromAgent, m.KeptItems, m.Dropped = items.out, items.from, items.kept, items.dropped
	for _, i := range m.KeptItems {
		if t := m.Todos[i]; t.Origin != todolist.OriginPerson && !view.unseen(t.Rev) {
			m.KeptForSubtasks = append(m.KeptForSubtasks, i)
		}
	}
	for i, j := range m.FromAgent {
		if j < 0 {
			continue
		}
		if changed[j] {
			m.KeptChanges = append(m.KeptChanges, i)
		}
		for _, k := range keptSubs[j] {
			m.KeptSubtasks = append(m.KeptSubtasks, [2]int{i, k})
		}
		for _, k := range changedSubs[j] {
			m.KeptSubtaskChanges = append(m.KeptSubtaskChanges, [2]int{i, k})
		}
	}
	return m
}

// mergeItem is the agent's version a of an item merged with the current
// version; subs says which current subtasks were kept or dropped, and
// which kept their current version. An item someone else changed since
// the agent's last read keeps its current fields.
func mergeItem(cur, a todolist.Todo, view View, gone func(uid, content string)) (todolist.Todo, ordered[todolist.Subtask]) {
	var subs ordered[todolist.Subtask]
	if len(a.Subtasks) == 0 {
		a.Subtasks = cur.Subtasks
	} else {
		subs = mergeOrdered(cur.Subtasks, a.Subtasks, mergeSpec[todolist.Subtask]{
			key:    func(s todolist.Subtask) string { return MergeKey(s.Content) },
			uid:    func(s todolist.Subtask) string { return s.UID },
			keep:   func(s todolist.Subtask) bool { return s.Origin == todolist.OriginPerson || view.unseen(s.Rev) },
			gone:   view.removed,
			strip:  func(s todolist.Subtask) todolist.Subtask { s.UID, s.Rev = "", 0; return s },
			onGone: func(s todolist.Subtask) { gone(s.UID, s.Content) },
			combine: func(i, j int) todolist.Subtask {
				s, c := a.Subtasks[j], cur.Subtasks[i]
				if view.unseen(c.Rev) {
					return c // changed since the agent's last read: the current version stays
				}
				if s.Evidence == "" && s.Status == todolist.Completed && c.Status == todolist.Completed {
					s.Evidence = c.Evidence // finished work re-sent keeps its proof
				}
				if c.Origin == todolist.OriginPerson {
					// The person's subtask: its text, and a tick or evidence
					// on it, stay whatever the agent writes; the agent may
					// tick it.
					s.Content = c.Content
					if c.Status == todolist.Completed {
						s.Status = todolist.Completed
					}
					if c.Evidence != "" {
						s.Evidence = c.Evidence
					}
				}
				if c.Origin != "" {
					s.Origin = c.Origin
				}
				s.UID, s.Rev = c.UID, c.Rev
				s.Extra = c.Extra // fields another program added stay with the subtask
				return s
			},
			changedFrom: func(i, j int) bool {
				c, s := cur.Subtasks[i], a.Subtasks[j]
				return view.unseen(c.Rev) && (c.Content != s.Content || c.Status != s.Status)
			},
		})
		a.Subtasks = subs.out
	}
	if view.unseen(cur.Rev) {
		// Changed since the agent's last read: the current version stays,
		// with the subtasks merged above.
		cur.Subtasks = a.Subtasks
		return cur, subs
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
	a.UID, a.Rev = cur.UID, cur.Rev
	a.Extra = cur.Extra // fields another program added (llxprt's priority) stay with the item
	return a, subs
}

// MergeKey is what two items must share to be the same item.
func MergeKey(content string) string { return strings.TrimSpace(content) }

// mergeSpec tells mergeOrdered about the entries it merges (items or
// subtasks).
type mergeSpec[T any] struct {
	key func(T) string // the text two entries share to be the same
	uid func(T) string // the stable id, "" for none
	// keep reports whether a current entry the incoming list left out
	// stays (the person's, or changed since the agent's last read).
	keep func(T) bool
	// gone reports whether a stable id names an entry that was removed.
	gone func(uid string) bool
	// strip clears the stable id of an incoming entry that matched none.
	strip func(T) T
	// onGone is told of each incoming entry whose id names a removed one.
	onGone func(T)
	// renames, when not nil, is the index of the current entry an
	// incoming entry names by position, or -1.
	renames func(T) int
	// combine is incoming[j] merged with its match current[i].
	combine func(i, j int) T
	// changedFrom, when not nil, reports whether current[i] kept its
	// version over a differing incoming[j].
	changedFrom func(i, j int) bool
}

// ordered is the outcome of mergeOrdered; see Merge.
type ordered[T any] struct {
	out     []T
	from    []int
	kept    []int
	changed []int
	dropped []T
}

// mergeOrdered is the one merge rule, for items and subtasks alike: the
// incoming entries in their order, each combined with its current match
// (by stable id, then text, then position); the current entries to keep
// that were left out placed after their nearest kept predecessor; the
// other unmatched current entries dropped.
func mergeOrdered[T any](current, incoming []T, spec mergeSpec[T]) ordered[T] {
	matchOf := make([]int, len(current)) // incoming index + 1, 0 for none
	curOf := make([]int, len(incoming))  // current index, -1 for none
	skip := make([]bool, len(incoming))  // names a removed entry
	byUID := map[string]int{}
	for i, c := range current {
		if u := spec.uid(c); u != "" {
			byUID[u] = i
		}
	}
	for j, e := range incoming {
		curOf[j] = -1
		u := spec.uid(e)
		if u == "" {
			continue
		}
		if i, ok := byUID[u]; ok && matchOf[i] == 0 {
			curOf[j], matchOf[i] = i, j+1
		} else if !ok && spec.gone(u) {
			skip[j] = true
			spec.onGone(e)
		}
	}
	byText := map[string][]int{}
	for i, c := range current {
		if matchOf[i] == 0 {
			k := spec.key(c)
			byText[k] = append(byText[k], i)
		}
	}
	for j, e := range incoming {
		if curOf[j] >= 0 || skip[j] {
			continue
		}
		k := spec.key(e)
		if idx := byText[k]; len(idx) > 0 {
			curOf[j], matchOf[idx[0]] = idx[0], j+1
			byText[k] = idx[1:]
		}
	}
	if spec.renames != nil {
		for j, e := range incoming {
			if curOf[j] >= 0 || skip[j] {
				continue
			}
			if _, textKnown := byText[spec.key(e)]; textKnown {
				continue // a further duplicate of a text match
			}
			if i := spec.renames(e); i >= 0 && i < len(current) && matchOf[i] == 0 {
				curOf[j], matchOf[i] = i, j+1
			}
		}
	}

	// The current entries to keep that were left out go after the incoming
	// entry their nearest matched predecessor became; -1 means before all
	// of them.
	var res ordered[T]
	after := map[int][]int{}
	anchor := -1
	for i, c := range current {
		switch {
		case matchOf[i] > 0:
			anchor = matchOf[i] - 1
		case spec.keep(c):
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
		if skip[j] {
			keep(j)
			continue
		}
		if i := curOf[j]; i >= 0 {
			if spec.changedFrom != nil && spec.changedFrom(i, j) {
				res.changed = append(res.changed, len(res.out))
			}
			e = spec.combine(i, j)
		} else {
			e = spec.strip(e)
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
	// Todos is the list on disk afterwards, and Read the session's
	// AgentRead then.
	Todos []todolist.Todo
	Read  int
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
	return sess.Commit(todolist.ByAgent, func(s *todostore.Session) error {
		_, err := fn(s)
		return err
	})
}

// ErrStalePositions refuses an agent's list that names items by position
// when the list changed since the agent's last read: the positions may
// name other items now.
var ErrStalePositions = errors.New("the list changed since your last read, so positions may name other items now")

// ApplyAgentList merges an agent's whole list into the session's list
// with MergeAgentList and the agent's view of it (ViewOf), under the
// session's lock, and writes it only when it differs from the list on
// disk; what the merge dropped is archived as DroppedReason. rules, when
// not nil, may adjust the merged list in place (m.Todos) or refuse it
// with an error, which changes nothing and is returned; current is the
// list on disk. Every backend whose agent sends its whole list goes
// through here. The agent is not shown the merged list, so this is not a
// read (ApplyAgentListShown is).
func ApplyAgentList(sess Session, list []todolist.Todo, rules func(current []todolist.Todo, m *Merge) error) (Applied, error) {
	return applyAgentList(sess, list, rules, false)
}

// TickCompleted ticks the subtasks of the items in todos that are
// completed: an agent with no tool to tick a subtask (a wrapped CLI, an
// ACP plan) says by completing the item that its checklist is done.
func TickCompleted(todos []todolist.Todo) {
	for i := range todos {
		if todos[i].Status != todolist.Completed {
			continue
		}
		todolist.OwnSubtasks(&todos[i]) // they may be the store's, shared (copy on write)
		for j := range todos[i].Subtasks {
			todos[i].Subtasks[j].Status = todolist.Completed
		}
	}
}

// TickCompletedRule is the ApplyAgentList rule of an agent with no tool
// to tick a subtask: TickCompleted on the merged list.
func TickCompletedRule(_ []todolist.Todo, m *Merge) error {
	TickCompleted(m.Todos)
	return nil
}

// ApplyAgentListShown is ApplyAgentList for a caller that shows the agent
// the list afterwards (todo_write's reply): the write is also the agent's
// read (todostore.Session.MarkAgentRead). An item id that is a position is
// refused with ErrStalePositions when the list changed since that read.
func ApplyAgentListShown(sess Session, list []todolist.Todo, rules func(current []todolist.Todo, m *Merge) error) (Applied, error) {
	return applyAgentList(sess, list, rules, true)
}

func applyAgentList(sess Session, list []todolist.Todo, rules func(current []todolist.Todo, m *Merge) error, shown bool) (Applied, error) {
	var res Applied
	s, _, err := UpdateIfChanged(sess, func(s *todostore.Session) (bool, error) {
		var err error
		res.Merge, res.Changed, err = mergeInto(s, list, rules, shown)
		return res.Changed, err
	})
	if err != nil {
		return Applied{}, err
	}
	res.Todos, res.Read = s.Todos, s.AgentRead
	return res, nil
}

// MergeInto is ApplyAgentList's change for a caller that is already inside
// a Commit and writes more of the session in the same change (todosh's
// agent hooks): it merges list into s.Todos, archives what the merge
// dropped and returns the merge; s is left as it was when rules or
// validation refuse the list.
func MergeInto(s *todostore.Session, list []todolist.Todo, rules func(current []todolist.Todo, m *Merge) error) (Merge, error) {
	m, _, err := mergeInto(s, list, rules, false)
	return m, err
}

// mergeInto is the one change behind ApplyAgentList, ApplyAgentListShown
// and MergeInto, and says whether the list changed. shown: the agent sees
// the result, so the change is also its read, and positions are refused on
// a list that changed since its last one.
func mergeInto(s *todostore.Session, list []todolist.Todo, rules func(current []todolist.Todo, m *Merge) error, shown bool) (Merge, bool, error) {
	view := ViewOf(s)
	if shown && view.Stale() {
		for _, t := range list {
			if todolist.IsPosition(t.ID) {
				return Merge{}, false, ErrStalePositions
			}
		}
	}
	m := MergeAgentList(s.Todos, list, view)
	if rules != nil {
		if err := rules(s.Todos, &m); err != nil {
			return Merge{}, false, err
		}
	}
	todolist.Normalize(m.Todos)
	if err := todolist.Validate(m.Todos); err != nil {
		return Merge{}, false, err
	}
	if shown {
		s.MarkAgentRead()
	}
	before := todolist.CloneTodos(s.Todos)
	todolist.Normalize(before)
	if SameList(before, m.Todos) && sameUIDs(before, m.Todos) {
		return m, false, nil
	}
	s.AppendArchive(DroppedReason, m.Archived())
	s.Todos = m.Todos
	return m, true, nil
}

// sameUIDs reports whether the entries of a and b carry the same stable
// ids, where b has one.
func sameUIDs(a, b []todolist.Todo) bool {
	for i := range b {
		if b[i].UID != "" && b[i].UID != a[i].UID {
			return false
		}
	}
	return true
}

// SameList reports whether two lists are equal field by field, treating
// nil and empty subtask lists alike.
func SameList(a, b []todolist.Todo) bool { return todolist.SameTodos(a, b) }
