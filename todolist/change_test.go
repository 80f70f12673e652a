package todolist

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestDescribeChange(t *testing.T) {
	base := func() []Todo {
		l := []Todo{
			{Content: "Write the spec", Status: Completed},
			{Content: "Implement the parser", Status: Pending, Subtasks: []Subtask{{Content: "quoted fields", Status: Pending}}},
			{Content: "Ship", Status: Pending},
		}
		Normalize(l)
		return l
	}
	edit := func(f func([]Todo) []Todo) []Todo { return f(base()) }
	for _, tc := range []struct {
		name  string
		after []Todo
		want  string
	}{
		{"done", edit(func(l []Todo) []Todo { l[2].Status = Completed; return l }), `✓ 3 "Ship" — 2/3 done`},
		{"undo", edit(func(l []Todo) []Todo { l[0].Status = Pending; return l }), `○ 1 "Write the spec" — 0/3 done`},
		{"subtask ticks item", edit(func(l []Todo) []Todo { l[1].Subtasks[0].Status = Completed; Normalize(l); return l }),
			`✓ 2.1 "quoted fields"; ✓ 2 "Implement the parser" — 2/3 done`},
		{"add", edit(func(l []Todo) []Todo { return append(l, Todo{Content: "Docs", Status: Pending}) }), `+ 4 "Docs" — 1/4 done`},
		{"insert", edit(func(l []Todo) []Todo { return append([]Todo{{Content: "First", Status: Pending}}, l...) }), `+ 1 "First" — 1/4 done`},
		{"delete", edit(func(l []Todo) []Todo { return append(l[:1], l[2:]...) }), `- 2 "Implement the parser" — 1/2 done`},
		{"add subtask", edit(func(l []Todo) []Todo {
			l[1].Subtasks = append(l[1].Subtasks, Subtask{Content: "CRLF", Status: Pending})
			return l
		}), `+ 2.2 "CRLF" — 1/3 done`},
		{"rename", edit(func(l []Todo) []Todo { l[2].Content = "Ship it"; return l }), `~ 3 "Ship it" — 1/3 done`},
		{"clear", nil, `cleared 3 items — list empty`},
		{"replace", []Todo{{Content: "x"}}, `list replaced: 1 item — 0/1 done`},
		{"many", edit(func(l []Todo) []Todo {
			for i := range l {
				l[i].Content += "!"
			}
			return l
		}), `~ 3 items — 1/3 done`},
		{"mixed", edit(func(l []Todo) []Todo {
			l[0].Content += "!"
			l[2].Status = Completed
			l[1].Content += "?"
			return l
		}), `3 changes — 2/3 done`},
		{"nothing", base(), ``},
		{"move up", edit(func(l []Todo) []Todo { return []Todo{l[2], l[0], l[1]} }), `↕ 1 "Ship" (was 3) — 1/3 done`},
		{"move down", edit(func(l []Todo) []Todo { return []Todo{l[1], l[2], l[0]} }), `↕ 3 "Write the spec" (was 1) — 1/3 done`},
		{"swap of two", edit(func(l []Todo) []Todo { return []Todo{l[1], l[0], l[2]} }), `↕ 1 "Implement the parser" (was 2) — 1/3 done`},
		{"cjk truncated", edit(func(l []Todo) []Todo {
			l[2].Content = "日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語"
			return l
		}), `~ 3 "日本語日本語日本語日本語日本語日本語日本語日本語…" — 1/3 done`},
	} {
		if got := DescribeChange(base(), tc.after); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestDiff(t *testing.T) {
	item := func(i int) Pos { return Pos{i, -1} }
	sub := func(i, j int) Pos { return Pos{i, j} }
	parent := func(spec string, subs ...string) []Todo {
		l := list("a", spec)
		for _, s := range subs {
			text, done := strings.CutSuffix(s, ":x")
			st := Pending
			if done {
				st = Completed
			}
			l[1].Subtasks = append(l[1].Subtasks, Subtask{Content: text, Status: st})
		}
		Normalize(l)
		return l
	}
	withEvidence := func(l []Todo, i int, ev string) []Todo { l[i].Evidence = ev; return l }
	tests := []struct {
		name          string
		before, after []Todo
		want          ListChange
	}{
		{"same", list("a", "b:x"), list("a", "b:x"), ListChange{Before: 2, After: 2, Done: 1}},
		{"add", list("a"), list("a", "b"), ListChange{Items: []ItemChange{{Kind: ChangeAdded, At: item(1), Text: "b"}}, Before: 1, After: 2}},
		{"add and complete", list("a", "b"), list("a:x", "z", "b"), ListChange{Items: []ItemChange{
			{Kind: ChangeStatus, At: item(0), Text: "a", Status: Completed},
			{Kind: ChangeAdded, At: item(1), Text: "z"},
		}, Before: 2, After: 3, Done: 1}},
		{"delete two", list("a", "b", "c", "d"), list("a", "d"), ListChange{Items: []ItemChange{
			{Kind: ChangeRemoved, At: item(1), Text: "b"},
			{Kind: ChangeRemoved, At: item(2), Text: "c"},
		}, Before: 4, After: 2}},
		{"edit and start", list("a", "b"), list("a:>", "bee"), ListChange{Items: []ItemChange{
			{Kind: ChangeStatus, At: item(0), Text: "a", Status: InProgress},
			{Kind: ChangeEdited, At: item(1), Text: "bee"},
		}, Before: 2, After: 2}},
		{"move down", list("a", "b", "c"), list("b", "c", "a"), ListChange{Items: []ItemChange{
			{Kind: ChangeMoved, At: item(2), From: item(0), Text: "a"},
		}, Before: 3, After: 3}},
		{"swap reads as lower moved up", list("a", "b"), list("b", "a"), ListChange{Items: []ItemChange{
			{Kind: ChangeMoved, At: item(0), From: item(1), Text: "b"},
		}, Before: 2, After: 2}},
		{"tick subtask finishing item", parent("b", "s:x", "t"), parent("b", "s:x", "t:x"), ListChange{Items: []ItemChange{
			{Kind: ChangeStatus, At: sub(1, 1), Text: "t", Status: Completed},
			{Kind: ChangeStatus, At: item(1), Text: "b", Status: Completed, Derived: true},
		}, Before: 2, After: 2, Done: 1}},
		{"tick subtask starting item", parent("b", "s", "t"), parent("b", "s:x", "t"), ListChange{Items: []ItemChange{
			{Kind: ChangeStatus, At: sub(1, 0), Text: "s", Status: Completed},
		}, Before: 2, After: 2}},
		{"subtask moved", parent("b", "s", "t"), parent("b", "t", "s"), ListChange{Items: []ItemChange{
			{Kind: ChangeMoved, At: sub(1, 0), From: sub(1, 1), Text: "t"},
		}, Before: 2, After: 2}},
		{"subtasks replaced", parent("b", "s", "t"), parent("b", "u", "v", "w"), ListChange{Items: []ItemChange{
			{Kind: ChangeSubtasks, At: item(1), Text: "b", Subtasks: 3},
		}, Before: 2, After: 2}},
		{"evidence only", list("a:x"), withEvidence(list("a:x"), 0, "go test ok"), ListChange{Items: []ItemChange{
			{Kind: ChangeDetails, At: item(0), Text: "a"},
		}, Before: 1, After: 1, Done: 1}},
		{"reordered", list("a", "b", "c"), list("c", "b", "a"), ListChange{Items: []ItemChange{
			{Kind: ChangeReordered, At: Pos{-1, -1}},
		}, ByText: true, Before: 3, After: 3}},
		{"rewritten", list("a", "b", "c"), list("a:x", "d"), ListChange{Items: []ItemChange{
			{Kind: ChangeStatus, At: item(0), Text: "a", Status: Completed},
			{Kind: ChangeAdded, At: item(1), Text: "d"},
			{Kind: ChangeRemoved, At: item(1), Text: "b"},
			{Kind: ChangeRemoved, At: item(2), Text: "c"},
		}, ByText: true, Before: 3, After: 2, Done: 1}},
		{"new list", nil, list("a", "b"), ListChange{Items: []ItemChange{
			{Kind: ChangeAdded, At: item(0), Text: "a"},
			{Kind: ChangeAdded, At: item(1), Text: "b"},
		}, Before: 0, After: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Diff(tt.before, tt.after); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Diff =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestOriented(t *testing.T) {
	before, after := list("a", "b"), list("b", "a")
	c := Diff(before, after)
	if got := c.Oriented(after, Pos{0, -1}, Pos{1, -1}).Line(); got != `↕ 2 "a" (was 1) — 0/2 done` {
		t.Errorf("moving 1 to 2: %q", got)
	}
	if got := c.Oriented(after, Pos{1, -1}, Pos{0, -1}).Line(); got != `↕ 1 "b" (was 2) — 0/2 done` {
		t.Errorf("moving 2 to 1: %q", got)
	}
	long := list("a", "b", "c")
	moved := list("b", "c", "a")
	if got := Diff(long, moved).Oriented(moved, Pos{2, -1}, Pos{0, -1}); !reflect.DeepEqual(got, Diff(long, moved)) {
		t.Errorf("a move that is no swap was re-read: %+v", got)
	}
}

// FuzzChangeRenderers builds two lists from the input, the second an edit
// of the first, and checks that the history's words and the terminal's line
// are both read off the same ListChange: nothing changed in one exactly
// when nothing changed in the other, and the kinds and numbers of changes
// each one states equal each other's and the change's own.
func FuzzChangeRenderers(f *testing.F) {
	for _, seed := range []string{"", "\x03abc\x00\x01", "\x04abcd\x12\x20\x31\x45\x50", "\x05aabbc\x61\x72\x83\x94\xa5\xb6\xc7", "\x02ab\x0f\x1f\x2f\x3f\x4f\x5f\x6f\x7f"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		before, after := fuzzLists(data)
		c := Diff(before, after)
		for _, by := range []Author{ByYou, ByAgent} {
			words, line := c.Words(by), c.Line()
			if (words == "") != (len(c.Items) == 0) || (line == "") != (len(c.Items) == 0) {
				t.Fatalf("words %q and line %q for %d changes\nbefore %s\nafter %s", words, line, len(c.Items), contents(before), contents(after))
			}
			if (len(c.Items) == 0) != SameTodos(before, after) {
				t.Fatalf("%d changes between lists that are equal: %v", len(c.Items), SameTodos(before, after))
			}
			if words != Describe(before, after, by) || line != DescribeChange(before, after) {
				t.Fatal("Describe or DescribeChange is not the ListChange's")
			}
			if len(c.Items) == 0 {
				continue
			}
			want := changeKinds(c)
			wTotal, wKinds := parseWords(t, words)
			lTotal, lKinds := parseLine(t, line, c.Before)
			if wTotal != len(c.Items) || lTotal != len(c.Items) {
				t.Fatalf("%d changes, history says %d (%q), terminal %d (%q)", len(c.Items), wTotal, words, lTotal, line)
			}
			for k, n := range wKinds {
				if want[k] != n {
					t.Fatalf("history says %d %s, change has %d: %q", n, k, want[k], words)
				}
			}
			for k, n := range lKinds {
				if want[k] != n || wKinds[k] != n {
					t.Fatalf("terminal says %d %s, change has %d, history %d: %q / %q", n, k, want[k], wKinds[k], line, words)
				}
			}
		}
	})
}

// fuzzLists makes a list of 0-7 items (texts from a small alphabet, so
// that texts repeat) and an edit of it: each further byte adds, deletes,
// moves, renames, re-marks or (un)ticks a subtask.
func fuzzLists(data []byte) (before, after []Todo) {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	statuses := []Status{Pending, InProgress, Completed, Cancelled}
	n := next() % 8
	for range n {
		b := next()
		t := Todo{Content: string(rune('a' + b%6)), Status: statuses[b/6%4]}
		if b&0x80 != 0 {
			t.Subtasks = []Subtask{{Content: "s", Status: Pending}, {Content: "t", Status: Completed}}
		}
		before = append(before, t)
	}
	Normalize(before)
	after = CloneTodos(before)
	for len(data) > 0 {
		op, arg := next(), next()
		i := 0
		if len(after) > 0 {
			i = arg % len(after)
		}
		switch op % 8 {
		case 0:
			after = slices.Insert(after, min(arg%8, len(after)), Todo{Content: string(rune('a' + arg%7)), Status: Pending})
		case 1:
			if len(after) > 0 {
				after = slices.Delete(after, i, i+1)
			}
		case 2:
			if len(after) > 1 {
				v := after[i]
				after = slices.Insert(slices.Delete(after, i, i+1), (arg/8)%(len(after)-1), v)
			}
		case 3:
			if len(after) > 0 {
				after[i].Content += string(rune('a' + arg%3))
			}
		case 4, 5:
			if len(after) > 0 && len(after[i].Subtasks) == 0 {
				after[i].Status = statuses[(arg/8)%4]
			}
		case 6:
			if len(after) > 0 && len(after[i].Subtasks) > 0 {
				s := &after[i].Subtasks[(arg/8)%len(after[i].Subtasks)]
				s.Status = map[Status]Status{Pending: Completed, Completed: Pending}[s.Status]
			}
		case 7:
			if len(after) > 0 {
				after[i].Evidence = "ev" + string(rune('0'+arg%3))
			}
		}
	}
	Normalize(after)
	return before, after
}

// changeKinds counts the changes of c by the words both renderers use
// for them.
func changeKinds(c ListChange) map[string]int {
	out := map[string]int{}
	for _, it := range c.Items {
		out[kindWord(historyVerb(it))]++
	}
	return out
}

// kindWord folds the history's two words for a removal into one.
func kindWord(verb string) string {
	if verb == "deleted" {
		return "removed"
	}
	return verb
}

// parseWords reads back how many changes of which kinds the history's
// words state (kinds nil when they state only a total).
func parseWords(t *testing.T, s string) (int, map[string]int) {
	num := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("history words %q: %v", s, err)
		}
		return n
	}
	for _, p := range []struct{ prefix, kind string }{{"wrote a list of ", "added"}, {"new list of ", "added"}, {"emptied the list (", "removed"}} {
		if rest, ok := strings.CutPrefix(s, p.prefix); ok {
			n := num(strings.Fields(rest)[0])
			return n, map[string]int{p.kind: n}
		}
	}
	for _, who := range []string{"changed the list: ", "rewrote the list: "} {
		rest, ok := strings.CutPrefix(s, who)
		if !ok {
			continue
		}
		total, kinds := 0, map[string]int{}
		for _, part := range strings.Split(rest, ", ") {
			if part == "reordered" {
				total++
				kinds["reordered"]++
				continue
			}
			f := strings.Fields(part)
			verb := strings.Join(f[1:], " ")
			if f[1] == "subtask" || f[1] == "subtasks" {
				verb = strings.Join(f[2:], " ")
			}
			if verb == "with new subtasks" {
				verb = "rewrote the subtasks of"
			}
			total += num(f[0])
			kinds[kindWord(verb)] += num(f[0])
		}
		return total, kinds
	}
	total, kinds := 0, map[string]int{}
	for _, group := range strings.Split(s, "; ") {
		verb, rest := "", ""
		for _, v := range []string{"added", "deleted", "edited", "completed", "reopened", "started", "cancelled", "moved", "updated", "rewrote the subtasks of"} {
			if r, ok := strings.CutPrefix(group, v+" "); ok {
				verb, rest = v, r
				break
			}
		}
		if verb == "" {
			t.Fatalf("history words %q: no verb in %q", s, group)
		}
		n := len(strings.Split(rest, ", "))
		if f := strings.Fields(rest); len(f) > 1 && (f[1] == "items:" || f[1] == "item:") {
			n = num(f[0])
		} else if verb == "added" || verb == "deleted" || verb == "edited" {
			n = 1
		}
		total += n
		kinds[kindWord(verb)] += n
	}
	return total, kinds
}

// lineKinds are the marks of the terminal line and the kinds they name.
var lineKinds = map[string]string{"+": "added", "-": "removed", "~": "edited", "↕": "moved",
	"✓": "completed", "○": "reopened", "▸": "started", "✗": "cancelled", "updated": "updated", "list": "reordered"}

// parseLine reads back how many changes of which kinds the terminal line
// states; before is the length of the list before, which "list replaced"
// leaves out.
func parseLine(t *testing.T, line string, before int) (int, map[string]int) {
	what, _, ok := strings.Cut(line, " — ")
	if !ok {
		t.Fatalf("line %q has no progress", line)
	}
	num := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		return n
	}
	f := strings.Fields(what)
	switch {
	case strings.HasPrefix(what, "new list: "):
		return num(f[2]), map[string]int{"added": num(f[2])}
	case strings.HasPrefix(what, "cleared "):
		return num(f[1]), map[string]int{"removed": num(f[1])}
	case strings.HasPrefix(what, "list replaced: "):
		return num(f[2]) + before, map[string]int{"added": num(f[2]), "removed": before}
	case len(f) == 2 && f[1] == "changes":
		return num(f[0]), nil
	case len(f) == 3 && (f[2] == "items" || f[2] == "item") && lineKinds[f[0]] != "":
		return num(f[1]), map[string]int{lineKinds[f[0]]: num(f[1])}
	}
	kinds := map[string]int{}
	parts := strings.Split(what, "; ")
	for _, p := range parts {
		k := lineKinds[strings.Fields(p)[0]]
		if strings.Contains(p, " now has ") {
			k = "rewrote the subtasks of"
		}
		if k == "" {
			t.Fatalf("line %q: unknown change %q", line, p)
		}
		kinds[k]++
	}
	return len(parts), kinds
}

// FuzzDiffOneInPlace holds diffList's shortcut (oneInPlace) and
// diffSubtasks's to what the full lining up finds, for the list and for
// the subtasks of each item:
// the same changes, or the same failure to line the lists up.
func FuzzDiffOneInPlace(f *testing.F) {
	for _, seed := range []string{"", "\x03abc\x00\x01", "\x03abc\x03\x01", "\x02\x80\x81\x05\x00", "\x04abcd\x12\x20\x31\x45\x50", "\x02aa\x05\x00\x05\x01"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		before, after := fuzzLists(data)
		check := func(b, a []Todo, parent int) {
			got, gotOK := diffList(b, a, parent)
			want, wantOK := diffAll(b, a, parent)
			if gotOK != wantOK || !reflect.DeepEqual(got, want) {
				t.Fatalf("diffList %v %+v, diffAll %v %+v\nbefore %s\nafter %s", gotOK, got, wantOK, want, contents(b), contents(a))
			}
		}
		check(before, after, -1)
		for i := range min(len(before), len(after)) {
			b, a := before[i].Subtasks, after[i].Subtasks
			check(subtaskTodos(b), subtaskTodos(a), i)
			got, gotOK := diffSubtasks(b, a, i)
			want, wantOK := diffAll(subtaskTodos(b), subtaskTodos(a), i)
			if gotOK != wantOK || !reflect.DeepEqual(got, want) {
				t.Fatalf("diffSubtasks %v %+v, diffAll %v %+v", gotOK, got, wantOK, want)
			}
		}
	})
}
