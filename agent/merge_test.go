package agent

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"

	"github.com/todosh/todosh/todostore"
)

// mergeList builds a list from "text:status" words; a "*" prefix marks an
// item the person added.
func mergeList(specs ...string) []todolist.Todo {
	out := []todolist.Todo{}
	for _, s := range specs {
		t := todolist.Todo{Status: todolist.Pending}
		if strings.HasPrefix(s, "*") {
			t.Origin = todolist.OriginPerson
			s = s[1:]
		}
		text, st, ok := strings.Cut(s, ":")
		t.Content = text
		if ok {
			t.Status = todolist.Status(st)
		}
		out = append(out, t)
	}
	return out
}

// mergeShow writes a list back in mergeList's notation.
func mergeShow(todos []todolist.Todo) []string {
	out := []string{}
	for _, t := range todos {
		s := t.Content + ":" + string(t.Status)
		if t.Origin == todolist.OriginPerson {
			s = "*" + s
		}
		out = append(out, s)
	}
	return out
}

func TestMergeAgentList(t *testing.T) {
	cases := []struct {
		name                    string
		current, agent          []todolist.Todo
		wantMerged, wantDropped []string
	}{
		{"first list", mergeList(), mergeList("a:in_progress", "b"),
			[]string{"a:in_progress", "b:pending"}, []string{}},
		{"agent rewrites its own list", mergeList("a:in_progress", "b"), mergeList("a:completed", "b:in_progress"),
			[]string{"a:completed", "b:in_progress"}, []string{}},
		{"agent drops its item: archived", mergeList("a", "b", "c"), mergeList("a", "c"),
			[]string{"a:pending", "c:pending"}, []string{"b:pending"}},
		{"person item kept in place", mergeList("a", "*p", "b"), mergeList("a:completed", "b"),
			[]string{"a:completed", "*p:pending", "b:pending"}, []string{}},
		{"person item at the top stays on top", mergeList("*p", "a"), mergeList("a", "b"),
			[]string{"*p:pending", "a:pending", "b:pending"}, []string{}},
		{"person item follows its predecessor when the agent reorders", mergeList("a", "*p", "b"), mergeList("b", "a"),
			[]string{"b:pending", "a:pending", "*p:pending"}, []string{}},
		{"person item after a dropped item anchors to the earlier kept one", mergeList("a", "b", "*p", "c"), mergeList("a", "c"),
			[]string{"a:pending", "*p:pending", "c:pending"}, []string{"b:pending"}},
		{"several person items keep their order", mergeList("*p1", "a", "*p2", "*p3"), mergeList("a:completed"),
			[]string{"*p1:pending", "a:completed", "*p2:pending", "*p3:pending"}, []string{}},
		{"agent takes up a person item: it stays the person's", mergeList("a", "*p"), mergeList("a", "p:in_progress"),
			[]string{"a:pending", "*p:in_progress"}, []string{}},
		{"empty agent list keeps only person items", mergeList("a", "*p", "b:completed"), mergeList(),
			[]string{"*p:pending"}, []string{"a:pending", "b:completed"}},
		{"matching ignores surrounding space", mergeList("*  p "), mergeList("p:completed"),
			[]string{"*p:completed"}, []string{}},
		{"duplicates pair in order", mergeList("a:completed", "a"), mergeList("a:completed", "a:in_progress", "a"),
			[]string{"a:completed", "a:in_progress", "a:pending"}, []string{}},
		{"duplicate dropped once", mergeList("x", "x"), mergeList("x"),
			[]string{"x:pending"}, []string{"x:pending"}},
		{"completely new list archives the old one", mergeList("a", "b"), mergeList("c"),
			[]string{"c:pending"}, []string{"a:pending", "b:pending"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			curCopy := todolist.CloneTodos(c.current)
			agentCopy := todolist.CloneTodos(c.agent)
			m := MergeAgentList(c.current, c.agent, View{})
			merged, dropped := m.Todos, m.Dropped
			if got := mergeShow(merged); !reflect.DeepEqual(got, c.wantMerged) {
				t.Errorf("merged %q, want %q", got, c.wantMerged)
			}
			if got := mergeShow(dropped); !reflect.DeepEqual(got, c.wantDropped) {
				t.Errorf("dropped %q, want %q", got, c.wantDropped)
			}
			if !reflect.DeepEqual(curCopy, c.current) || !reflect.DeepEqual(agentCopy, c.agent) {
				t.Error("an input was changed")
			}
		})
	}
}

func TestMergeKeepsSubtasksAndDetails(t *testing.T) {
	subs := []todolist.Subtask{{Content: "quoted fields", Status: todolist.Completed}, {Content: "CRLF", Status: todolist.Pending}}
	current := []todolist.Todo{{Content: "parser", Status: todolist.InProgress, ActiveForm: "Parsing", Evidence: "go test ok", Subtasks: subs}}
	agentList := []todolist.Todo{{Content: "parser", Status: todolist.InProgress}}
	m := MergeAgentList(current, agentList, View{})
	merged := m.Todos
	if !reflect.DeepEqual(merged[0].Subtasks, subs) || merged[0].ActiveForm != "Parsing" || merged[0].Evidence != "go test ok" {
		t.Errorf("merged %+v lost what only the current item had", merged[0])
	}
	if len(m.DroppedSubtasks) != 0 || len(m.KeptSubtasks) != 0 {
		t.Errorf("no subtask sent, yet some kept or dropped: %+v", m)
	}
	merged[0].Subtasks[0].Content = "changed"
	if current[0].Subtasks[0].Content != "quoted fields" {
		t.Error("merged shares subtasks with the input")
	}
	// The agent's own subtasks and details win; the ones it left out that
	// the person did not add are the agent's to drop.
	own := []todolist.Todo{{Content: "parser", Status: todolist.Pending, ActiveForm: "Writing", Subtasks: []todolist.Subtask{{Content: "mine", Status: todolist.Pending}}}}
	m = MergeAgentList(current, own, View{})
	if got := subShow(m.Todos[0].Subtasks); got != "mine:pending" || m.Todos[0].ActiveForm != "Writing" {
		t.Errorf("merged %+v did not keep the agent's version", m.Todos[0])
	}
	if len(m.DroppedSubtasks) != 1 || m.DroppedSubtasks[0].Content != "parser" || subShow(m.DroppedSubtasks[0].Subtasks) != "quoted fields:completed CRLF:pending" {
		t.Errorf("dropped subtasks %+v, want both under their item", m.DroppedSubtasks)
	}
	if got := mergeShow(m.Archived()); !reflect.DeepEqual(got, []string{"parser:in_progress"}) {
		t.Errorf("archived %q", got)
	}
}

// subShow writes subtasks as "text:status" words; a "*" prefix marks the
// person's.
func subShow(subs []todolist.Subtask) string {
	var out []string
	for _, s := range subs {
		w := s.Content + ":" + string(s.Status)
		if s.Origin == todolist.OriginPerson {
			w = "*" + w
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

// TestMergeKeepsPersonSubtasks: a subtask the person added survives the
// agent rewriting its item with subtasks of its own, in its place, and is
// reported as kept; the agent's other subtasks it left out are dropped.
func TestMergeKeepsPersonSubtasks(t *testing.T) {
	person := func(s string) todolist.Subtask {
		return todolist.Subtask{Content: s, Status: todolist.Pending, Origin: todolist.OriginPerson}
	}
	sub := func(s string, st todolist.Status) todolist.Subtask {
		return todolist.Subtask{Content: s, Status: st}
	}
	cases := []struct {
		name           string
		cur, agent     []todolist.Subtask
		want, wantLost string
		wantKept       [][2]int
	}{
		{"person subtask in the middle stays in place",
			[]todolist.Subtask{sub("a", todolist.Completed), person("p"), sub("b", todolist.Pending)},
			[]todolist.Subtask{sub("a", todolist.Completed), sub("b", todolist.Completed), sub("c", todolist.Pending)},
			"a:completed *p:pending b:completed c:pending", "", [][2]int{{1, 1}}},
		{"person subtask first stays first; agent's dropped one archived",
			[]todolist.Subtask{person("p"), sub("a", todolist.Pending), sub("old", todolist.Pending)},
			[]todolist.Subtask{sub("a", todolist.Completed)},
			"*p:pending a:completed", "old:pending", [][2]int{{1, 0}}},
		{"agent re-sends the person's subtask: it stays the person's, not reported",
			[]todolist.Subtask{person("p")},
			[]todolist.Subtask{sub("new", todolist.Pending), sub(" p ", todolist.Completed)},
			"new:pending *p:completed", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			current := []todolist.Todo{{Content: "other", Status: todolist.Pending}, {Content: "item", Status: todolist.InProgress, Subtasks: c.cur}}
			agentList := []todolist.Todo{{Content: "other", Status: todolist.Pending}, {Content: "item", Status: todolist.InProgress, Subtasks: c.agent}}
			m := MergeAgentList(current, agentList, View{})
			if got := strings.ReplaceAll(subShow(m.Todos[1].Subtasks), " p :", "p:"); got != c.want {
				t.Errorf("subtasks %q, want %q", got, c.want)
			}
			lost := ""
			if len(m.DroppedSubtasks) > 0 {
				lost = subShow(m.DroppedSubtasks[0].Subtasks)
			}
			if lost != c.wantLost {
				t.Errorf("dropped subtasks %q, want %q", lost, c.wantLost)
			}
			if !reflect.DeepEqual(m.KeptSubtasks, c.wantKept) {
				t.Errorf("kept %v, want %v", m.KeptSubtasks, c.wantKept)
			}
		})
	}
}

// TestMergeRenameByID: an agent item with new text and the id of a current
// item is that item renamed; a text match always wins over an id.
func TestMergeRenameByID(t *testing.T) {
	current := []todolist.Todo{
		{ID: "1", Content: "old name", Status: todolist.InProgress, Evidence: "ev", Origin: todolist.OriginPerson,
			Subtasks: []todolist.Subtask{{ID: "1.1", Content: "s", Status: todolist.Pending}}},
		{ID: "2", Content: "b", Status: todolist.Pending},
	}
	cases := []struct {
		name        string
		agent       []todolist.Todo
		want        []string
		wantDropped []string
	}{
		{"renamed by id", []todolist.Todo{{ID: "1", Content: "new name", Status: todolist.InProgress}, {ID: "2", Content: "b", Status: todolist.Pending}},
			[]string{"*new name:in_progress", "b:pending"}, []string{}},
		{"id as a number with spaces", []todolist.Todo{{ID: " 1 ", Content: "new name", Status: todolist.InProgress}, {Content: "b", Status: todolist.Pending}},
			[]string{"*new name:in_progress", "b:pending"}, []string{}},
		{"id of an item another text matched is a new item", []todolist.Todo{{ID: "2", Content: "c", Status: todolist.Pending}, {Content: "b", Status: todolist.Pending}},
			[]string{"*old name:in_progress", "c:pending", "b:pending"}, []string{}},
		{"id out of range is a new item", []todolist.Todo{{ID: "9", Content: "c", Status: todolist.Pending}, {ID: "x", Content: "d", Status: todolist.Pending}},
			[]string{"*old name:in_progress", "c:pending", "d:pending"}, []string{"b:pending"}},
		{"text match wins over the id", []todolist.Todo{{ID: "1", Content: "b", Status: todolist.Completed}},
			[]string{"*old name:in_progress", "b:completed"}, []string{}},
		{"two claim one id: the first gets it", []todolist.Todo{{ID: "2", Content: "x", Status: todolist.Pending}, {ID: "2", Content: "y", Status: todolist.Pending}},
			[]string{"*old name:in_progress", "x:pending", "y:pending"}, []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := MergeAgentList(current, c.agent, View{})
			if got := mergeShow(m.Todos); !reflect.DeepEqual(got, c.want) {
				t.Errorf("merged %q, want %q", got, c.want)
			}
			if got := mergeShow(m.Dropped); !reflect.DeepEqual(got, c.wantDropped) {
				t.Errorf("dropped %q, want %q", got, c.wantDropped)
			}
		})
	}
	m := MergeAgentList(current, []todolist.Todo{{ID: "1", Content: "new name", Status: todolist.InProgress}}, View{})
	if r := m.Todos[0]; r.Evidence != "ev" || len(r.Subtasks) != 1 || r.Subtasks[0].Content != "s" {
		t.Errorf("renamed item lost its details: %+v", r)
	}
}

// TestApplyAgentList checks the shared write path: unchanged lists are not
// written, changes are, and what was dropped is archived in one entry.
func TestApplyAgentList(t *testing.T) {
	st := todostore.Open(t.TempDir())
	sess := Session{Store: st, ID: "s1"}
	start := []todolist.Todo{
		{Content: "a", Status: todolist.Pending, Subtasks: []todolist.Subtask{{Content: "x", Status: todolist.Pending}, {Content: "p", Status: todolist.Pending, Origin: todolist.OriginPerson}}},
		{Content: "b", Status: todolist.Pending},
	}
	if _, err := sess.Update(func(s *todostore.Session) error { s.Todos = todolist.CloneTodos(start); return nil }); err != nil {
		t.Fatal(err)
	}
	res, err := ApplyAgentList(sess, []todolist.Todo{{Content: "a", Status: todolist.Pending}, {Content: "b", Status: todolist.Pending}}, nil)
	if err != nil || res.Changed || len(res.Todos) != 2 {
		t.Fatalf("same list: %+v %v", res, err)
	}
	res, err = ApplyAgentList(sess, []todolist.Todo{{Content: "a", Status: todolist.InProgress, Subtasks: []todolist.Subtask{{Content: "y", Status: todolist.Pending}}}}, nil)
	if err != nil || !res.Changed {
		t.Fatalf("change: %+v %v", res, err)
	}
	s, _ := sess.Load()
	if got := subShow(s.Todos[0].Subtasks); len(s.Todos) != 1 || got != "*p:pending y:pending" {
		t.Errorf("list %s", todoview.FormatList(s.Todos))
	}
	last, _ := sess.Store.LastChange(sess.ID)
	if !strings.Contains(last.What, DroppedReason) || !reflect.DeepEqual(mergeShow(last.Dropped), []string{"b:pending", "a:pending"}) ||
		subShow(last.Dropped[1].Subtasks) != "x:pending" {
		t.Errorf("last change %+v", last)
	}
	// A rule's error changes nothing.
	_, err = ApplyAgentList(sess, nil, func([]todolist.Todo, *Merge) error { return errors.New("refused") })
	if after, _ := sess.Load(); err == nil || len(after.Todos) != 1 {
		t.Errorf("refused apply: %v, list %v", err, after.Todos)
	}
}

// FuzzMerge checks the rule's promises on arbitrary lists: every person
// item survives, every current item is either merged or dropped, and the
// agent's items come out in the agent's order.
func FuzzMerge(f *testing.F) {
	f.Add("a,*p,b", "a:completed,b")
	f.Add("*p,*p,x", "p,x,y")
	f.Add("", "a")
	f.Add("a,b,c", "")
	f.Fuzz(func(t *testing.T, cur, ag string) {
		current := mergeList(mergeSplit(cur)...)
		agentList := mergeList(mergeSplit(ag)...)
		for i := range agentList {
			agentList[i].Origin = ""
			if i%2 == 1 {
				agentList[i].Subtasks = []todolist.Subtask{{Content: "x", Status: todolist.Pending}}
			}
		}
		// Every current item has a subtask of the person's and one of the
		// agent's.
		for i := range current {
			current[i].Subtasks = []todolist.Subtask{{Content: "ns", Status: todolist.Pending}, {Content: "ps", Status: todolist.Pending, Origin: todolist.OriginPerson}}
		}
		// Every third current item changed since the agent's last read.
		for i := range current {
			if i%3 == 2 {
				current[i].Rev = 5
			}
		}
		m := MergeAgentList(current, agentList, View{Read: 4, Rev: 5})
		merged, dropped := m.Todos, m.Dropped
		for _, d := range dropped {
			if d.Rev > 4 {
				t.Fatalf("an item changed since the agent's last read was dropped: %+v", d)
			}
		}
		personSubs := 0
		for _, t := range merged {
			for _, s := range t.Subtasks {
				if s.Origin == todolist.OriginPerson {
					personSubs++
				}
			}
		}
		if personSubs != len(current)-len(dropped) {
			t.Fatalf("%d person subtasks kept of %d items kept", personSubs, len(current)-len(dropped))
		}
		for _, d := range m.DroppedSubtasks {
			if len(d.Subtasks) != 1 || d.Subtasks[0].Origin != "" {
				t.Fatalf("dropped subtasks %+v", d.Subtasks)
			}
		}
		if len(merged)+len(dropped) < len(current) || len(merged) < len(agentList) {
			t.Fatalf("items lost: %d current, %d agent -> %d merged + %d dropped", len(current), len(agentList), len(merged), len(dropped))
		}
		persons := 0
		for _, c := range current {
			if c.Origin == todolist.OriginPerson {
				persons++
			}
		}
		kept := 0
		for _, m := range merged {
			if m.Origin == todolist.OriginPerson {
				kept++
			}
		}
		if kept != persons {
			t.Fatalf("%d person items in, %d out", persons, kept)
		}
		for _, d := range dropped {
			if d.Origin == todolist.OriginPerson {
				t.Fatalf("person item dropped: %v", d)
			}
		}
		// The agent's items appear in its order. Their text is compared
		// without surrounding spaces, as the merge matches, and not their
		// status: an item changed since the agent's read keeps the
		// person's text and status (checked above).
		j := 0
		for _, m := range merged {
			if j < len(agentList) && strings.TrimSpace(m.Content) == strings.TrimSpace(agentList[j].Content) {
				j++
			}
		}
		if j != len(agentList) {
			t.Fatalf("agent order lost: merged %v, agent %v", mergeShow(merged), mergeShow(agentList))
		}
	})
}

func mergeSplit(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if strings.TrimPrefix(p, "*") != "" && !strings.Contains(p, "\x00") {
			out = append(out, p)
		}
	}
	return out
}

// TestMergeNeverUndoesThePerson: what someone else added, changed or
// completed since the agent's last read survives the agent's write, the
// agent removes only what it saw, and ids (stable, or positions when the
// agent has seen the list as it is) say which item the agent means.
func TestMergeNeverUndoesThePerson(t *testing.T) {
	const seen, since = 3, 5 // an entry's Rev: before, and after the agent's last read (4)
	stale := View{Read: 4, Rev: 5, NextUID: 9}
	fresh := View{Read: 5, Rev: 5, NextUID: 9}
	item := func(uid, text string, st todolist.Status, rev int, subs ...todolist.Subtask) todolist.Todo {
		return todolist.Todo{UID: uid, Content: text, Status: st, Rev: rev, Subtasks: subs}
	}
	sub := func(uid, text string, st todolist.Status, rev int) todolist.Subtask {
		return todolist.Subtask{UID: uid, Content: text, Status: st, Rev: rev}
	}
	agentItem := func(id, text string, st todolist.Status, subs ...todolist.Subtask) todolist.Todo {
		t := todolist.Todo{Content: text, Status: st, Subtasks: subs}
		if todolist.IsPosition(id) {
			t.ID = id
		} else {
			t.UID = id
		}
		return t
	}
	P, C := todolist.Pending, todolist.Completed
	cases := []struct {
		name           string
		view           View
		current, agent []todolist.Todo
		want           string // uid:text:status{subtasks}, "-" for a new entry's uid
		kept, changed  string // texts of KeptItems and KeptChanges, subtasks after "/"
		dropped, gone  string
	}{
		{"a rename by the person since the read stays (agent names it by id)", stale,
			[]todolist.Todo{item("t1", "new name", P, since)}, []todolist.Todo{agentItem("t1", "old name", P)},
			"t1:new name:pending", "", "new name", "", ""},
		{"a rename by the person stays (agent restates the old text): both kept, nothing lost", stale,
			[]todolist.Todo{item("t1", "new name", P, since)}, []todolist.Todo{agentItem("", "old name", P)},
			"t1:new name:pending | -:old name:pending", "new name", "", "", ""},
		{"a reused position \"1\" on a changed list renames nothing", stale,
			[]todolist.Todo{item("t1", "person's", P, since), item("t2", "b", P, seen)}, []todolist.Todo{agentItem("1", "agent's", P), agentItem("", "b", P)},
			"t1:person's:pending | -:agent's:pending | t2:b:pending", "person's", "", "", ""},
		{"a position on the list as the agent saw it renames", fresh,
			[]todolist.Todo{item("t1", "old", P, seen)}, []todolist.Todo{agentItem("1", "new", P)},
			"t1:new:pending", "", "", "", ""},
		{"a completion by the person stays: not reopened", stale,
			[]todolist.Todo{item("t1", "a", C, since)}, []todolist.Todo{agentItem("", "a", todolist.InProgress)},
			"t1:a:completed", "", "a", "", ""},
		{"a subtask the person added since stays", stale,
			[]todolist.Todo{item("t1", "a", P, seen, sub("s2", "x", P, seen), sub("s3", "added", P, since))},
			[]todolist.Todo{agentItem("t1", "a", P, sub("", "x", P, 0))},
			"t1:a:pending{s2:x:pending, s3:added:pending}", "/added", "", "", ""},
		{"a subtask the person ticked since stays ticked", stale,
			[]todolist.Todo{item("t1", "a", P, seen, sub("s2", "x", C, since), sub("s3", "y", P, seen))},
			[]todolist.Todo{agentItem("t1", "a", P, sub("s2", "x", P, 0), sub("s3", "y", C, 0))},
			"t1:a:completed{s2:x:completed, s3:y:completed}", "", "/x", "", ""},
		{"the agent removes what it saw, not what came since", stale,
			[]todolist.Todo{item("t1", "seen", P, seen), item("t2", "new", P, since), item("t3", "mine", P, 0)},
			[]todolist.Todo{},
			"t2:new:pending", "new", "", "seen mine", ""},
		{"changes to what the agent saw apply", stale,
			[]todolist.Todo{item("t1", "a", P, seen)}, []todolist.Todo{agentItem("t1", "a2", C)},
			"t1:a2:completed", "", "", "", ""},
		{"an id of a removed item is not added again", stale,
			[]todolist.Todo{item("t1", "a", P, seen)}, []todolist.Todo{agentItem("t4", "removed by the person", P), agentItem("t1", "a", P)},
			"t1:a:pending", "", "", "", "t4"},
		{"an id the session never gave is a new item", stale,
			[]todolist.Todo{item("t1", "a", P, seen)}, []todolist.Todo{agentItem("t1", "a", P), agentItem("t99", "c", P)},
			"t1:a:pending | -:c:pending", "", "", "", ""},
		{"a stable id wins over text", fresh,
			[]todolist.Todo{item("t1", "a", P, seen), item("t2", "b", P, seen)}, []todolist.Todo{agentItem("t2", "a", C)},
			"t2:a:completed", "", "", "a", ""},
	}
	show := func(todos []todolist.Todo) string {
		var out []string
		for _, td := range todos {
			uid := td.UID
			if uid == "" {
				uid = "-"
			}
			s := uid + ":" + td.Content + ":" + string(td.Status)
			var subs []string
			for _, st := range td.Subtasks {
				subs = append(subs, st.UID+":"+st.Content+":"+string(st.Status))
			}
			if len(subs) > 0 {
				s += "{" + strings.Join(subs, ", ") + "}"
			}
			out = append(out, s)
		}
		return strings.Join(out, " | ")
	}
	texts := func(m Merge, items []int, subs [][2]int) string {
		var out []string
		for _, i := range items {
			out = append(out, m.Todos[i].Content)
		}
		s := strings.Join(out, " ")
		if len(subs) > 0 {
			out = nil
			for _, p := range subs {
				out = append(out, m.Todos[p[0]].Subtasks[p[1]].Content)
			}
			s += "/" + strings.Join(out, " ")
		}
		return s
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := MergeAgentList(c.current, c.agent, c.view)
			todolist.Normalize(m.Todos)
			if got := show(m.Todos); got != c.want {
				t.Errorf("merged\n got %s\nwant %s", got, c.want)
			}
			if got := texts(m, m.KeptItems, m.KeptSubtasks); got != c.kept {
				t.Errorf("kept %q, want %q", got, c.kept)
			}
			if got := texts(m, m.KeptChanges, m.KeptSubtaskChanges); got != c.changed {
				t.Errorf("kept changes %q, want %q", got, c.changed)
			}
			var dropped, gone []string
			for _, d := range m.Dropped {
				dropped = append(dropped, d.Content)
			}
			for _, g := range m.Gone {
				gone = append(gone, g.UID)
			}
			if strings.Join(dropped, " ") != c.dropped || strings.Join(gone, " ") != c.gone {
				t.Errorf("dropped %q gone %q, want %q %q", dropped, gone, c.dropped, c.gone)
			}
		})
	}
}

// TestMergeKeepsItemsCarryingThePersonsSubtasks: an agent's item that
// carries a subtask the person added, ticked or gave evidence since the
// agent's last read stays when the agent's list leaves it out, named as
// kept for its subtasks; once the agent has read it, leaving it out
// removes it (archived). A tick or evidence on the person's subtask, and
// its text, stay whatever the agent's version says.
func TestMergeKeepsItemsCarryingThePersonsSubtasks(t *testing.T) {
	const read = 5
	withSub := func(sub todolist.Subtask) []todolist.Todo {
		return []todolist.Todo{
			{Content: "keep", Status: todolist.Pending, UID: "t1", Rev: 0},
			{Content: "agent item", Status: todolist.Pending, UID: "t2", Rev: 0, Subtasks: []todolist.Subtask{
				{Content: "agent sub", Status: todolist.Pending, UID: "s3"}, sub}},
		}
	}
	personSub := todolist.Subtask{Content: "person sub", Status: todolist.Pending, Origin: todolist.OriginPerson, UID: "s4", Rev: read + 1}
	tickedSub := todolist.Subtask{Content: "agent sub 2", Status: todolist.Completed, Evidence: "ran it", UID: "s4", Rev: read + 1}
	seenPersonSub := personSub
	seenPersonSub.Rev = read
	agentList := []todolist.Todo{{Content: "keep", Status: todolist.Pending, UID: "t1"}}
	cases := []struct {
		name  string
		cur   []todolist.Todo
		stays bool
	}{
		{"a person's subtask added since the agent's last read", withSub(personSub), true},
		{"a tick and evidence the person gave since", withSub(tickedSub), true},
		{"a person's subtask the agent has read", withSub(seenPersonSub), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			view := View{Read: read, Rev: read + 1, NextUID: 5}
			m := MergeAgentList(c.cur, agentList, view)
			sameSub := func(a, b todolist.Subtask) bool {
				return a.Content == b.Content && a.Status == b.Status && a.Evidence == b.Evidence && a.UID == b.UID
			}
			if got := len(m.Todos) == 2 && len(m.Todos[1].Subtasks) == 2 && sameSub(m.Todos[1].Subtasks[1], c.cur[1].Subtasks[1]); got != c.stays {
				t.Fatalf("item kept with its subtasks: %v, want %v (%+v)", got, c.stays, m.Todos)
			}
			if c.stays {
				if !reflect.DeepEqual(m.KeptItems, []int{1}) || len(m.Dropped) != 0 {
					t.Errorf("kept %v, dropped %v", m.KeptItems, m.Dropped)
				}
				keptFor(t, m, []int{1})
			} else if len(m.Dropped) != 1 || len(m.Dropped[0].Subtasks) != 2 {
				t.Errorf("the agent's removal after its read: dropped %+v, want the item with its subtasks (archived)", m.Dropped)
			}
		})
	}

	// The agent's version of the person's subtask, read and re-sent:
	// text, tick and evidence stay; the agent may tick it.
	done := seenPersonSub
	done.Status, done.Evidence = todolist.Completed, "the person's proof"
	cur := withSub(done)
	again := []todolist.Todo{{Content: "agent item", Status: todolist.Pending, UID: "t2", Subtasks: []todolist.Subtask{
		{Content: "agent sub", Status: todolist.Pending, UID: "s3"},
		{Content: "renamed by the agent", Status: todolist.Pending, UID: "s4"}}}}
	m := MergeAgentList(cur, again, View{Read: read, Rev: read, NextUID: 5})
	if got := m.Todos[0].Subtasks[1]; got.Content != "person sub" || got.Status != todolist.Completed || got.Evidence != "the person's proof" {
		t.Errorf("the person's subtask after the agent's version: %+v", got)
	}
	cur[1].Subtasks[1] = seenPersonSub
	again[0].Subtasks[1].Status = todolist.Completed
	m = MergeAgentList(cur, again, View{Read: read, Rev: read, NextUID: 5})
	if got := m.Todos[0].Subtasks[1]; got.Status != todolist.Completed {
		t.Errorf("the agent cannot tick the person's subtask: %+v", got)
	}
}
