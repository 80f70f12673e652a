package repl

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/todostore"
)

func TestSuffixes(t *testing.T) {
	tests := []struct {
		head       string
		candidates []string
		want       []string
		length     int
	}{
		{"/to", []string{"/todo "}, []string{"do "}, 3},
		{"/todo a", []string{"/todo add "}, []string{"dd "}, 1},
		{"/todo ", []string{"/todo add ", "/todo clear"}, []string{"add ", "clear"}, 0},
		{"/todo d", []string{"/todo delete ", "/todo done "}, []string{"elete ", "one "}, 1},
		{"/todo x", []string{"/todo add "}, nil, 1},                     // not an extension of the line
		{"/todo done", []string{"/todo done"}, []string{""}, 4},         // already complete
		{"/todo add ✓é", []string{"/todo add ✓éx"}, []string{"x"}, 2},   // runes, not bytes
		{"", []string{"/help", "/todo"}, []string{"/help", "/todo"}, 0}, // empty line
	}
	for _, tt := range tests {
		got, length := suffixes(tt.head, tt.candidates)
		var gotS []string
		for _, r := range got {
			gotS = append(gotS, string(r))
		}
		if !reflect.DeepEqual(gotS, tt.want) || length != tt.length {
			t.Errorf("suffixes(%q, %q) = %q, %d; want %q, %d", tt.head, tt.candidates, gotS, length, tt.want, tt.length)
		}
	}
}

func TestCompleterDoUsesTextBeforeCursor(t *testing.T) {
	var asked string
	c := completer{complete: func(line string) []string {
		asked = line
		return []string{"/todo add "}
	}}
	got, n := c.Do([]rune("/todo a trailing"), len("/todo a"))
	if asked != "/todo a" || len(got) != 1 || string(got[0]) != "dd " || n != 1 {
		t.Errorf("Do: asked %q, got %q, %d", asked, got, n)
	}
}

func TestPromptText(t *testing.T) {
	todos := func(sts ...todolist.Status) *todostore.Session {
		s := &todostore.Session{}
		for _, st := range sts {
			s.Todos = append(s.Todos, todolist.Todo{Content: "x", Status: st})
		}
		return s
	}
	tests := []struct {
		sess *todostore.Session
		want string
	}{
		{nil, "todosh › "},
		{todos(), "todosh › "},
		{todos(todolist.Completed, todolist.Pending, todolist.InProgress), "todosh 1/3 › "},
		{todos(todolist.Completed, todolist.Cancelled), "todosh 2/2 › "},
	}
	for _, tt := range tests {
		if got := promptText(tt.sess); got != tt.want {
			t.Errorf("promptText(%v) = %q, want %q", tt.sess, got, tt.want)
		}
	}
}

func TestScriptLine(t *testing.T) {
	tests := []struct {
		raw  string
		want string
		run  bool
	}{
		{"/todo show", "/todo show", true},
		{"  /todo add x  \r", "/todo add x", true},
		{"", "", false},
		{"   \t", "", false},
		{"# a comment", "# a comment", false},
		{"  #indented comment", "#indented comment", false},
		{"fix #123", "fix #123", true},
	}
	for _, tt := range tests {
		got, run := scriptLine(tt.raw)
		if run != tt.run || (run && got != tt.want) {
			t.Errorf("scriptLine(%q) = %q, %v; want %q, %v", tt.raw, got, run, tt.want, tt.run)
		}
	}
}

func TestLineSources(t *testing.T) {
	collect := func(next lineSource) ([]string, error) {
		var out []string
		for {
			line, ok, err := next()
			if err != nil || !ok {
				return out, err
			}
			out = append(out, line)
		}
	}
	got, err := collect(sliceLines([]string{"a", "", "b"}))
	if err != nil || !reflect.DeepEqual(got, []string{"a", "", "b"}) {
		t.Errorf("sliceLines: %q, %v", got, err)
	}
	got, err = collect(scanLines(strings.NewReader("one\r\ntwo\n\nlast")))
	if err != nil || !reflect.DeepEqual(got, []string{"one", "two", "", "last"}) {
		t.Errorf("scanLines: %q, %v", got, err)
	}
	long := strings.Repeat("x", maxScriptLine+1)
	got, err = collect(scanLines(strings.NewReader("ok\n" + long + "\nnever")))
	if err == nil || !reflect.DeepEqual(got, []string{"ok"}) {
		t.Errorf("scanLines over the limit: %d lines, err %v; want 1 line and an error", len(got), err)
	}
	// The error says which line, the limit and what to do, not bufio's
	// "token too long" (issue 16).
	for _, want := range []string{"line 2 of stdin", "longer than 4 MiB", "split it", "put the text in a file"} {
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "token too long") {
			t.Errorf("scanLines over the limit: error %v, want it to contain %q", err, want)
		}
	}
}

func TestCountdownLine(t *testing.T) {
	tests := []struct {
		left time.Duration
		want string
	}{
		{3 * time.Second, "continuing in 3s — type to take over"},
		{2*time.Second + time.Millisecond, "continuing in 3s — type to take over"},
		{2 * time.Second, "continuing in 2s — type to take over"},
		{time.Millisecond, "continuing in 1s — type to take over"},
		{0, "continuing in 1s — type to take over"},
	}
	for _, tt := range tests {
		if got := countdownLine(tt.left); got != tt.want {
			t.Errorf("countdownLine(%v) = %q, want %q", tt.left, got, tt.want)
		}
	}
}

func TestTypedText(t *testing.T) {
	tests := []struct {
		keys string
		want string
	}{
		{"h", "h"},
		{"hello world", "hello world"},
		{"é✓", "é✓"},
		{"\r", ""},
		{"a\r\n\rb", "a\nb"},
		{"/todo show\r", "/todo show\n"},
		{"one\rtwo\nthr", "one\ntwo\nthr"},
		{"ab\x1b[Acd", "ab"},
		{"\x03", ""},
		{"\x1b[A", ""},
		{"ab\rcd", "ab\ncd"},
		{"\xff", ""},
		{"/todo", "/todo"},
		// A paste is one block of the next line, never lines that run.
		{"\x1b[200~why?\n/todo clear\x1b[201~", "why?␤/todo clear"},
		{"go \x1b[200~a\r\nb\x1b[201~\r", "go a␤b\n"},
		{"\x1b[200~cut short", "cut short"},
	}
	for _, tt := range tests {
		if got := typedText([]byte(tt.keys)); got != tt.want {
			t.Errorf("typedText(%q) = %q, want %q", tt.keys, got, tt.want)
		}
	}
}
