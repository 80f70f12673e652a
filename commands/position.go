package commands

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/todosh/todosh/todolist"
)

// positionKinds names the four forms; positionForms is the help text
// every malformed-position error ends with.
const (
	positionKinds = "N, last, N.M or N.last"
	positionForms = "use " + positionKinds + ", e.g. 3, last, 2.1, 2.last"
)

// Position is a 1-based place in a list as people type it: "N" (item N),
// "last", "N.M" (subtask M of item N) or "N.last". It is resolved against
// a list only under the store's lock, by Target or InsertAt.
type Position struct {
	// Last is the whole position "last".
	Last bool
	// Item is N; numbers too large to matter are kept as math.MaxInt32.
	Item int
	// HasSub is true for N.M and N.last; Sub is M, SubLast is true for
	// N.last.
	HasSub  bool
	Sub     int
	SubLast bool

	typed string
}

// String is the position as it was typed, for messages.
func (p Position) String() string { return p.typed }

// ParsePosition parses a position in one of the four forms. It checks only
// the form: "0" and "7" parse, and are refused by Target or InsertAt with
// the valid range.
func ParsePosition(s string) (Position, error) {
	if s == "" {
		return Position{}, fmt.Errorf("missing position (%s)", positionForms)
	}
	p := Position{typed: s}
	if s == "last" {
		p.Last = true
		return p, nil
	}
	head, tail, hasSub := strings.Cut(s, ".")
	n, ok := parseCount(head)
	if !ok {
		return Position{}, fmt.Errorf("malformed position %q (%s)", s, positionForms)
	}
	p.Item = n
	if !hasSub {
		return p, nil
	}
	p.HasSub = true
	if tail == "last" {
		p.SubLast = true
		return p, nil
	}
	if p.Sub, ok = parseCount(tail); !ok {
		return Position{}, fmt.Errorf("malformed position %q (%s)", s, positionForms)
	}
	return p, nil
}

// parseCount accepts ASCII digits only (no sign, no spaces). Values past
// int32 saturate: they are out of range of any list anyway, and the error
// quotes what was typed.
func parseCount(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return math.MaxInt32, true
	}
	return int(n), true
}

// IsPositionForm reports whether a word has one of the four forms; in
// /todo add such a first word is a position, never text.
func IsPositionForm(s string) bool {
	_, err := ParsePosition(s)
	return err == nil
}

// Target resolves p to an existing item (sub == -1) or subtask, as 0-based
// indexes, for delete, done and undo. "last" is the last item, N.last the
// last subtask of item N.
func (p Position) Target(todos []todolist.Todo) (item, sub int, err error) {
	n := len(todos)
	if p.Last {
		if n == 0 {
			return 0, 0, p.outOfRange(itemsAre(0), "")
		}
		return n - 1, -1, nil
	}
	if !p.HasSub {
		if p.Item < 1 || p.Item > n {
			return 0, 0, p.outOfRange(itemsAre(n), "")
		}
		return p.Item - 1, -1, nil
	}
	if why := parentProblem(p.Item, n); why != "" {
		return 0, 0, p.outOfRange(why, "")
	}
	k := len(todos[p.Item-1].Subtasks)
	if k == 0 || !p.SubLast && (p.Sub < 1 || p.Sub > k) {
		return 0, 0, p.outOfRange(subtasksAre(p.Item, k), "")
	}
	if p.SubLast {
		return p.Item - 1, k - 1, nil
	}
	return p.Item - 1, p.Sub - 1, nil
}

// InsertAt resolves p for /todo add: the 0-based index the new item will
// have (sub == -1), or the item and the 0-based index of the new subtask.
// N may be one past the end (1..len+1), M likewise; "last" and N.last
// append.
func (p Position) InsertAt(todos []todolist.Todo) (item, sub int, err error) {
	n := len(todos)
	if p.Last {
		return n, -1, nil
	}
	if !p.HasSub {
		if p.Item < 1 || p.Item > n+1 {
			return 0, 0, p.outOfRange(itemsAre(n), insertHow("", n, "item"))
		}
		return p.Item - 1, -1, nil
	}
	if why := parentProblem(p.Item, n); why != "" {
		how := ""
		if n == 0 {
			how = "a subtask goes under an item: /todo add TEXT adds the first item"
		}
		return 0, 0, p.outOfRange(why, how)
	}
	k := len(todos[p.Item-1].Subtasks)
	if p.SubLast {
		return p.Item - 1, k, nil
	}
	if p.Sub < 1 || p.Sub > k+1 {
		return 0, 0, p.outOfRange(subtasksAre(p.Item, k), insertHow(fmt.Sprintf("%d.", p.Item), k, "subtask"))
	}
	return p.Item - 1, p.Sub - 1, nil
}

// parentProblem says why item is not an item of a list of n (the N of
// N.M), or "".
func parentProblem(item, n int) string {
	if item < 1 || item > n {
		return itemsAre(n)
	}
	return ""
}

// outOfRange is the refusal of p: what is true of the list (why), and,
// when given, how to say what was meant.
func (p Position) outOfRange(why, how string) error {
	return outOfRange("position "+p.typed, why, how)
}

// outOfRange is the one form of every number out of range, a position, a
// page or a list: "WHAT out of range: why (how)", how left out when "".
func outOfRange(what, why, how string) error {
	if how != "" {
		return fmt.Errorf("%s out of range: %s (%s)", what, why, how)
	}
	return fmt.Errorf("%s out of range: %s", what, why)
}

// pageOutOfRange refuses page of a listing of pages pages, shown by cmd
// (/todo history, /todo list); fill says what holds them: "page 9 out of
// range: the history has 3 pages (/todo history 3 is the last)".
func pageOutOfRange(page, pages int, fill, cmd string) error {
	what := fmt.Sprintf("page %d", page)
	if pages == 1 {
		return outOfRange(what, fill+" 1 page", cmd+" shows it")
	}
	return outOfRange(what, fmt.Sprintf("%s %d pages", fill, pages), fmt.Sprintf("%s %d is the last", cmd, pages))
}

// listOutOfRange refuses list n of the n rows /todo list numbers.
func listOutOfRange(n, rows int) error {
	return outOfRange(fmt.Sprintf("list %d", n), listsAre(rows), "/todo list shows the numbers")
}

// listsAre says which lists /todo list numbers, n of them, as itemsAre
// says which items a list has.
func listsAre(n int) string {
	switch n {
	case 0:
		return "there are no saved lists"
	case 1:
		return "the only list is 1"
	}
	return fmt.Sprintf("lists are 1-%d", n)
}

// itemsAre says which items a list of n has: "the list is empty", "the
// only item is 1", "items are 1-3".
func itemsAre(n int) string {
	switch n {
	case 0:
		return "the list is empty"
	case 1:
		return "the only item is 1"
	}
	return fmt.Sprintf("items are 1-%d", n)
}

// subtasksAre says which subtasks item (1-based) has, k of them: "item 2
// has no subtasks", "item 2's only subtask is 2.1", "item 2's subtasks
// are 2.1-2.3".
func subtasksAre(item, k int) string {
	switch k {
	case 0:
		return fmt.Sprintf("item %d has no subtasks", item)
	case 1:
		return fmt.Sprintf("item %d's only subtask is %d.1", item, item)
	}
	return fmt.Sprintf("item %d's subtasks are %d.1-%d.%d", item, item, item, k)
}

// insertHow says where /todo add can put an entry among n of its kind
// (noun: item or subtask), positions written after prefix ("2." for
// item 2's subtasks): before each of them, or after the last.
func insertHow(prefix string, n int, noun string) string {
	switch n {
	case 0:
		return fmt.Sprintf("%s1 or %slast adds the first", prefix, prefix)
	case 1:
		return fmt.Sprintf("%s1 inserts before it, %s2 or %slast appends", prefix, prefix, prefix)
	}
	return fmt.Sprintf("%s1-%s%d inserts before that %s, %s%d or %slast appends", prefix, prefix, n, noun, prefix, n+1, prefix)
}

// span renders the valid positions prefix+1 .. prefix+hi: "1-4", "2.1-2.3",
// or "only 1" when there is one.
func span(prefix string, hi int) string {
	if hi == 1 {
		return "only " + prefix + "1"
	}
	return fmt.Sprintf("%s1-%s%d", prefix, prefix, hi)
}

// selectionForms is the help text of malformed-selection errors: the
// commands that act on existing items (delete, done, undo, start, cancel)
// also take ranges and all.
const selectionForms = "use N, last, N.M, N.last, a range N-M or N.A-N.B, or all, e.g. 3, 2-4, 2.1-2.3, all"

// Selection is what delete, done, undo, start and cancel act on: one
// position, a range of items ("2-4", "2-last"), a range of one item's
// subtasks ("2.1-2.3", "2.2-2.last"), or "all" items. Like Position it
// is resolved against a list only under the store's lock, by Targets.
type Selection struct {
	// All is the whole selection "all".
	All bool
	// From is the single position, or the start of a range. A range's
	// start is always numeric: "last-2" is malformed.
	From Position
	// IsRange is true for N-M and N.A-N.B; To is the end, whose Last or
	// SubLast stands for the last item or subtask.
	IsRange bool
	To      Position

	typed string
}

// String is the selection as it was typed, for messages.
func (s Selection) String() string { return s.typed }

// Single reports whether the selection is one position (no range, not
// all): such a selection keeps the messages of a single position.
func (s Selection) Single() bool { return !s.All && !s.IsRange }

// Target is one resolved item (Sub == -1) or subtask of a list, 0-based.
type Target struct{ Item, Sub int }

// ParseSelection parses a selection in one of the forms of
// selectionForms. Like ParsePosition it checks only the form: "0-9"
// parses, and Targets refuses it with the valid range.
func ParseSelection(s string) (Selection, error) {
	sel := Selection{typed: s}
	if s == "all" {
		sel.All = true
		return sel, nil
	}
	head, tail, isRange := strings.Cut(s, "-")
	if !isRange || head == "" {
		p, err := ParsePosition(s)
		if err != nil {
			if s == "" {
				return Selection{}, fmt.Errorf("missing position (%s)", selectionForms)
			}
			return Selection{}, fmt.Errorf("malformed position %q (%s)", s, selectionForms)
		}
		sel.From = p
		return sel, nil
	}
	malformed := fmt.Errorf("malformed range %q (%s)", s, selectionForms)
	from, err := ParsePosition(head)
	if err != nil || from.Last || from.SubLast {
		return Selection{}, malformed
	}
	to, err := ParsePosition(tail)
	if err != nil || to.HasSub != from.HasSub {
		return Selection{}, malformed
	}
	if from.HasSub && (to.Last || to.Item != from.Item) {
		return Selection{}, fmt.Errorf("subtask range %q spans two items: a subtask range stays within one item (e.g. %d.1-%d.last), and an item range is N-M", s, from.Item, from.Item)
	}
	sel.From, sel.To, sel.IsRange = from, to, true
	return sel, nil
}

// IsSelectionForm reports whether a word has one of the forms
// ParseSelection accepts.
func IsSelectionForm(s string) bool {
	_, err := ParseSelection(s)
	return err == nil
}

// Targets resolves the selection against a list: the items or subtasks it
// names, in list order. A single position resolves as Position.Target
// does. A range is checked as llxprt-code checks it, start before end and
// then the bounds, and either refusal names the valid range; "all" on an
// empty list is refused.
func (s Selection) Targets(todos []todolist.Todo) ([]Target, error) {
	switch {
	case s.All:
		if len(todos) == 0 {
			return nil, errors.New("position all out of range: the list is empty")
		}
		out := make([]Target, len(todos))
		for i := range todos {
			out[i] = Target{Item: i, Sub: -1}
		}
		return out, nil
	case !s.IsRange:
		item, sub, err := s.From.Target(todos)
		if err != nil {
			return nil, err
		}
		return []Target{{Item: item, Sub: sub}}, nil
	case !s.From.HasSub:
		lo, hi, err := s.bounds(s.From.Item, s.To.Item, s.To.Last, "", len(todos), itemsAre(0))
		if err != nil {
			return nil, err
		}
		out := make([]Target, 0, hi-lo+1)
		for i := lo; i <= hi; i++ {
			out = append(out, Target{Item: i - 1, Sub: -1})
		}
		return out, nil
	}
	if why := parentProblem(s.From.Item, len(todos)); why != "" {
		return nil, fmt.Errorf("range %s out of bounds (%s)", s.typed, why)
	}
	item := s.From.Item
	k := len(todos[item-1].Subtasks)
	lo, hi, err := s.bounds(s.From.Sub, s.To.Sub, s.To.SubLast, fmt.Sprintf("%d.", item), k, subtasksAre(item, 0))
	if err != nil {
		return nil, err
	}
	out := make([]Target, 0, hi-lo+1)
	for j := lo; j <= hi; j++ {
		out = append(out, Target{Item: item - 1, Sub: j - 1})
	}
	return out, nil
}

// bounds applies llxprt-code's two range checks to lo-hi (hi is n
// when toLast) over 1..n: the start must not be past the end, and both
// must lie in 1..n. The errors name the valid range, prefix+"1-"+prefix+n.
func (s Selection) bounds(lo, hi int, toLast bool, prefix string, n int, empty string) (int, int, error) {
	if toLast {
		hi = n
	}
	if err := checkRange(s.typed, lo, hi, !toLast, prefix, n, empty); err != nil {
		return 0, 0, err
	}
	return lo, hi, nil
}

// checkRange is llxprt-code's pair of checks on a typed range lo-hi over
// the numbers 1..n, with its wording: "start must be <= end" (only when
// ordered is set: a range ending in "last" has no typed end), then "valid
// range is 1-N". prefix is put before each number of the valid range
// ("2." for subtasks of item 2); empty describes n == 0.
func checkRange(typed string, lo, hi int, ordered bool, prefix string, n int, empty string) error {
	if ordered && lo > hi {
		return fmt.Errorf("range %s: start must be <= end (e.g. %s%d-%s%d)", typed, prefix, hi, prefix, lo)
	}
	if n == 0 {
		return fmt.Errorf("range %s out of bounds (%s)", typed, empty)
	}
	if lo < 1 || hi > n || lo > n {
		return fmt.Errorf("range %s out of bounds: valid range is %s1-%s%d", typed, prefix, prefix, n)
	}
	return nil
}

// looksLikePosition reports whether a word typed first after /todo add
// was probably meant as a position although it is not a valid one:
// "1.2.3", "-1", "2-4", "1.", "last.2". Such a word is refused rather than
// stored as text. A word with a quote is never one (quoted text is text),
// and neither is ordinary text that merely starts with a digit ("2nd",
// "3D") or a lone dash used as a bullet.
func looksLikePosition(raw string) bool {
	rest := strings.ReplaceAll(raw, "last", "")
	if rest == raw && strings.IndexAny(raw, "0123456789") < 0 {
		return false // neither a number nor "last" in it
	}
	if rest == "" {
		return true // "lastlast"
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !('0' <= c && c <= '9' || c == '.' || c == '-' || c == '+') {
			return false
		}
	}
	return true
}
