package commands

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/todosh/todosh/todostore"
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
func (p Position) Target(todos []todostore.Todo) (item, sub int, err error) {
	n := len(todos)
	if p.Last {
		if n == 0 {
			return 0, 0, p.outOfRange("the list is empty")
		}
		return n - 1, -1, nil
	}
	if !p.HasSub {
		if p.Item < 1 || p.Item > n {
			return 0, 0, p.outOfRange(itemRange(n))
		}
		return p.Item - 1, -1, nil
	}
	if err := p.checkParent(n); err != nil {
		return 0, 0, err
	}
	k := len(todos[p.Item-1].Subtasks)
	if k == 0 {
		return 0, 0, p.outOfRange(fmt.Sprintf("todo %d has no subtasks", p.Item))
	}
	if p.SubLast {
		return p.Item - 1, k - 1, nil
	}
	if p.Sub < 1 || p.Sub > k {
		return 0, 0, p.outOfRange(span(fmt.Sprintf("%d.", p.Item), k))
	}
	return p.Item - 1, p.Sub - 1, nil
}

// InsertAt resolves p for /todo add: the 0-based index the new item will
// have (sub == -1), or the item and the 0-based index of the new subtask.
// N may be one past the end (1..len+1), M likewise; "last" and N.last
// append.
func (p Position) InsertAt(todos []todostore.Todo) (item, sub int, err error) {
	n := len(todos)
	if p.Last {
		return n, -1, nil
	}
	if !p.HasSub {
		if p.Item < 1 || p.Item > n+1 {
			return 0, 0, p.outOfRange(span("", n+1))
		}
		return p.Item - 1, -1, nil
	}
	if err := p.checkParent(n); err != nil {
		return 0, 0, err
	}
	k := len(todos[p.Item-1].Subtasks)
	if p.SubLast {
		return p.Item - 1, k, nil
	}
	if p.Sub < 1 || p.Sub > k+1 {
		return 0, 0, p.outOfRange(span(fmt.Sprintf("%d.", p.Item), k+1))
	}
	return p.Item - 1, p.Sub - 1, nil
}

// checkParent checks the N of N.M and N.last against a list of n items.
func (p Position) checkParent(n int) error {
	switch {
	case n == 0:
		return p.outOfRange("the list is empty")
	case n == 1 && p.Item != 1:
		return p.outOfRange("the only todo is 1")
	case p.Item < 1 || p.Item > n:
		return p.outOfRange(fmt.Sprintf("todos are 1-%d", n))
	}
	return nil
}

func (p Position) outOfRange(valid string) error {
	return fmt.Errorf("position %s out of range (%s)", p.typed, valid)
}

// itemRange describes the existing items of a list of n.
func itemRange(n int) string {
	if n == 0 {
		return "the list is empty"
	}
	return span("", n)
}

// span renders the valid positions prefix+1 .. prefix+hi: "1-4", "2.1-2.3",
// or "only 1" when there is one.
func span(prefix string, hi int) string {
	if hi == 1 {
		return "only " + prefix + "1"
	}
	return fmt.Sprintf("%s1-%s%d", prefix, prefix, hi)
}
