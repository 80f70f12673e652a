// Package todolist holds the list's model and its rules: items and
// subtasks, statuses, limits and validation, derived status, the edits of a
// list (ops.go), what counts as a change and what it was (change.go) and
// its words (words.go, changeline.go), stable ids looked up (ids.go), items' JSON
// with unknown fields kept (json.go), counts written for people
// (text.go, thousands.go), who made a change (author.go) and the
// receipts' values (receipts.go). It is pure, no I/O, and of todosh it
// imports only textwidth, so every other package can depend on it. Its
// place in the whole is ARCHITECTURE.md §1 and §6.
package todolist

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Status is the state of a todo or subtask as written in the session file.
type Status string

// The statuses a todo may have; subtasks use only Pending and Completed.
const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Completed  Status = "completed"
	Cancelled  Status = "cancelled"
)

// Limits enforced on every list that is written; each breach is an error
// that names the limit, never a silent truncation.
const (
	MaxTodos        = 100
	MaxSubtasks     = 50
	MaxTextLen      = 1000 // characters (runes), per content, activeForm or evidence
	MaxFileSize     = 1 << 20
	MaxSessionIDLen = 100
	FormatVersion   = 1
)

// OriginPerson is the Origin of items and subtasks the person added with
// /todo add; merging an agent's rewritten list never drops them.
const OriginPerson = "person"

// Subtask is one checklist entry under a todo; it is either pending or
// completed.
type Subtask struct {
	ID       string `json:"id"`
	Content  string `json:"content"`
	Status   Status `json:"status"`
	Evidence string `json:"evidence,omitempty"`
	// Origin is OriginPerson for subtasks added with /todo add N.M.
	Origin string `json:"origin,omitempty"`
	// UID is the subtask's stable id ("s12"), and Rev the list revision
	// of its last change not made by an agent (0: none); todostore's
	// Commit sets both (todostore/revs.go).
	UID string `json:"uid,omitempty"`
	Rev int    `json:"rev,omitempty"`
	// Extra keeps the fields this todosh does not know, written back as read.
	Extra Extra `json:"-"`
}

// Todo is one item of a session's list. When it has subtasks its Status is
// derived from them by Normalize.
type Todo struct {
	ID         string    `json:"id"`
	Content    string    `json:"content"`
	Status     Status    `json:"status"`
	ActiveForm string    `json:"activeForm,omitempty"`
	Evidence   string    `json:"evidence,omitempty"`
	Subtasks   []Subtask `json:"subtasks,omitempty"`
	// Origin is OriginPerson for items added with /todo add; the merge of an
	// agent's rewritten list keeps such items instead of dropping them.
	Origin string `json:"origin,omitempty"`
	// UID is the item's stable id ("t7"): it never changes while the item
	// is on the list, whatever moves, and is never given to another item
	// of the session. ID is its position. Rev is the list revision of the
	// item's last change not made by an agent (0: none), so the merge of an
	// agent's list knows what changed since the agent's last read.
	// todostore's Commit sets both (todostore/revs.go).
	UID string `json:"uid,omitempty"`
	Rev int    `json:"rev,omitempty"`
	// Extra keeps the fields this todosh does not know (llxprt's
	// "priority" and "notes"), written back as read.
	Extra Extra `json:"-"`
}

// IsOpen reports whether work remains on a todo: it is neither completed nor
// cancelled.
func (t Todo) IsOpen() bool { return t.Status != Completed && t.Status != Cancelled }

// DoneSubtasks counts the completed subtasks of t.
func (t Todo) DoneSubtasks() int {
	n := 0
	for _, s := range t.Subtasks {
		if s.Status == Completed {
			n++
		}
	}
	return n
}

// Counts is how many todos of a list have each status.
type Counts struct {
	Total, Pending, InProgress, Completed, Cancelled int
}

// Open is the number of todos with work remaining.
func (c Counts) Open() int { return c.Pending + c.InProgress }

// Done is the number of todos finished either way (completed or cancelled).
func (c Counts) Done() int { return c.Completed + c.Cancelled }

// CountTodos tallies the statuses of a list.
func CountTodos(todos []Todo) Counts {
	var c Counts
	for _, t := range todos {
		c.Total++
		switch t.Status {
		case Pending:
			c.Pending++
		case InProgress:
			c.InProgress++
		case Completed:
			c.Completed++
		case Cancelled:
			c.Cancelled++
		}
	}
	return c
}

// AllDone reports whether a non-empty list has no open todo left.
func AllDone(todos []Todo) bool {
	c := CountTodos(todos)
	return c.Total > 0 && c.Open() == 0
}

// ParseStatus accepts a status as written in the file, case-insensitively,
// with "in-progress" and "done" as conveniences.
func ParseStatus(s string) (Status, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "pending", "todo":
		return Pending, nil
	case "in_progress", "in-progress", "inprogress":
		return InProgress, nil
	case "completed", "done", "complete":
		return Completed, nil
	case "cancelled", "canceled":
		return Cancelled, nil
	}
	return "", fmt.Errorf("unknown status %q (want pending, in_progress, completed or cancelled)", s)
}

// ErrLimit is wrapped by every error that reports a broken limit.
var ErrLimit = errors.New("limit exceeded")

// CheckText validates one piece of todo text: not blank, at most MaxTextLen
// characters, valid UTF-8. what names the field in the error ("text").
func CheckText(what, s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("%s is empty", what)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s is not valid UTF-8", what)
	}
	if n := utf8.RuneCountInString(s); n > MaxTextLen {
		return fmt.Errorf("%s is %d characters, over the limit of %d: %w", what, n, MaxTextLen, ErrLimit)
	}
	return nil
}

// Normalize renumbers ids to positions ("1", "2.1") and recomputes the
// derived status of every todo that has subtasks. It is applied before
// every write, so ids in a file always equal the positions people type.
func Normalize(todos []Todo) {
	for i := range todos {
		t := &todos[i]
		if id := i + 1; !isNumber(t.ID, id) {
			t.ID = strconv.Itoa(id)
		}
		owned := false // its subtasks may be shared: copied before the first write (OwnSubtasks)
		for j := range t.Subtasks {
			if !isSubID(t.Subtasks[j].ID, t.ID, j+1) {
				if !owned {
					OwnSubtasks(t)
					owned = true
				}
				t.Subtasks[j].ID = t.ID + "." + strconv.Itoa(j+1)
			}
		}
		t.Status = DerivedStatus(*t)
	}
}

// isNumber reports whether s is n in decimal, without making a string.
func isNumber(s string, n int) bool {
	if n <= 0 || s == "" {
		return false
	}
	for i := len(s) - 1; i >= 0; i-- {
		if n == 0 || s[i] != byte('0'+n%10) {
			return false
		}
		n /= 10
	}
	return n == 0 && s[0] != '0'
}

// isSubID reports whether s is item + "." + n.
func isSubID(s, item string, n int) bool {
	if n >= 1 && n < len(smallNumbers) {
		// Every subtask's id is checked at every change: its number is
		// compared with a string, not worked out digit by digit.
		num := smallNumbers[n]
		return len(s) == len(item)+1+len(num) && s[len(item)] == '.' && s[:len(item)] == item && s[len(item)+1:] == num
	}
	return len(s) > len(item)+1 && s[:len(item)] == item && s[len(item)] == '.' && isNumber(s[len(item)+1:], n)
}

// smallNumbers are the numbers a subtask's id may end with, in decimal.
var smallNumbers = func() (t [MaxSubtasks + 1]string) {
	for i := range t {
		t[i] = strconv.Itoa(i)
	}
	return t
}()

// DerivedStatus is the status a todo must have given its subtasks: none done
// keeps pending (or in_progress if it was started), some done is in_progress,
// all done is completed. A cancelled todo stays cancelled, and a todo
// without subtasks keeps its own status.
func DerivedStatus(t Todo) Status {
	if len(t.Subtasks) == 0 || t.Status == Cancelled {
		return t.Status
	}
	done := t.DoneSubtasks()
	switch {
	case done == len(t.Subtasks):
		return Completed
	case done > 0:
		return InProgress
	case t.Status == InProgress:
		return InProgress
	default:
		return Pending
	}
}

// Validate checks a list against every rule of the model: limits, known
// statuses, non-empty text and subtask statuses. It does not change the list.
func Validate(todos []Todo) error { return ValidateAgainst(todos, nil) }

// ValidateAgainst is Validate for a list made from prev, a valid list
// (read through todostore's Decode or written by its Commit): a text the
// same as prev's in the same field at the same position is valid already
// and not checked again, so a change to one subtask of 1,000 checks one
// text.
func ValidateAgainst(todos, prev []Todo) error {
	if len(todos) > MaxTodos {
		return fmt.Errorf("%d todos, over the limit of %d: %w", len(todos), MaxTodos, ErrLimit)
	}
	// The positions in the messages are built only for an error: a list
	// of 1,000 subtasks is checked at every change.
	for i, t := range todos {
		pos := func() string { return strconv.Itoa(i + 1) }
		var p Todo // prev's item at i, or none: no text is known valid
		if i < len(prev) {
			p = prev[i]
		}
		if err := checkField(pos, "todo", "text", t.Content, p.Content, true); err != nil {
			return err
		}
		if err := checkField(pos, "todo", "activeForm", t.ActiveForm, p.ActiveForm, false); err != nil {
			return err
		}
		if err := checkField(pos, "todo", "evidence", t.Evidence, p.Evidence, false); err != nil {
			return err
		}
		switch t.Status {
		case Pending, InProgress, Completed, Cancelled:
		default:
			return fmt.Errorf("todo %s has unknown status %q (want pending, in_progress, completed or cancelled)", pos(), t.Status)
		}
		if len(t.Subtasks) > MaxSubtasks {
			return fmt.Errorf("todo %s has %d subtasks, over the limit of %d: %w", pos(), len(t.Subtasks), MaxSubtasks, ErrLimit)
		}
		if SameArray(t.Subtasks, p.Subtasks) {
			continue // prev's own subtasks, valid (copy on write)
		}
		for j, s := range t.Subtasks {
			spos := func() string { return pos() + "." + strconv.Itoa(j+1) }
			var ps Subtask
			if j < len(p.Subtasks) {
				ps = p.Subtasks[j]
			}
			if err := checkField(spos, "subtask", "text", s.Content, ps.Content, true); err != nil {
				return err
			}
			if err := checkField(spos, "subtask", "evidence", s.Evidence, ps.Evidence, false); err != nil {
				return err
			}
			if s.Status != Pending && s.Status != Completed {
				return fmt.Errorf("subtask %s has status %q (subtasks are pending or completed)", spos(), s.Status)
			}
		}
	}
	return nil
}

// checkField is CheckText (an empty text passes unless required) with the
// field named "kind POS field" only when it fails. A text equal to valid,
// known to pass (an empty one is not), is not checked again.
func checkField(pos func() string, kind, field, s, valid string, required bool) error {
	if !required && s == "" || s != "" && s == valid {
		return nil
	}
	if err := CheckText(field, s); err != nil {
		return fmt.Errorf("%s %s %w", kind, pos(), err)
	}
	return nil
}

// CloneTodos returns a deep copy of a list, so a snapshot taken before a turn
// is not changed by the turn.
//
// Each item's subtasks get an array of their own, at most 50 subtasks:
// small allocations the runtime reuses from change to change, where one
// array for a list's 1,000 subtasks would be a large one it gives back to
// the system and faults in again.
func CloneTodos(todos []Todo) []Todo {
	return CopyTodos(todos, func(_ int, t Todo) []Subtask { return cloneSubtasks(t.Subtasks) })
}

// cloneSubtasks is a deep copy of an item's subtasks (nil for none).
func cloneSubtasks(subs []Subtask) []Subtask {
	if len(subs) == 0 {
		return nil
	}
	out := append([]Subtask(nil), subs...)
	for j := range out {
		if e := subs[j].Extra; e != nil {
			out[j].Extra = maps.Clone(e)
		}
	}
	return out
}

// CopyTodos copies a list's items, each with its own map of unknown
// fields, and gives each the subtasks sub returns for it.
func CopyTodos(todos []Todo, sub func(i int, t Todo) []Subtask) []Todo {
	if todos == nil {
		return nil
	}
	out := make([]Todo, len(todos))
	for i, t := range todos {
		out[i] = t
		if t.Extra != nil {
			out[i].Extra = maps.Clone(t.Extra)
		}
		out[i].Subtasks = sub(i, t)
	}
	return out
}

// SameArray reports whether two lists of subtasks are one array of one
// length: nothing writes into a subtask array that may be shared (copy on
// write, OwnSubtasks), so they are alike without comparing.
func SameArray(a, b []Subtask) bool {
	return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
}

// OwnSubtasks gives t an array of subtasks of its own, a copy of the one
// it has. Subtask arrays are shared between the lists a change function
// gets, the cache's and the lists callers were given (ARCHITECTURE.md
// §3), so whatever writes into an item's subtasks in place calls it first;
// building a new slice (append, a new array) needs nothing.
func OwnSubtasks(t *Todo) {
	t.Subtasks = cloneSubtasks(t.Subtasks)
}
