package agent

import (
	"reflect"
	"strings"
	"testing"

	"github.com/todosh/todosh/todostore"
)

// mergeList builds a list from "text:status" words; a "*" prefix marks an
// item the person added.
func mergeList(specs ...string) []todostore.Todo {
	out := []todostore.Todo{}
	for _, s := range specs {
		t := todostore.Todo{Status: todostore.Pending}
		if strings.HasPrefix(s, "*") {
			t.Origin = "person"
			s = s[1:]
		}
		text, st, ok := strings.Cut(s, ":")
		t.Content = text
		if ok {
			t.Status = todostore.Status(st)
		}
		out = append(out, t)
	}
	return out
}

// mergeShow writes a list back in mergeList's notation.
func mergeShow(todos []todostore.Todo) []string {
	out := []string{}
	for _, t := range todos {
		s := t.Content + ":" + string(t.Status)
		if t.Origin == "person" {
			s = "*" + s
		}
		out = append(out, s)
	}
	return out
}

func TestMergeAgentList(t *testing.T) {
	cases := []struct {
		name                    string
		current, agent          []todostore.Todo
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
			curCopy := todostore.CloneTodos(c.current)
			agentCopy := todostore.CloneTodos(c.agent)
			merged, dropped := MergeAgentList(c.current, c.agent)
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
	subs := []todostore.Subtask{{Content: "quoted fields", Status: todostore.Completed}, {Content: "CRLF", Status: todostore.Pending}}
	current := []todostore.Todo{{Content: "parser", Status: todostore.InProgress, ActiveForm: "Parsing", Evidence: "go test ok", Subtasks: subs}}
	agentList := []todostore.Todo{{Content: "parser", Status: todostore.InProgress}}
	merged, _ := MergeAgentList(current, agentList)
	m := merged[0]
	if !reflect.DeepEqual(m.Subtasks, subs) || m.ActiveForm != "Parsing" || m.Evidence != "go test ok" {
		t.Errorf("merged %+v lost what only the current item had", m)
	}
	merged[0].Subtasks[0].Content = "changed"
	if current[0].Subtasks[0].Content != "quoted fields" {
		t.Error("merged shares subtasks with the input")
	}
	// The agent's own subtasks and details win.
	own := []todostore.Todo{{Content: "parser", Status: todostore.Pending, ActiveForm: "Writing", Subtasks: []todostore.Subtask{{Content: "mine", Status: todostore.Pending}}}}
	merged, _ = MergeAgentList(current, own)
	if len(merged[0].Subtasks) != 1 || merged[0].Subtasks[0].Content != "mine" || merged[0].ActiveForm != "Writing" {
		t.Errorf("merged %+v did not keep the agent's version", merged[0])
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
		}
		merged, dropped := MergeAgentList(current, agentList)
		if len(merged)+len(dropped) < len(current) || len(merged) < len(agentList) {
			t.Fatalf("items lost: %d current, %d agent -> %d merged + %d dropped", len(current), len(agentList), len(merged), len(dropped))
		}
		persons := 0
		for _, c := range current {
			if c.Origin == "person" {
				persons++
			}
		}
		kept := 0
		for _, m := range merged {
			if m.Origin == "person" {
				kept++
			}
		}
		if kept != persons {
			t.Fatalf("%d person items in, %d out", persons, kept)
		}
		for _, d := range dropped {
			if d.Origin == "person" {
				t.Fatalf("person item dropped: %v", d)
			}
		}
		// The agent's items appear in its order.
		j := 0
		for _, m := range merged {
			if j < len(agentList) && m.Content == agentList[j].Content && m.Status == agentList[j].Status {
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
