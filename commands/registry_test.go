package commands

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todoview"

	"github.com/todosh/todosh/todostore"
)

func TestComplete(t *testing.T) {
	r := NewRegistry()
	tests := []struct {
		line string
		want []string
	}{
		{"/", []string{"/todo ", "/board ", "/help ", "/quit", "/exit"}},
		{"/to", []string{"/todo "}},
		{"/todo", []string{"/todo "}},
		{"/q", []string{"/quit"}},
		{"/e", []string{"/exit"}},
		{"/x", nil},
		{"  /to", []string{"  /todo "}},
		{"/todo ", []string{"/todo show", "/todo add ", "/todo delete ", "/todo done ", "/todo undo ", "/todo unset ", "/todo start ", "/todo set ", "/todo cancel ", "/todo edit ", "/todo move ", "/todo clear", "/todo cost", "/todo history ", "/todo revert", "/todo restore ", "/todo list ", "/todo load ", "/todo prune ", "/todo budget "}},
		{"/todo s", []string{"/todo show", "/todo start ", "/todo set "}},
		{"/todo se", []string{"/todo set "}},
		{"/todo un", []string{"/todo undo ", "/todo unset "}},
		{"/todo uns", []string{"/todo unset "}},
		{"/todo p", []string{"/todo prune "}},
		{"/todo a", []string{"/todo add "}},
		{"/todo d", []string{"/todo delete ", "/todo done "}},
		{"/todo  l", []string{"/todo  list ", "/todo  load "}},
		{"/todo add", []string{"/todo add "}},
		{"/todo add ", nil},
		{"/todo add x", nil},
		{"/todo x", nil},
		{"/help ", []string{"/help todo", "/help board", "/help help", "/help quit", "/help exit"}},
		{"/help t", []string{"/help todo"}},
		{"/help /t", []string{"/help todo"}},
		{"/help todo ", []string{"/help todo show", "/help todo add", "/help todo delete", "/help todo done", "/help todo undo", "/help todo unset", "/help todo start", "/help todo set", "/help todo cancel", "/help todo edit", "/help todo move", "/help todo clear", "/help todo cost", "/help todo history", "/help todo revert", "/help todo restore", "/help todo list", "/help todo load", "/help todo prune", "/help todo budget"}},
		{"/help todo se", []string{"/help todo set"}},
		{"/todo r", []string{"/todo revert", "/todo restore "}},
		{"/todo h", []string{"/todo history "}},
		{"/todo history s", []string{"/todo history show "}},
		{"/todo history ", []string{"/todo history show "}},
		{"/todo history x", nil},
		{"/help todo a", []string{"/help todo add"}},
		{"/help quit ", nil},
		{"/quit ", nil},
		{"/nope ", nil},
		{"todo", nil},
		{"", nil},
		{"   ", nil},
	}
	for _, tc := range tests {
		if got := r.Complete(tc.line); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Complete(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

// TestCompletionMatchesDispatch checks that every completion is a command
// Run knows: the table drives both.
func TestCompletionMatchesDispatch(t *testing.T) {
	r := NewRegistry()
	for _, c := range r.Complete("/") {
		line := strings.TrimSpace(c)
		if line == "/quit" || line == "/exit" {
			continue
		}
		for _, sub := range append([]string{line}, r.Complete(line+" ")...) {
			env, _ := newTestEnv(t)
			err := r.Run(env, strings.TrimSpace(sub))
			if err != nil && strings.Contains(err.Error(), "unknown") {
				t.Errorf("%q completes but does not run: %v", sub, err)
			}
		}
	}
}

func TestClosest(t *testing.T) {
	known := []string{"todo", "help", "quit", "exit"}
	tests := map[string]string{
		"tood": "todo", "todo": "todo", "TODO": "todo", "tdo": "todo", "t": "todo",
		"hlep": "help", "he": "help", "q": "quit", "qiut": "quit", "exti": "exit",
		"": "", "xyz": "", "frobnicate": "", "x": "", "ab": "",
	}
	for in, want := range tests {
		if got := closest(in, known); got != want {
			t.Errorf("closest(%q) = %q, want %q", in, got, want)
		}
	}
	subs := []string{"show", "add", "delete", "done", "undo", "clear", "list", "load"}
	for in, want := range map[string]string{"d": "", "de": "delete", "lo": "load", "l": "", "shwo": "show", "ad": "add", "dlete": "delete", "lsit": "list"} {
		if got := closest(in, subs); got != want {
			t.Errorf("closest(%q, subs) = %q, want %q", in, got, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 1}, {"todo", "todo", 0}, {"tood", "todo", 1}, {"tdo", "todo", 1}, {"help", "hlep", 1}, {"kitten", "sitting", 3}} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestIsCommand(t *testing.T) {
	for line, want := range map[string]bool{"/todo": true, "  /help": true, "\t/x": true, "/": true, "todo": false, "": false, "fix /etc": false} {
		if got := IsCommand(line); got != want {
			t.Errorf("IsCommand(%q) = %v", line, got)
		}
	}
}

func TestAge(t *testing.T) {
	tests := []struct {
		ago  time.Duration
		want string
	}{
		{-time.Hour, "just now"},
		{0, "just now"},
		{59 * time.Second, "just now"},
		{time.Minute, "1 min ago"},
		{3*time.Minute + 30*time.Second, "3 min ago"},
		{59 * time.Minute, "59 min ago"},
		{time.Hour, "1 h ago"},
		{2*time.Hour + 59*time.Minute, "2 h ago"},
		{23 * time.Hour, "23 h ago"},
		{24 * time.Hour, "1 day ago"},
		{47 * time.Hour, "1 day ago"},
		{48 * time.Hour, "2 days ago"},
		{400 * 24 * time.Hour, "400 days ago"},
	}
	for _, tc := range tests {
		if got := age(fixedNow, fixedNow.Add(-tc.ago)); got != tc.want {
			t.Errorf("age(%v) = %q, want %q", tc.ago, got, tc.want)
		}
	}
	if got := age(fixedNow, time.Time{}); got != "not saved" {
		t.Errorf("age(zero) = %q", got)
	}
}

func TestCountsAndFirstItem(t *testing.T) {
	tests := []struct {
		spec, counts, first string
	}{
		{"", "empty", ""},
		{"+a;+b", "2 done", "all done: a"},
		{"+a;>b;-c;xd", "1 done, 1 in progress, 1 pending, 1 cancelled", "b"},
		{"xa;-b", "1 pending, 1 cancelled", "b"},
	}
	for _, tc := range tests {
		todos := parseSpec(t, tc.spec)
		if got := countsText(todos); got != tc.counts {
			t.Errorf("countsText(%q) = %q, want %q", tc.spec, got, tc.counts)
		}
		if got := firstItem(todos); got != tc.first {
			t.Errorf("firstItem(%q) = %q, want %q", tc.spec, got, tc.first)
		}
	}
}

// TestWritesRecordOriginCwdAndArchive checks what the transcripts cannot
// show: the fields written to the file.
func TestWritesRecordOriginCwdAndArchive(t *testing.T) {
	env, _ := newTestEnv(t)
	r := NewRegistry()
	for _, line := range []string{"/todo add one", "/todo add 1.last sub", "/todo add two"} {
		if err := r.Run(env, line); err != nil {
			t.Fatal(err)
		}
	}
	sess := mustLoad(t, env)
	if sess.Cwd != "/work/project" {
		t.Errorf("cwd = %q", sess.Cwd)
	}
	for _, td := range sess.Todos {
		if td.Origin != OriginPerson {
			t.Errorf("todo %s origin = %q", td.ID, td.Origin)
		}
		for _, st := range td.Subtasks {
			if st.Origin != OriginPerson {
				t.Errorf("subtask %s origin = %q", st.ID, st.Origin)
			}
		}
	}
	env.Cwd = "/elsewhere"
	if err := r.Run(env, "/todo clear"); err != nil {
		t.Fatal(err)
	}
	sess = mustLoad(t, env)
	if sess.Cwd != "/work/project" {
		t.Errorf("cwd changed to %q: only an empty cwd is filled in", sess.Cwd)
	}
	lines, err := env.Store.History(env.SessionID)
	if n := len(lines); err != nil || len(sess.Todos) != 0 || n < 2 || lines[n-1].What != "cleared 2 items" || len(lines[n-2].Todos) != 2 || !lines[n-1].At.Equal(fixedNow) {
		t.Fatalf("after clear: todos %v history %+v %v", sess.Todos, lines, err)
	}

	writeSession(t, env.Store, "src", "/src", parseSpec(t, "-x|[x]x1;+y"), time.Hour)
	srcBytes, _ := os.ReadFile(env.Store.Path("src"))
	if err := r.Run(env, "/todo add mine"); err != nil {
		t.Fatal(err)
	}
	if err := r.Run(env, "/todo load 2"); err != nil {
		t.Fatal(err)
	}
	sess = mustLoad(t, env)
	if got := todoview.FormatList(sess.Todos); got != todoview.FormatList(parseSpec(t, "-x|[x]x1;+y")) {
		t.Errorf("loaded list:\n%s", got)
	}
	lines, _ = env.Store.History(env.SessionID)
	if n := len(lines); n < 2 || lines[n-1].What != "loaded list from src" || lines[n-2].Todos[0].Content != "mine" {
		t.Errorf("history after load: %+v", lines)
	}
	if after, _ := os.ReadFile(env.Store.Path("src")); string(after) != string(srcBytes) {
		t.Error("load changed the source file")
	}
}

func TestCorruptErrorIsReachable(t *testing.T) {
	env, _ := newTestEnv(t)
	writeRaw(t, env.Store, env.SessionID, []byte("{"), 0)
	err := NewRegistry().Run(env, "/todo add x")
	var corrupt *todostore.CorruptError
	if !errors.As(err, &corrupt) || corrupt.Path != env.Store.Path(env.SessionID) {
		t.Fatalf("error %v does not unwrap to the CorruptError", err)
	}
	if data, _ := os.ReadFile(env.Store.Path(env.SessionID)); string(data) != "{" {
		t.Errorf("corrupt file was changed to %q", data)
	}
}

func TestRefusedCommandOnNewSessionCreatesNothing(t *testing.T) {
	env, _ := newTestEnv(t)
	r := NewRegistry()
	for _, line := range []string{"/todo delete 1", "/todo done last", "/todo add 2 x", "/todo clear", "/todo show", "/todo list", "/todo load 1"} {
		if err := r.Run(env, line); err != nil && !strings.Contains(err.Error(), "out of range") {
			t.Errorf("%s: %v", line, err)
		}
	}
	if _, err := os.Stat(env.Store.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("store directory created by refused or read-only commands: %v", err)
	}
}

func TestInvalidSessionID(t *testing.T) {
	env, _ := newTestEnv(t)
	env.SessionID = "../escape"
	r := NewRegistry()
	for _, line := range []string{"/todo add x", "/todo show", "/todo clear"} {
		err := r.Run(env, line)
		if err == nil || !strings.Contains(err.Error(), "invalid session id") {
			t.Errorf("%s: error %v, want invalid session id", line, err)
		}
	}
}

// TestListParsesOnlyShownRows uses the row-source extension point: rows
// from another agent are merged by time and marked, and only the rows of
// the page shown are loaded.
func TestListParsesOnlyShownRows(t *testing.T) {
	env, out := newTestEnv(t)
	writeSession(t, env.Store, "mine", "/src/mine", parseSpec(t, "-own"), 90*time.Minute)
	loads := map[string]int{}
	agent := func(env *Env) ([]listRow, error) {
		var rows []listRow
		for i := 0; i < 30; i++ {
			id := fmt.Sprintf("c%02d", i)
			rows = append(rows, listRow{Source: "claude", ID: id, ModTime: fixedNow.Add(-time.Duration(i) * time.Hour), load: func(r listRow) (*todostore.Session, error) {
				loads[r.ID]++
				return &todostore.Session{Todos: parseSpec(t, "-from claude "+r.ID)}, nil
			}})
		}
		return rows, nil
	}
	r := NewRegistry()
	r.sources = append(r.sources, agent)
	if err := r.Run(env, "/todo list"); err != nil {
		t.Fatal(err)
	}
	if len(loads) != 18 { // rows 2-21 minus "mine": c00, c01, then mine, then c02..c17
		t.Errorf("loaded %d claude lists, want 18: %v", len(loads), loads)
	}
	lines := strings.Split(out.String(), "\n")
	if !strings.Contains(lines[2], "[claude] from claude c00") || !strings.Contains(lines[4], "own") {
		t.Errorf("rows not merged by time:\n%s", out.String())
	}
	out.Reset()
	if err := r.Run(env, "/todo load 3"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "Loaded list 3 (claude c01, 1 todo)") {
		t.Errorf("load of a claude row printed %q", out.String())
	}
}
