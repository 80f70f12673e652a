package todostore

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// openNoBlock makes opening a FIFO named like a store file fail instead of
// blocking; on a regular file it has no effect.
const openNoBlock = syscall.O_NONBLOCK

// Counters of durable writes, for benchmarks and tests that check how much
// work a change costs.
var (
	fileWrites atomic.Int64 // session and other files replaced atomically
	fsyncs     atomic.Int64
)

// WriteStats returns how many files this process replaced atomically and
// how many fsyncs it made for them and for history lines.
func WriteStats() (writes, syncs int64) { return fileWrites.Load(), fsyncs.Load() }

// countWrite counts a successful atomic replace: the file's and the
// directory's fsync.
func countWrite(err error) error {
	if err == nil {
		fileWrites.Add(1)
		fsyncs.Add(2)
	}
	return err
}

func syncFile(f interface{ Sync() error }) error {
	fsyncs.Add(1)
	return f.Sync()
}

// clone is a deep copy of a session for a change to work on.
func (s *Session) clone() *Session {
	c := *s
	c.Todos = CloneTodos(s.Todos)
	if s.Agent != nil {
		a := *s.Agent
		a.Tasks = slices.Clone(s.Agent.Tasks)
		c.Agent = &a
	}
	c.note, c.notes, c.dropped, c.revertOf = "", nil, nil, 0
	return &c
}

// sameState reports whether two sessions would be written alike, apart
// from their time and archive.
func sameState(a, b *Session) bool {
	if !SameTodos(a.Todos, b.Todos) || a.Paused != b.Paused || a.PauseReason != b.PauseReason ||
		a.Cwd != b.Cwd || a.CreatedAt != b.CreatedAt || a.Session != b.Session || a.Version != b.Version {
		return false
	}
	if (a.Agent == nil) != (b.Agent == nil) {
		return false
	}
	return a.Agent == nil || reflect.DeepEqual(normTasks(*a.Agent), normTasks(*b.Agent))
}

func normTasks(a AgentRef) AgentRef {
	if len(a.Tasks) == 0 {
		a.Tasks = nil
	}
	return a
}

// SameTodos reports whether two lists are equal field by field, treating
// nil and empty subtask lists alike.
func SameTodos(a, b []Todo) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameTodo(a[i], b[i]) {
			return false
		}
	}
	return true
}

func sameTodo(x, y Todo) bool {
	if x.ID != y.ID || x.Content != y.Content || x.Status != y.Status || x.ActiveForm != y.ActiveForm ||
		x.Evidence != y.Evidence || x.Origin != y.Origin || len(x.Subtasks) != len(y.Subtasks) {
		return false
	}
	for j := range x.Subtasks {
		if !sameSubtask(x.Subtasks[j], y.Subtasks[j]) {
			return false
		}
	}
	return true
}

// sameSubtask compares the fields of two subtasks that todosh knows.
func sameSubtask(a, b Subtask) bool {
	return a.ID == b.ID && a.Content == b.Content && a.Status == b.Status && a.Evidence == b.Evidence && a.Origin == b.Origin
}

// describe is the words of the change from prev to s: the caller's note,
// else the difference of the lists, else of the other state; then what
// was taken off the list.
func (s *Session) describe(prev *Session, by Author) string {
	what := s.note
	if what == "" {
		what = Describe(prev.Todos, s.Todos, by)
	}
	if what == "" {
		what = describeState(prev, s)
	}
	return strings.Join(append([]string{what}, s.notes...), "; ")
}

// describeState names a change that left the list alone.
func describeState(prev, s *Session) string {
	switch {
	case s.Paused && (!prev.Paused || prev.PauseReason != s.PauseReason):
		return "paused: " + strconv.Quote(ShortLine(s.PauseReason, 60))
	case prev.Paused && !s.Paused:
		return "pause lifted"
	case s.Agent != nil && (prev.Agent == nil || prev.Agent.Kind != s.Agent.Kind || prev.Agent.Session != s.Agent.Session):
		return s.Agent.Kind + " session recorded"
	case s.Agent != nil:
		return s.Agent.Kind + " task ids recorded"
	case prev.Cwd != s.Cwd:
		return "directory recorded"
	}
	return "session updated"
}

// Describe says in words what changed from one list to the next, as the
// history shows it: one change by name (`added 3 "write tests"`,
// `completed 2.1`, `moved 4 to 1`), several as counts (`agent rewrote the
// list: 2 completed, 1 added`). Equal lists give "".
func Describe(before, after []Todo, by Author) string {
	if SameTodos(before, after) {
		return ""
	}
	if d := describeOne(before, after, "", func(t Todo) (string, Status, []Subtask) { return t.Content, t.Status, t.Subtasks }); d != "" {
		return d
	}
	// One item's subtasks changed and nothing else.
	if len(before) == len(after) {
		diff := -1
		for i := range before {
			if !sameTodo(before[i], after[i]) {
				if diff >= 0 {
					diff = -2
					break
				}
				diff = i
			}
		}
		if diff >= 0 {
			b, a := before[diff], after[diff]
			if b.Content == a.Content {
				subs := func(t Todo) []Todo {
					out := make([]Todo, len(t.Subtasks))
					for i, s := range t.Subtasks {
						out[i] = Todo{Content: s.Content, Status: s.Status, Evidence: s.Evidence, Origin: s.Origin}
					}
					return out
				}
				if d := describeOne(subs(b), subs(a), strconv.Itoa(diff+1)+".", nil); d != "" {
					return d
				}
			}
		}
	}
	if len(before) == 0 || len(after) == 0 {
		return describeMany(before, after, by)
	}
	if d := describeSeveral(before, after); d != "" {
		return d
	}
	return describeMany(before, after, by)
}

// describeSeveral names a change of several items of one kind, as a
// range of positions makes it: statuses set (`reopened 1, 3`), items
// deleted or added with the others left in order. "" otherwise.
func describeSeveral(before, after []Todo) string {
	quoted := func(kind string, list []Todo, idx []int) string {
		parts := make([]string, 0, 3)
		for k, i := range idx {
			if k == 3 {
				parts = append(parts, "…")
				break
			}
			parts = append(parts, strconv.Itoa(i+1)+" "+strconv.Quote(ShortLine(list[i].Content, 30)))
		}
		return kind + " " + Plural(len(idx), "item") + ": " + strings.Join(parts, ", ")
	}
	switch {
	case len(before) == len(after):
		verbs := map[string][]string{}
		var order []string
		for i := range before {
			b, a := before[i], after[i]
			if sameIgnoringIDs(b, a) {
				continue
			}
			as := a
			as.Status, as.Evidence = b.Status, b.Evidence
			if !sameIgnoringIDs(b, as) {
				return ""
			}
			v := statusVerb(a.Status)
			if verbs[v] == nil {
				order = append(order, v)
			}
			verbs[v] = append(verbs[v], strconv.Itoa(i+1))
		}
		parts := make([]string, 0, len(order))
		for _, v := range order {
			parts = append(parts, v+" "+strings.Join(verbs[v], ", "))
		}
		return strings.Join(parts, "; ")
	case len(after) < len(before):
		if idx, ok := subsequence(after, before); ok {
			return quoted("deleted", before, idx)
		}
	default:
		if idx, ok := subsequence(before, after); ok {
			return quoted("added", after, idx)
		}
	}
	return ""
}

// subsequence reports whether short is long with some items left out, and
// which (their indexes in long).
func subsequence(short, long []Todo) ([]int, bool) {
	var extra []int
	i := 0
	for j := range long {
		if i < len(short) && sameIgnoringIDs(short[i], long[j]) {
			i++
			continue
		}
		extra = append(extra, j)
	}
	return extra, i == len(short)
}

// describeOne names a single change of a list: one item added, deleted,
// moved, edited or with a new status; "" when the lists differ otherwise.
// prefix numbers subtasks ("2."); key gives what must be equal for two
// items to be the same item with only a status or text change (nil: the
// item itself).
func describeOne(before, after []Todo, prefix string, key func(Todo) (string, Status, []Subtask)) string {
	same := sameIgnoringIDs
	pos := func(i int) string { return prefix + strconv.Itoa(i+1) }
	quote := func(s string) string { return strconv.Quote(ShortLine(s, 50)) }
	switch {
	case len(after) == len(before)+1:
		for i := range after {
			if equalExcept(before, after, -1, i, same) {
				return "added " + pos(i) + " " + quote(after[i].Content)
			}
		}
	case len(after) == len(before)-1:
		for i := range before {
			if equalExcept(before, after, i, -1, same) {
				return "deleted " + pos(i) + " " + quote(before[i].Content)
			}
		}
	case len(after) == len(before):
		diff := []int{}
		for i := range before {
			if !same(before[i], after[i]) {
				diff = append(diff, i)
			}
		}
		if len(diff) == 1 {
			i := diff[0]
			b, a := before[i], after[i]
			ac := a
			ac.Content = b.Content
			if sameIgnoringIDs(b, ac) {
				return "edited " + pos(i) + " " + quote(a.Content)
			}
			as := a
			as.Status, as.Evidence = b.Status, b.Evidence
			if sameIgnoringIDs(b, as) {
				return statusVerb(a.Status) + " " + pos(i)
			}
			return ""
		}
		// One item moved from i to j shifts everything between.
		if len(diff) >= 2 {
			lo, hi := diff[0], diff[len(diff)-1]
			if equalExcept(before[lo:hi+1], after[lo:hi+1], 0, hi-lo, same) && same(before[lo], after[hi]) {
				return "moved " + pos(lo) + " to " + pos(hi)
			}
			if equalExcept(before[lo:hi+1], after[lo:hi+1], hi-lo, 0, same) && same(before[hi], after[lo]) {
				return "moved " + pos(hi) + " to " + pos(lo)
			}
		}
	}
	return ""
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
		if !sameSubtask(a, b) {
			return false
		}
	}
	return true
}

// equalExcept reports whether a without a[skipA] equals b without
// b[skipB] (-1 skips nothing).
func equalExcept(a, b []Todo, skipA, skipB int, same func(x, y Todo) bool) bool {
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
		if !same(a[i], b[j]) {
			return false
		}
		i++
		j++
	}
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

// describeMany counts what changed between two lists whose items are
// matched by text.
func describeMany(before, after []Todo, by Author) string {
	if len(before) == 0 {
		if by == ByAgent {
			return "agent wrote a list of " + Plural(len(after), "item")
		}
		return "new list of " + Plural(len(after), "item")
	}
	if len(after) == 0 {
		return "emptied the list (" + Plural(len(before), "item") + ")"
	}
	old := map[string][]Todo{}
	for _, t := range before {
		k := strings.TrimSpace(t.Content)
		old[k] = append(old[k], t)
	}
	counts := map[string]int{}
	var order []string
	count := func(k string) {
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	for _, t := range after {
		k := strings.TrimSpace(t.Content)
		prev, ok := old[k]
		if !ok || len(prev) == 0 {
			count("added")
			continue
		}
		p := prev[0]
		old[k] = prev[1:]
		if p.Status != t.Status {
			count(statusVerb(t.Status))
		} else if p.DoneSubtasks() != t.DoneSubtasks() || len(p.Subtasks) != len(t.Subtasks) {
			count("subtasks changed")
		}
	}
	removed := 0
	for _, rest := range old {
		removed += len(rest)
	}
	if removed > 0 {
		counts["removed"] = removed
		order = append(order, "removed")
	}
	parts := make([]string, 0, len(order))
	for _, k := range order {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	who := "changed the list"
	if by == ByAgent {
		who = "agent rewrote the list"
	}
	if len(parts) == 0 {
		return who + ": reordered"
	}
	return who + ": " + strings.Join(parts, ", ")
}

// syncDir fsyncs the directory holding path, so a new entry in it
// survives a crash.
func syncDir(path string) error {
	dir := filepath.Dir(path)
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := syncFile(d); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
