package todolist

import (
	"fmt"
	"strings"

	"github.com/todosh/todosh/textwidth"
)

// changeTextCols is how much of an item's text a change line quotes.
const changeTextCols = 50

// DescribeChange says in one line what changed from before to after and
// the progress after it, such as `✓ 2 "Implement the parser" — 2/3 done`:
// Diff(before, after).Line(). Slash commands print it instead of the whole
// list, and scripts print it for each change an agent makes. "" means
// nothing visible changed.
func DescribeChange(before, after []Todo) string {
	return Diff(before, after).Line()
}

// Line says c in one line for the terminal, with the progress after it:
// one or two changes by name (`+ 3 "Docs"`, `↕ 1 "Ship" (was 3)`), more
// of one kind counted by their mark (`✓ 3 items`), else `4 changes`; a
// new, emptied or replaced list by its size. No change gives "".
func (c ListChange) Line() string {
	what := c.lineWhat()
	if what == "" {
		return ""
	}
	return what + " — " + progressText(c.Done, c.After)
}

func (c ListChange) lineWhat() string {
	n := len(c.Items)
	switch {
	case n == 0:
		return ""
	case n > 1 && c.Before == 0 && c.only(ChangeAdded):
		return "new list: " + Plural(n, "item")
	case n > 1 && c.After == 0 && c.only(ChangeRemoved):
		return "cleared " + Plural(n, "item")
	case c.ByText && c.replaced():
		return "list replaced: " + Plural(c.After, "item")
	case n <= 2:
		parts := make([]string, 0, n)
		for _, it := range c.Items {
			parts = append(parts, lineItem(it))
		}
		return strings.Join(parts, "; ")
	}
	// A range (/todo done 1-3): the same mark on each.
	m := lineMark(c.Items[0])
	for _, it := range c.Items[1:] {
		if lineMark(it) != m {
			m = ""
		}
	}
	if m == "" {
		return fmt.Sprintf("%d changes", n)
	}
	return m + " " + Plural(n, "item")
}

// replaced reports whether no item of the list before is in the list after.
func (c ListChange) replaced() bool {
	for _, it := range c.Items {
		if it.At.Sub >= 0 || it.Kind != ChangeAdded && it.Kind != ChangeRemoved {
			return false
		}
	}
	return c.Count(ChangeAdded) == c.After && c.Count(ChangeRemoved) == c.Before
}

// lineMark is the mark a change line shows a change with: a status's own,
// "+", "-", "~" or "↕"; "" for kinds that are never counted by a mark.
func lineMark(it ItemChange) string {
	switch it.Kind {
	case ChangeAdded:
		return "+"
	case ChangeRemoved:
		return "-"
	case ChangeEdited:
		return "~"
	case ChangeStatus:
		return mark(it.Status)
	case ChangeMoved:
		return "↕"
	}
	return ""
}

// lineItem names one change: its mark, position and text.
func lineItem(it ItemChange) string {
	switch it.Kind {
	case ChangeMoved:
		return fmt.Sprintf("↕ %s %s (was %s)", it.At, quote(it.Text), it.From)
	case ChangeSubtasks:
		return fmt.Sprintf("%s %s now has %s", it.At, quote(it.Text), Plural(it.Subtasks, "subtask"))
	case ChangeDetails:
		return fmt.Sprintf("updated %s %s", it.At, quote(it.Text))
	case ChangeReordered:
		return "list reordered"
	}
	return lineMark(it) + " " + it.At.String() + " " + quote(it.Text)
}

// ProgressText is "2/3 done", or "list empty".
func ProgressText(todos []Todo) string {
	return progressText(CountTodos(todos).Done(), len(todos))
}

func progressText(done, total int) string {
	if total == 0 {
		return "list empty"
	}
	return fmt.Sprintf("%d/%d done", done, total)
}

// quote is an item's text as a change line shows it.
func quote(s string) string {
	return `"` + textwidth.Truncate(ShortLine(s, 0), changeTextCols) + `"`
}

// mark is the status marker of the list format (ARCHITECTURE.md §6), "?" for an unknown status.
func mark(st Status) string {
	if m := StatusMarks[st]; m != "" {
		return m
	}
	return "?"
}
