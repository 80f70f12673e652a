package hooks

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/todostore"
)

// The person's items reach the agent's own list. An item the person added
// in todosh (/todo add) is in todosh's list but not in the agent's own
// tool, which is where the agent keeps its work. The hooks remember which
// items the agent's tool holds (HookState.Held, digests of their texts,
// after each call of its tool), offer every open item it does not hold to be added
// with its own tool (at the person's next prompt, in a continuation, after
// a compaction), and the gate counts such an item as the agent's work only
// once it was offered (HookState.Offered): an item the person adds while
// the agent works never blocks a stop the agent could not have known
// about. These are pure; run.go applies them in the hook's one Commit.

// itemKey is what the hooks remember of an item: a digest of its text,
// surrounding spaces ignored (the session keeps no text twice).
func itemKey(content string) string { return digest(strings.TrimSpace(content)) }

// heldKeys are the keys of the texts the agent's tool holds (its last
// call's list, or its tasks' subjects), each once.
func heldKeys(texts []string) []string {
	held := []string{}
	for _, t := range texts {
		if k := itemKey(t); !slices.Contains(held, k) {
			held = append(held, k)
		}
	}
	return held
}

// afterCall is the hook state after the agent's tool was called and left
// its tool holding texts: what it holds, and what was offered and is
// still not held.
func afterCall(todos []todolist.Todo, texts []string, st todostore.HookState) todostore.HookState {
	st.Held = heldKeys(texts)
	var offered []string
	for _, k := range st.Offered {
		if !slices.Contains(st.Held, k) && slices.ContainsFunc(todos, func(t todolist.Todo) bool { return itemKey(t.Content) == k }) {
			offered = append(offered, k)
		}
	}
	st.Offered = offered
	return st
}

// notHeld are the indexes of the open items of todos the agent's tool does
// not hold; none while nothing is known of what it holds (a session from
// before todosh kept it).
func notHeld(todos []todolist.Todo, st *todostore.HookState) []int {
	if st == nil || st.Held == nil {
		return nil
	}
	var out []int
	for i, t := range todos {
		if t.IsOpen() && !slices.Contains(st.Held, itemKey(t.Content)) {
			out = append(out, i)
		}
	}
	return out
}

// waiting reports whether every open item of todos is one the agent was
// never offered: then the agent has no open work of its own, and the gate
// lets it stop; the items reach it at the person's next prompt.
func waiting(todos []todolist.Todo, st *todostore.HookState) (n int, all bool) {
	open := 0
	for _, t := range todos {
		if t.IsOpen() {
			open++
		}
		if neverOffered(t, st) {
			n++
		}
	}
	return n, open > 0 && n == open
}

// neverOffered reports whether t is an open item the agent's tool does
// not hold and was never offered; never while nothing is known of what
// the tool holds (notHeld).
func neverOffered(t todolist.Todo, st *todostore.HookState) bool {
	if !t.IsOpen() || st == nil || st.Held == nil {
		return false
	}
	k := itemKey(t.Content)
	return !slices.Contains(st.Held, k) && !slices.Contains(st.Offered, k)
}

// offeredOnly is todos without the open items the agent was never
// offered, the list the gate decides on when it has no other open work.
func offeredOnly(todos []todolist.Todo, st *todostore.HookState) []todolist.Todo {
	out := make([]todolist.Todo, 0, len(todos))
	for _, t := range todos {
		if !neverOffered(t, st) {
			out = append(out, t)
		}
	}
	return out
}

// offer is the lines that give the agent the open items its tool does not
// hold, to add with tool (its own name for it), and the hook state with
// them offered; "" when there are none. Items are named by their position
// in the list block that follows, which the lines say is not an id of the
// agent's tool, and never by their text outside the block.
func offer(todos []todolist.Todo, st *todostore.HookState, tool string) (string, todostore.HookState) {
	var next todostore.HookState
	if st != nil {
		next = *st
	}
	idx := notHeld(todos, st)
	if len(idx) == 0 {
		return "", next
	}
	pos := make([]string, len(idx))
	for i, j := range idx {
		pos[i] = strconv.Itoa(j + 1)
		if k := itemKey(todos[j].Content); !slices.Contains(next.Offered, k) {
			next.Offered = append(slices.Clone(next.Offered), k)
		}
	}
	what, them, it := "Item "+pos[0]+" of the list below is", "it", "it"
	if len(pos) > 1 {
		what = "Items " + strings.Join(pos[:len(pos)-1], ", ") + " and " + pos[len(pos)-1] + " of the list below are"
		them, it = "them", "each"
	}
	how := fmt.Sprintf("add %s with %s", it, tool)
	if fullList(tool) {
		how = fmt.Sprintf("add %s to your list with %s (keep your other items)", it, tool)
	}
	return fmt.Sprintf("%s not in your own todo list yet: the person added %s in todosh. "+
		"Before you go on, %s, with its text exactly as the list gives it; "+
		"the numbers are positions in that list, not ids of your tool, and your tool gives the new items its own ids.\n",
		what, them, how), next
}

// addTool is the agent's tool that adds an item, as the agent spells it:
// Claude Code's Task tools add with TaskCreate, the other tools rewrite
// the whole list.
func addTool(todo string) string {
	if todo == "TaskUpdate" {
		return "TaskCreate"
	}
	return todo
}

// fullList reports whether tool rewrites the whole list on every call.
func fullList(tool string) bool { return tool != "TaskCreate" && tool != "TaskUpdate" }
