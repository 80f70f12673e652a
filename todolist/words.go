package todolist

// The words of a change in the history, rendered from Diff (ARCHITECTURE.md §6).

import (
	"strconv"
	"strings"
)

// Describe says in words what changed from one list to the next, as the
// history shows it: Diff(before, after).Words(by).
func Describe(before, after []Todo, by Author) string {
	return Diff(before, after).Words(by)
}

// Words says c as the history shows it: changes of one kind by name
// (`added 3 "write tests"`, `completed 2.1, 2`, `moved 4 to 1`, `deleted 2
// items: 2 "b", 3 "c"`), statuses grouped by verb (`reopened 1, 3;
// completed 2, 4`), a new or emptied list by its size, and anything else
// as counts (`rewrote the list: 2 completed, 1 added`). The author is not
// named: every place that shows the words shows who next to them. No
// change gives "".
func (c ListChange) Words(by Author) string {
	n := len(c.Items)
	switch {
	case n == 0:
		return ""
	case n > 1 && c.Before == 0 && c.only(ChangeAdded):
		if by == ByAgent {
			return "wrote a list of " + Plural(n, "item")
		}
		return "new list of " + Plural(n, "item")
	case n > 1 && c.After == 0 && c.only(ChangeRemoved):
		return "emptied the list (" + Plural(n, "item") + ")"
	case c.only(ChangeStatus) || c.only(c.Items[0].Kind) && c.Items[0].Kind != ChangeReordered:
		return c.named()
	}
	return c.counted(by)
}

// named lists c's changes by position, grouped by verb in the order they
// first appear.
func (c ListChange) named() string {
	groups := map[string][]ItemChange{}
	var order []string
	for _, it := range c.Items {
		v := historyVerb(it)
		if groups[v] == nil {
			order = append(order, v)
		}
		groups[v] = append(groups[v], it)
	}
	parts := make([]string, 0, len(order))
	for _, v := range order {
		parts = append(parts, namedGroup(v, groups[v]))
	}
	return strings.Join(parts, "; ")
}

// namedGroup is one verb and its items: texts quoted for what added,
// deleted or edited them, positions alone for the rest.
func namedGroup(verb string, items []ItemChange) string {
	switch items[0].Kind {
	case ChangeAdded, ChangeRemoved, ChangeEdited:
		if len(items) == 1 {
			return verb + " " + items[0].At.String() + " " + strconv.Quote(ShortLine(items[0].Text, 50))
		}
		parts := make([]string, 0, 4)
		for k, it := range items {
			if k == 3 {
				parts = append(parts, "…")
				break
			}
			parts = append(parts, it.At.String()+" "+strconv.Quote(ShortLine(it.Text, 30)))
		}
		return verb + " " + Plural(len(items), "item") + ": " + strings.Join(parts, ", ")
	}
	parts := make([]string, 0, len(items))
	for _, it := range items {
		p := it.At.String()
		if it.Kind == ChangeMoved {
			p = it.From.String() + " to " + p
		}
		parts = append(parts, p)
	}
	return verb + " " + strings.Join(parts, ", ")
}

// historyVerb is the verb the history names a change with.
func historyVerb(it ItemChange) string {
	switch it.Kind {
	case ChangeAdded:
		return "added"
	case ChangeRemoved:
		return "deleted"
	case ChangeEdited:
		return "edited"
	case ChangeStatus:
		return statusVerb(it.Status)
	case ChangeMoved:
		return "moved"
	case ChangeSubtasks:
		return "rewrote the subtasks of"
	case ChangeDetails:
		return "updated"
	}
	return "reordered"
}

// counted says c as counts of each kind of change, for an item or a
// subtask: "changed the list: 1 completed, 1 added, 2 removed".
func (c ListChange) counted(by Author) string {
	counts := map[string]int{}
	var order []string
	for _, it := range c.Items {
		k := historyVerb(it)
		switch {
		case it.Kind == ChangeRemoved:
			k = "removed"
		case it.Kind == ChangeSubtasks:
			k = "with new subtasks"
		}
		if it.At.Sub >= 0 {
			k = "subtask " + k
		}
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	parts := make([]string, 0, len(order))
	for _, k := range order {
		switch {
		case k == "reordered":
			parts = append(parts, k)
		case strings.HasPrefix(k, "subtask "):
			parts = append(parts, Plural(counts[k], "subtask")+" "+strings.TrimPrefix(k, "subtask "))
		default:
			parts = append(parts, strconv.Itoa(counts[k])+" "+k)
		}
	}
	who := "changed the list"
	if by == ByAgent {
		who = "rewrote the list"
	}
	return who + ": " + strings.Join(parts, ", ")
}

func statusVerb(st Status) string {
	switch st {
	case Completed:
		return "completed"
	case InProgress:
		return "started"
	case Cancelled:
		return "cancelled"
	}
	return "reopened"
}
