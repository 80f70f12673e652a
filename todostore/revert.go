package todostore

import (
	"errors"
	"fmt"

	"github.com/todosh/todosh/todolist"
)

// RevertTarget returns the index in lines of the change the next
// /todo revert takes back: the newest change of the list that is not
// itself a revert, already reverted, or a starting point; after a revert
// of change K, the newest such change before K, so reverts chain
// backwards. ok is false
// when there is nothing left to take back.
func RevertTarget(lines []HistoryLine) (int, bool) {
	bound := int(^uint(0) >> 1)
	if n := len(lines); n > 0 && lines[n-1].Revert > 0 {
		bound = lines[n-1].Revert
	}
	reverted := map[int]bool{}
	for _, l := range lines {
		if l.Revert > 0 {
			reverted[l.Revert] = true
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if l.N >= bound || l.Revert > 0 || l.Base || reverted[l.N] {
			continue
		}
		if i > 0 && todolist.SameTodos(lines[i-1].Todos, l.Todos) {
			continue // pause, agent id: not a change of the list
		}
		if i == 0 && (l.N != 1 || len(l.Todos) == 0) {
			return 0, false // what came before it is not kept
		}
		return i, true
	}
	return 0, false
}

// before is the list as it was before lines[i]: the line before it, or
// the empty list of a new session.
func before(lines []HistoryLine, i int) []todolist.Todo {
	if i == 0 {
		return []todolist.Todo{}
	}
	return todolist.CloneTodos(lines[i-1].Todos)
}

// ErrNothingToRevert is returned by Revert when no change is left to take
// back.
var ErrNothingToRevert = errors.New("nothing to revert")

// ErrHistoryGap is returned by Revert when taking back the last change
// would go past changes the history lost: what the list was before them
// is not known. The error names the change and the gap.
var ErrHistoryGap = errors.New("the history has a gap")

// gapFrom is the first gap in lines[i:] (nil: none), with the change it
// stands before.
func gapFrom(lines []HistoryLine, i int) (*Gap, int) {
	for ; i < len(lines); i++ {
		if lines[i].Gap != nil {
			return lines[i].Gap, lines[i].N
		}
	}
	return nil, 0
}

// Revert takes back the last change of the list (see RevertTarget) as a
// new change by, and returns the change it took back. It never goes past
// a gap in the history (ErrHistoryGap): the list before lost changes is
// not known. It decides under the session's lock, from the history as it
// is then (apply.go). When the list is already as it was before that
// change (lines that are no change of the list of their own, an archive's
// entries, came after it), the error wraps ErrNothingToRevert and the
// change is returned; when no change is left, the change returned is
// zero.
func (s *Store) Revert(id string, by todolist.Author) (*Session, HistoryLine, error) {
	var took HistoryLine
	sess, changed, err := s.commit(id, by, true, func(sess *Session, lines []HistoryLine) error {
		took = HistoryLine{} // set afresh at each run (Commit)
		i, ok := RevertTarget(lines)
		from := i
		if !ok {
			from = 0
		}
		if g, at := gapFrom(lines, from); g != nil {
			return fmt.Errorf("%w before change %d (%s): what the list was before it is not known", ErrHistoryGap, at, g)
		}
		if !ok {
			return ErrNothingToRevert
		}
		took = lines[i]
		sess.Todos = before(lines, i)
		sess.revertOf = took.N
		sess.Note(fmt.Sprintf("reverted change %d (%s)", took.N, todolist.ShortLine(took.Said(), 60)))
		return nil
	})
	if err == nil && !changed {
		err = fmt.Errorf("%w: the list is already as it was before change %d", ErrNothingToRevert, took.N)
	}
	return sess, took, err
}

// FindChange returns the line of change n, or an error saying why there
// is none: the change was lost from the history (a gap holds it), or it
// is outside the changes kept.
func FindChange(lines []HistoryLine, n int) (HistoryLine, error) {
	for _, l := range lines {
		if l.N == n {
			return l, nil
		}
		if g := l.Gap; g != nil && g.From > 0 && g.From <= n && n <= g.To {
			return HistoryLine{}, fmt.Errorf("no change %d: it was lost from the history (%s), so the list after it is not known; /todo history shows the changes kept", n, g)
		}
	}
	if len(lines) == 0 {
		return HistoryLine{}, fmt.Errorf("no change %d: this session has no history yet", n)
	}
	return HistoryLine{}, fmt.Errorf("no change %d: the history holds changes %d-%d", n, lines[0].N, lines[len(lines)-1].N)
}

// Restore makes the list what it was after change n, as a new change by.
func (s *Store) Restore(id string, n int, by todolist.Author) (*Session, bool, error) {
	return s.commit(id, by, true, func(sess *Session, lines []HistoryLine) error {
		l, err := FindChange(lines, n)
		if err != nil {
			return err
		}
		sess.Todos = todolist.CloneTodos(l.Todos)
		sess.Note(fmt.Sprintf("restored the list of change %d", n))
		return nil
	})
}
