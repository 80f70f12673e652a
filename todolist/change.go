package todolist

// What counts as a change of a list (the Same… comparisons, which decide
// whether a change changed anything; a session's own fields are compared
// in todostore/clone.go) and what it was (Diff, a ListChange).

import (
	"strconv"
	"strings"
)

// ChangeKind is one kind of thing that can happen to an item or subtask
// between one list and the next.
type ChangeKind int

// The kinds of ItemChange. A status change says which status in its
// Status field: completed, reopened (pending), started or cancelled.
const (
	ChangeAdded     ChangeKind = iota // a new item or subtask
	ChangeRemoved                     // an item or subtask taken off the list
	ChangeEdited                      // its text changed
	ChangeStatus                      // completed, reopened, started or cancelled
	ChangeMoved                       // one item or subtask moved, the others shifted
	ChangeSubtasks                    // an item's subtasks changed past naming one by one
	ChangeDetails                     // only its evidence, active form or origin changed
	ChangeReordered                   // the items kept were put in another order
)

// Pos is a position in a list: Item counts from 0, Sub is the subtask's
// index or -1 for the item itself. Its String is the position people type.
type Pos struct{ Item, Sub int }

// String is the 1-based position, "2" or "2.1".
func (p Pos) String() string {
	s := strconv.Itoa(p.Item + 1)
	if p.Sub >= 0 {
		s += "." + strconv.Itoa(p.Sub+1)
	}
	return s
}

// ItemChange is one change to one item or subtask.
type ItemChange struct {
	Kind ChangeKind
	// At is where the item is after the change; where it was for
	// ChangeRemoved. ChangeReordered has no position.
	At Pos
	// From is where a moved item was.
	From Pos
	// Text is the item's text after the change (before it for
	// ChangeRemoved).
	Text string
	// Status is the new status of a ChangeStatus.
	Status Status
	// Derived marks a status that follows from the item's subtasks (one was
	// ticked or unticked); only a completion is named then.
	Derived bool
	// Subtasks is how many subtasks a ChangeSubtasks item has now.
	Subtasks int
}

// ListChange is what changed from one list to the next: every change to an
// item or subtask, in list order with removals after the rest when items
// were matched by text, and the totals. The history's words (Words) and the
// terminal's line (Line) are both rendered from it, so they cannot
// disagree about what changed.
type ListChange struct {
	Items []ItemChange
	// ByText is set when the lists could not be lined up by position (an
	// agent rewrote the list): items were matched by their text instead.
	ByText bool
	// Before and After are the lengths of the lists; Done is how many
	// items are finished (completed or cancelled) after the change.
	Before, After, Done int
}

// Diff computes the change from before to after. Equal lists give a ListChange
// without Items. It first lines the lists up by position (one item moved,
// items added or removed with the rest in order, or items changed in
// place) and, when that cannot explain after, matches items by text.
func Diff(before, after []Todo) ListChange {
	c := ListChange{Before: len(before), After: len(after), Done: CountTodos(after).Done()}
	if SameTodos(before, after) {
		return c
	}
	if items, ok := diffList(before, after, -1); ok {
		c.Items = items
		return c
	}
	c.Items, c.ByText = diffByText(before, after), true
	return c
}

// Count is how many of c's items are of kind k.
func (c ListChange) Count(k ChangeKind) int {
	n := 0
	for _, it := range c.Items {
		if it.Kind == k {
			n++
		}
	}
	return n
}

// only reports whether every item of c is of kind k.
func (c ListChange) only(k ChangeKind) bool { return c.Count(k) == len(c.Items) }

// Oriented is c with a swap of two neighbours read as the move a person
// made, from from to to, in the list after: a swap is the same change
// either way round, and Diff reads it as the lower one moved up.
func (c ListChange) Oriented(after []Todo, from, to Pos) ListChange {
	if len(c.Items) != 1 || c.Items[0].Kind != ChangeMoved {
		return c
	}
	m := c.Items[0]
	swap := m.At.Item == m.From.Item && m.From.Sub-m.At.Sub == 1 || m.At.Sub < 0 && m.From.Item-m.At.Item == 1
	if swap && m.At == from && m.From == to {
		text := ""
		if to.Item < len(after) {
			text = after[to.Item].Content
			if to.Sub >= 0 && to.Sub < len(after[to.Item].Subtasks) {
				text = after[to.Item].Subtasks[to.Sub].Content
			}
		}
		c.Items = []ItemChange{{Kind: ChangeMoved, At: to, From: from, Text: text}}
	}
	return c
}

// diffList explains after as before with one item moved, items added or
// removed with the others in order, or items changed in place; ok is false
// when it cannot. parent is the item whose subtasks the lists are (as
// items), -1 for the list itself.
func diffList(before, after []Todo, parent int) ([]ItemChange, bool) {
	if len(before) == len(after) {
		if at, ok := oneInPlace(before, after); ok {
			// What diffAll finds, without its maps: one item changed,
			// keeping its text, cannot be a move, and nothing else
			// changed (FuzzDiffOneInPlace).
			if at < 0 {
				return nil, true
			}
			p := Pos{at, -1}
			if parent >= 0 {
				p = Pos{parent, at}
			}
			return itemChanges(p, before[at], after[at]), true
		}
	}
	return diffAll(before, after, parent)
}

// diffAll is diffList without its shortcut for one item changed in place.
func diffAll(before, after []Todo, parent int) ([]ItemChange, bool) {
	pos := func(i int) Pos {
		if parent < 0 {
			return Pos{i, -1}
		}
		return Pos{parent, i}
	}
	var out []ItemChange
	switch {
	case len(before) == len(after):
		if from, to, ok := oneMoved(before, after); ok {
			return []ItemChange{{Kind: ChangeMoved, At: pos(to), From: pos(from), Text: after[to].Content}}, true
		}
		if !inPlace(before, after) {
			return nil, false
		}
		for i := range after {
			out = append(out, itemChanges(pos(i), before[i], after[i])...)
		}
	default:
		// Items added, or removed, with the others in order.
		short, long, kind := before, after, ChangeAdded
		if len(after) < len(before) {
			short, long, kind = after, before, ChangeRemoved
		}
		extra, ok := subsequence(short, long)
		if !ok {
			return nil, false
		}
		k := 0
		for j := range long {
			if len(extra) > 0 && extra[0] == j {
				extra = extra[1:]
				out = append(out, ItemChange{Kind: kind, At: pos(j), Text: long[j].Content})
				continue
			}
			b, a, at := short[k], long[j], pos(j)
			if kind == ChangeRemoved {
				b, a, at = long[j], short[k], pos(k)
			}
			out = append(out, itemChanges(at, b, a)...)
			k++
		}
	}
	return out, true
}

// itemChanges lists what changed in one item (or subtask) kept at at:
// its text, its subtasks, its status, else its other fields.
func itemChanges(at Pos, b, a Todo) []ItemChange {
	if SameTodo(b, a) {
		return nil // the common case, without lining up its subtasks
	}
	var out []ItemChange
	if b.Content != a.Content {
		out = append(out, ItemChange{Kind: ChangeEdited, At: at, Text: a.Content})
	}
	var subs []ItemChange
	if at.Sub < 0 {
		var ok bool
		if subs, ok = diffSubtasks(b.Subtasks, a.Subtasks, at.Item); !ok {
			subs = []ItemChange{{Kind: ChangeSubtasks, At: at, Text: a.Content, Subtasks: len(a.Subtasks)}}
		}
		out = append(out, subs...)
	}
	// A status that follows from the subtasks is news only when it
	// finishes the item.
	if b.Status != a.Status && (len(subs) == 0 || a.Status == Completed) {
		out = append(out, ItemChange{Kind: ChangeStatus, At: at, Text: a.Content, Status: a.Status, Derived: len(subs) > 0})
	}
	if len(out) == 0 && !sameIgnoringIDs(b, a) {
		out = append(out, ItemChange{Kind: ChangeDetails, At: at, Text: a.Content})
	}
	return out
}

// diffSubtasks is diffList of the subtasks of item as items, which it
// makes only when more than one subtask changed or one changed its text:
// a subtask ticked among 50 compares them where they are.
func diffSubtasks(before, after []Subtask, item int) ([]ItemChange, bool) {
	if len(before) == len(after) {
		at, ok := -1, true
		for j := range before {
			x, y := before[j], after[j]
			if x.Content == y.Content && x.Status == y.Status && x.Evidence == y.Evidence && x.Origin == y.Origin {
				continue // sameIgnoringIDs of the two as items
			}
			if at >= 0 || strings.TrimSpace(x.Content) != strings.TrimSpace(y.Content) {
				ok = false
				break
			}
			at = j
		}
		if ok && at < 0 {
			return nil, true
		}
		if ok {
			one := func(s Subtask) Todo { return subtaskTodos([]Subtask{s})[0] }
			return itemChanges(Pos{item, at}, one(before[at]), one(after[at])), true
		}
	}
	return diffList(subtaskTodos(before), subtaskTodos(after), item)
}

// subtaskTodos is subtasks as items, to line them up as a list.
func subtaskTodos(subs []Subtask) []Todo {
	out := make([]Todo, len(subs))
	for i, s := range subs {
		out[i] = Todo{Content: s.Content, Status: s.Status, Evidence: s.Evidence, Origin: s.Origin}
	}
	return out
}

// diffByText matches the items of after to those of before by text, the
// first unused item of the same text: the rest of after was added, the
// rest of before removed.
func diffByText(before, after []Todo) []ItemChange {
	byKey := map[string][]int{}
	for i, t := range before {
		k := textKey(t)
		byKey[k] = append(byKey[k], i)
	}
	var out []ItemChange
	used := make([]bool, len(before))
	last, reordered := -1, false
	for j, a := range after {
		k := textKey(a)
		idx := byKey[k]
		if len(idx) == 0 {
			out = append(out, ItemChange{Kind: ChangeAdded, At: Pos{j, -1}, Text: a.Content})
			continue
		}
		i := idx[0]
		byKey[k], used[i] = idx[1:], true
		reordered = reordered || i < last
		last = i
		out = append(out, itemChanges(Pos{j, -1}, before[i], a)...)
	}
	for i, t := range before {
		if !used[i] {
			out = append(out, ItemChange{Kind: ChangeRemoved, At: Pos{i, -1}, Text: t.Content})
		}
	}
	if reordered {
		out = append(out, ItemChange{Kind: ChangeReordered, At: Pos{-1, -1}})
	}
	return out
}

// textKey is what matches two items as the same item: their text.
func textKey(t Todo) string { return strings.TrimSpace(t.Content) }

// inPlace reports whether the items of two lists of one length can be
// paired by position: no text that changed at one position appears at
// another, as it would when items were reordered.
func inPlace(before, after []Todo) bool {
	inBefore, inAfter := map[string]bool{}, map[string]bool{}
	for i := range before {
		inBefore[textKey(before[i])], inAfter[textKey(after[i])] = true, true
	}
	for i := range before {
		b, a := textKey(before[i]), textKey(after[i])
		if b != a && (inBefore[a] || inAfter[b]) {
			return false
		}
	}
	return true
}

// oneInPlace reports, for two lists of one length, the one position at
// which they differ (items compared but for their ids; -1: none) when
// that item kept its text; ok is false when more than one differ or the
// one changed its text. Such a change is never a move, and lines up in
// place (oneMoved, inPlace).
func oneInPlace(before, after []Todo) (at int, ok bool) {
	at = -1
	for i := range before {
		if sameIgnoringIDs(before[i], after[i]) {
			continue
		}
		if at >= 0 || textKey(before[i]) != textKey(after[i]) {
			return 0, false
		}
		at = i
	}
	return at, true
}

// subsequence reports whether short is long with some items left out,
// matching items by text, and which (their indexes in long).
func subsequence(short, long []Todo) ([]int, bool) {
	var extra []int
	i := 0
	for j := range long {
		if i < len(short) && textKey(short[i]) == textKey(long[j]) {
			i++
			continue
		}
		extra = append(extra, j)
	}
	return extra, i == len(short)
}

// oneMoved reports the move when after is before with one item moved from
// position from to position to (items compared whole but for their ids,
// which are positions, so a moved item that also changed is not a move).
func oneMoved(before, after []Todo) (from, to int, ok bool) {
	n := len(before)
	first := 0
	for first < n && sameIgnoringIDs(before[first], after[first]) {
		first++
	}
	last := n - 1
	for last > first && sameIgnoringIDs(before[last], after[last]) {
		last--
	}
	if first >= last {
		return 0, 0, false
	}
	// Moved up (last to first) or down (first to last): the rest shifted.
	// A swap of two is either; it reads as the lower one moved up.
	if equalExcept(before[first:last+1], after[first:last+1], last-first, 0) && sameIgnoringIDs(before[last], after[first]) {
		return last, first, true
	}
	if equalExcept(before[first:last+1], after[first:last+1], 0, last-first) && sameIgnoringIDs(before[first], after[last]) {
		return first, last, true
	}
	return 0, 0, false
}

// equalExcept reports whether a without a[skipA] equals b without
// b[skipB], items compared but for their ids.
func equalExcept(a, b []Todo, skipA, skipB int) bool {
	i, j := 0, 0
	for {
		if i == skipA {
			i++
		}
		if j == skipB {
			j++
		}
		if i >= len(a) || j >= len(b) {
			return i >= len(a) && j >= len(b)
		}
		if !sameIgnoringIDs(a[i], b[j]) {
			return false
		}
		i++
		j++
	}
}

// sameIgnoringIDs compares two items apart from their ids, which are their
// positions and change when items move.
func sameIgnoringIDs(x, y Todo) bool {
	if x.Content != y.Content || x.Status != y.Status || x.ActiveForm != y.ActiveForm ||
		x.Evidence != y.Evidence || x.Origin != y.Origin || len(x.Subtasks) != len(y.Subtasks) {
		return false
	}
	for j := range x.Subtasks {
		a, b := x.Subtasks[j], y.Subtasks[j]
		a.ID, b.ID = "", ""
		if !SameSubtask(a, b) {
			return false
		}
	}
	return true
}

// SameSubtasks reports whether two arrays of subtasks hold the same
// values in every field, stable ids and revisions included, and no
// fields this todosh does not know (whose maps a copy does not share).
func SameSubtasks(a, b []Subtask) bool {
	if len(a) != len(b) {
		return false
	}
	if SameArray(a, b) {
		return true
	}
	for j := range a {
		if !SameSubtask(a[j], b[j]) || a[j].UID != b[j].UID || a[j].Rev != b[j].Rev || a[j].Extra != nil || b[j].Extra != nil {
			return false
		}
	}
	return true
}

// SameTodos reports whether two lists are equal field by field, treating
// nil and empty subtask lists alike.
func SameTodos(a, b []Todo) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true // one list (todostore's onlyMarks compares a session's with itself)
	}
	for i := range a {
		if !SameTodo(a[i], b[i]) {
			return false
		}
	}
	return true
}

// SameTodo reports whether two items are equal in the fields todosh
// knows but stable ids and revisions, their subtasks' included.
func SameTodo(x, y Todo) bool {
	if x.ID != y.ID || x.Content != y.Content || x.Status != y.Status || x.ActiveForm != y.ActiveForm ||
		x.Evidence != y.Evidence || x.Origin != y.Origin || len(x.Subtasks) != len(y.Subtasks) {
		return false
	}
	if SameArray(x.Subtasks, y.Subtasks) {
		return true
	}
	for j := range x.Subtasks {
		if !SameSubtask(x.Subtasks[j], y.Subtasks[j]) {
			return false
		}
	}
	return true
}

// SameSubtask compares the fields of two subtasks that todosh knows.
func SameSubtask(a, b Subtask) bool {
	return a.ID == b.ID && a.Content == b.Content && a.Status == b.Status && a.Evidence == b.Evidence && a.Origin == b.Origin
}
