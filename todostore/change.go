package todostore

import (
	"fmt"
	"strings"
)

// changeTextCols is how much of an item's text a change line quotes.
const changeTextCols = 50

// DescribeChange says in one line what changed from before to after and
// the progress after it, such as `✓ 2 "Implement the parser" — 2/3 done`.
// It is the one place change lines come from: slash commands print it
// instead of the whole list, and scripts print it for each change an agent
// makes. One or two added, deleted, renamed or re-marked items or subtasks
// are named; more are counted. "" means nothing visible changed.
func DescribeChange(before, after []Todo) string {
	what := describeList(before, after)
	if what == "" {
		return ""
	}
	return what + " — " + ProgressText(after)
}

// ProgressText is "2/3 done", or "list empty".
func ProgressText(todos []Todo) string {
	if len(todos) == 0 {
		return "list empty"
	}
	c := CountTodos(todos)
	return fmt.Sprintf("%d/%d done", c.Done(), c.Total)
}

// quote is an item's text as a change line shows it.
func quote(s string) string {
	return `"` + Truncate(ShortLine(s, 0), changeTextCols) + `"`
}

// mark is the status marker of DESIGN §4, "?" for an unknown status.
func mark(st Status) string {
	if m := statusMarks[st]; m != "" {
		return m
	}
	return "?"
}

func describeList(before, after []Todo) string {
	switch {
	case len(after) == 0 && len(before) > 0:
		return "cleared " + Plural(len(before), "item")
	case len(after) == len(before)+1:
		if i, ok := oneInserted(before, after, func(t Todo) string { return t.Content }); ok {
			return fmt.Sprintf("+ %d %s", i+1, quote(after[i].Content))
		}
	case len(after)+1 == len(before):
		if i, ok := oneInserted(after, before, func(t Todo) string { return t.Content }); ok {
			return fmt.Sprintf("- %d %s", i+1, quote(before[i].Content))
		}
	}
	if len(before) == 0 {
		return fmt.Sprintf("new list: %s", Plural(len(after), "item"))
	}
	if len(after) == len(before) {
		if from, to, ok := oneMoved(before, after); ok {
			return fmt.Sprintf("↕ %d %s (was %d)", to+1, quote(after[to].Content), from+1)
		}
	}
	if len(after) != len(before) {
		return fmt.Sprintf("list replaced: %s", Plural(len(after), "item"))
	}
	var changes []string
	for i := range after {
		changes = append(changes, describeItem(i, before[i], after[i])...)
	}
	switch len(changes) {
	case 0:
		return ""
	case 1, 2:
		return strings.Join(changes, "; ")
	}
	// A range (/todo done 1-3): the same mark on each.
	mark, _, _ := strings.Cut(changes[0], " ")
	for _, c := range changes[1:] {
		if m, _, _ := strings.Cut(c, " "); m != mark {
			return fmt.Sprintf("%d changes", len(changes))
		}
	}
	return fmt.Sprintf("%s %s", mark, Plural(len(changes), "item"))
}

// describeItem lists the changes to item i (position i+1) and its subtasks.
func describeItem(i int, b, a Todo) []string {
	var out []string
	pos := fmt.Sprint(i + 1)
	if b.Content != a.Content {
		out = append(out, fmt.Sprintf("~ %s %s", pos, quote(a.Content)))
	}
	subsChanged := false
	switch {
	case len(a.Subtasks) == len(b.Subtasks)+1:
		if j, ok := oneInserted(b.Subtasks, a.Subtasks, func(s Subtask) string { return s.Content }); ok {
			out = append(out, fmt.Sprintf("+ %s.%d %s", pos, j+1, quote(a.Subtasks[j].Content)))
			subsChanged = true
		}
	case len(a.Subtasks)+1 == len(b.Subtasks):
		if j, ok := oneInserted(a.Subtasks, b.Subtasks, func(s Subtask) string { return s.Content }); ok {
			out = append(out, fmt.Sprintf("- %s.%d %s", pos, j+1, quote(b.Subtasks[j].Content)))
			subsChanged = true
		}
	case len(a.Subtasks) == len(b.Subtasks):
		for j := range a.Subtasks {
			sb, sa := b.Subtasks[j], a.Subtasks[j]
			sp := fmt.Sprintf("%s.%d", pos, j+1)
			if sb.Content != sa.Content {
				out = append(out, fmt.Sprintf("~ %s %s", sp, quote(sa.Content)))
			}
			if sb.Status != sa.Status {
				out = append(out, fmt.Sprintf("%s %s %s", mark(sa.Status), sp, quote(sa.Content)))
			}
		}
		subsChanged = len(out) > 0
	default:
		out = append(out, fmt.Sprintf("%s %s now has %s", pos, quote(a.Content), Plural(len(a.Subtasks), "subtask")))
		subsChanged = true
	}
	// An item's status that follows from its subtasks is not news of its
	// own unless it is all there is to say.
	if b.Status != a.Status && (!subsChanged || a.Status == Completed) {
		out = append(out, fmt.Sprintf("%s %s %s", mark(a.Status), pos, quote(a.Content)))
	}
	return out
}

// oneInserted reports the index of the one element of long that short
// lacks, when long is short with one element inserted.
func oneInserted[T any](short, long []T, key func(T) string) (int, bool) {
	i := 0
	for i < len(short) && key(short[i]) == key(long[i]) {
		i++
	}
	for j := i; j < len(short); j++ {
		if key(short[j]) != key(long[j+1]) {
			return 0, false
		}
	}
	return i, true
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
	if equalExcept(before[first:last+1], after[first:last+1], last-first, 0, sameIgnoringIDs) && sameIgnoringIDs(before[last], after[first]) {
		return last, first, true
	}
	if equalExcept(before[first:last+1], after[first:last+1], 0, last-first, sameIgnoringIDs) && sameIgnoringIDs(before[first], after[last]) {
		return first, last, true
	}
	return 0, 0, false
}
