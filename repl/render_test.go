package repl

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/todosh/todosh/textwidth"
	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/continuation"
)

// writeRecorder keeps every Write separately, so a test can check that each
// one ends with a newline.
type writeRecorder struct{ writes []string }

func (w *writeRecorder) Write(p []byte) (int, error) {
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

func (w *writeRecorder) String() string { return strings.Join(w.writes, "") }

// renderTodos builds a normalized list of pending items.
func renderTodos(contents ...string) []todolist.Todo {
	todos := make([]todolist.Todo, len(contents))
	for i, c := range contents {
		todos[i] = todolist.Todo{Content: c, Status: todolist.Pending}
	}
	todolist.Normalize(todos)
	return todos
}

func TestRendererEvents(t *testing.T) {
	text := func(s string) agent.Event { return agent.Event{Kind: agent.EventText, Text: s} }
	list := func(todos []todolist.Todo) agent.Event { return agent.Event{Kind: agent.EventTodos, Todos: todos} }
	ab := renderTodos("a", "b")
	abList := todoview.FormatList(ab)
	long := strings.Repeat("x", renderMaxLine+10)
	longUTF8 := strings.Repeat("é", renderMaxLine) // 2 bytes per rune

	tests := []struct {
		name   string
		events []agent.Event
		want   string
	}{
		{"pieces joined into lines", []agent.Event{text("Hel"), text("lo wor"), text("ld\nsecond"), text(" line\n")},
			"Hello world\nsecond line\n"},
		{"partial line flushed at the end", []agent.Event{text("no newline")}, "no newline\n"},
		{"blank lines kept inside, whitespace tail dropped", []agent.Event{text("a\n\nb\n  ")}, "a\n\nb\n"},
		{"CRLF", []agent.Event{text("one\r\ntwo\r"), text("\nthree\r")}, "one\ntwo\nthree\n"},
		{"tool call flushes pending text first", []agent.Event{text("Planning"), {Kind: agent.EventToolCall, Text: "todo_write 2 items"}, text(" done\n")},
			"Planning\n  ⏺ todo_write 2 items\n done\n"},
		{"tool call with newlines stays one line", []agent.Event{{Kind: agent.EventToolCall, Text: "Bash ls\n-la\t/tmp"}},
			"  ⏺ Bash ls -la /tmp\n"},
		{"long tool call shortened", []agent.Event{{Kind: agent.EventToolCall, Text: strings.Repeat("y", 300)}},
			"  ⏺ " + strings.Repeat("y", renderMaxShort-1) + "…\n"},
		{"pause and notice", []agent.Event{{Kind: agent.EventPause, Text: "which database?"}, {Kind: agent.EventNotice, Text: "skipped a malformed line"}},
			"  note: skipped a malformed line\n"}, // the pause shows in the tool call and decision lines
		{"identical lists printed once", []agent.Event{list(ab), text("x\n"), list(renderTodos("a", "b"))},
			abList + "x\n"},
		{"changed list said in one line", []agent.Event{list(ab), list(renderTodos("a")), list(ab)},
			abList + "- 2 \"b\" — 0/1 done\n+ 2 \"b\" — 0/2 done\n"},
		{"empty list is a change", []agent.Event{list(ab), list(nil)}, abList + "cleared 2 items — list empty\n"},
		{"list flushes pending text", []agent.Event{text("before"), list(ab)}, "before\n" + abList},
		{"long line cut", []agent.Event{text(long)}, long[:renderMaxLine] + "\n" + "xxxxxxxxxx\n"},
		{"long line cut on a rune boundary", []agent.Event{text(longUTF8 + "\n")},
			longUTF8[:renderMaxLine] + "\n" + longUTF8[renderMaxLine:] + "\n"},
		{"unknown kind ignored", []agent.Event{{Kind: agent.EventKind(99), Text: "?"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w writeRecorder
			r := NewRenderer(&w)
			for _, ev := range tt.events {
				r.Event(ev)
			}
			r.Flush()
			if got := w.String(); got != tt.want {
				t.Errorf("output:\n%.300q\nwant:\n%.300q", got, tt.want)
			}
			for _, s := range w.writes {
				if !strings.HasSuffix(s, "\n") {
					t.Errorf("write %q is not whole lines", s)
				}
				if !utf8.ValidString(s) {
					t.Errorf("write %q is not valid UTF-8", s)
				}
			}
		})
	}
}

func TestRendererSeenAndLine(t *testing.T) {
	var w writeRecorder
	r := NewRenderer(&w)
	ab := renderTodos("a", "b")
	r.Seen(ab)
	if r.Todos(ab) {
		t.Error("a list already seen was printed")
	}
	r.Text("half")
	r.Line("continuing 1/3\nnext")
	if !r.Todos(renderTodos("a")) {
		t.Error("a changed list was not printed")
	}
	want := "half\ncontinuing 1/3 next\n- 2 \"b\" — 0/1 done\n"
	if got := w.String(); got != want {
		t.Errorf("output %q, want %q", got, want)
	}
}

// A stream of one-byte pieces with no newline must not be rescanned from the
// start at every piece, and must still come out as bounded lines.
func TestRendererManySmallPieces(t *testing.T) {
	var w writeRecorder
	r := NewRenderer(&w)
	n := 3*renderMaxLine + 5
	for range n {
		r.Text("z")
	}
	r.Flush()
	total := 0
	for _, s := range w.writes {
		if len(s) > renderMaxLine+1 {
			t.Fatalf("write of %d bytes, over the line cap", len(s))
		}
		total += len(strings.TrimSuffix(s, "\n"))
	}
	if total != n || len(w.writes) != 4 {
		t.Errorf("%d bytes in %d writes, want %d in 4", total, len(w.writes), n)
	}
}

func TestRenderRuneCut(t *testing.T) {
	tests := []struct {
		name  string
		b     string
		limit int
		want  int
	}{
		{"ascii", "abcdef", 3, 3},
		{"inside a 2-byte rune", "aé", 2, 1},
		{"inside a 4-byte rune", "a😀b", 3, 1},
		{"at a rune start", "éé", 2, 2},
		{"invalid bytes", "a\x80\x80\x80\x80\x80\x80", 5, 5},
	}
	for _, tt := range tests {
		if got := renderRuneCut([]byte(tt.b), tt.limit); got != tt.want {
			t.Errorf("%s: renderRuneCut(%q, %d) = %d, want %d", tt.name, tt.b, tt.limit, got, tt.want)
		}
	}
}

// FuzzRenderText checks that how a reply is split into pieces never changes
// what is printed, and that every write is whole lines of bounded length.
// The line cap is lowered so that short inputs reach the cut.
func FuzzRenderText(f *testing.F) {
	const maxLine = 6 // at least utf8.UTFMax, so a cut never splits a rune
	f.Add("Hello world\nsecond line\n", []byte{3, 9})
	f.Add("one\r\ntwo\r\nthree\r", []byte{4, 1, 1})
	f.Add("a\n\n  \nb", []byte{1})
	f.Add("ééééé😀😀\r\n", []byte{2, 7})
	f.Fuzz(func(t *testing.T, text string, cuts []byte) {
		var whole, split writeRecorder
		r := NewRenderer(&whole)
		r.maxLine = maxLine
		r.Text(text)
		r.Flush()

		r = NewRenderer(&split)
		r.maxLine = maxLine
		rest := text
		for _, c := range cuts {
			n := min(int(c), len(rest))
			r.Text(rest[:n])
			rest = rest[n:]
		}
		r.Text(rest)
		r.Flush()

		if whole.String() != split.String() {
			t.Fatalf("pieces %v changed the output:\n%q\nvs\n%q", cuts, whole.String(), split.String())
		}
		for _, s := range split.writes {
			if !strings.HasSuffix(s, "\n") {
				t.Fatalf("write %q is not whole lines", s)
			}
			for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
				if len(line) > maxLine {
					t.Fatalf("line %q over %d bytes", line, maxLine)
				}
			}
		}
		if utf8.ValidString(text) && !utf8.ValidString(whole.String()) {
			t.Fatalf("valid text printed as invalid UTF-8: %q", whole.String())
		}
	})
}

func TestRenderTextNeutralisesEscapes(t *testing.T) {
	var out strings.Builder
	r := NewRenderer(&out)
	r.Text("hello \x1b]0;PWNED\x07\x1b[2J\tdone\rX?\nnext \x1b[31mred")
	r.Flush()
	if strings.ContainsAny(out.String(), "\x1b\x07\r") {
		t.Fatalf("reply text reached the terminal with control characters: %q", out.String())
	}
	if want := "hello  ]0;PWNED  [2J\tdone X?\nnext  [31mred\n"; out.String() != want {
		t.Errorf("rendered %q, want %q", out.String(), want)
	}
}

func TestRenderStatus(t *testing.T) {
	var b strings.Builder
	r := NewRenderer(&b)
	for _, s := range []string{"API retry 1/10", "API retry 1/10", "API retry 2/10", ""} {
		r.Event(agent.Event{Kind: agent.EventStatus, Text: s})
	}
	r.Event(agent.Event{Kind: agent.EventText, Text: "hello\n"})
	if got, want := b.String(), "  status: API retry 1/10\n  status: API retry 2/10\nhello\n"; got != want {
		t.Errorf("outside a terminal:\n%q\nwant\n%q", got, want)
	}

	b.Reset()
	r = NewRenderer(&b)
	r.InPlace = true
	r.Event(agent.Event{Kind: agent.EventStatus, Text: "Reconnecting... 1/5"})
	r.Event(agent.Event{Kind: agent.EventStatus, Text: "Reconnecting... 2/5"})
	r.Event(agent.Event{Kind: agent.EventText, Text: "back\n"})
	r.Event(agent.Event{Kind: agent.EventStatus, Text: "rate limited"})
	r.Event(agent.Event{Kind: agent.EventStatus})
	want := "\r\x1b[2K  ⟳ Reconnecting... 1/5" + "\r\x1b[2K  ⟳ Reconnecting... 2/5" + "\r\x1b[2Kback\n" + "\r\x1b[2K  ⟳ rate limited" + "\r\x1b[2K"
	if got := b.String(); got != want {
		t.Errorf("in a terminal:\n%q\nwant\n%q", got, want)
	}
	if strings.Count(b.String(), "\n") != 1 {
		t.Errorf("statuses took lines of their own: %q", b.String())
	}
}

// TestRenderFitsOwnLines: todosh's own lines (decisions, errors, notes)
// wrap at word boundaries to the terminal's width instead of being cut
// mid-word by the terminal; outside a terminal they stay whole.
func TestRenderFitsOwnLines(t *testing.T) {
	long := `stopped: paused — "Should the tests use only the standard testing package, or may I add testify?"`
	for _, tc := range []struct {
		cols int
		want string
	}{
		{0, long + "\n"},
		{40, "stopped: paused — \"Should the tests use\n  only the standard testing package, or\n  may I add testify?\"\n"},
	} {
		var out strings.Builder
		r := NewRenderer(&out)
		r.cols = func() int { return tc.cols }
		r.Decision(continuation.Decision{Line: long})
		if out.String() != tc.want {
			t.Errorf("%d columns: got %q, want %q", tc.cols, out.String(), tc.want)
		}
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if tc.cols > 0 && textwidth.Width(line) > tc.cols {
				t.Errorf("%d columns: line %q is wider", tc.cols, line)
			}
		}
	}
}

// TestRendererShownIsTheListWithPositions: positions mean the last list
// the person saw with its positions: one shown whole, or their own
// command's result (Seen); another process's change shown as one line
// (`↕ 1 "beta" (was 2)`) moves the base of the next change line, not that.
func TestRendererShownIsTheListWithPositions(t *testing.T) {
	var w strings.Builder
	r := NewRenderer(&w)
	if _, ok := r.Shown(); ok {
		t.Fatal("a list seen before any was shown")
	}
	a := []todolist.Todo{{Content: "alpha", Status: todolist.Pending, UID: "t1"}, {Content: "beta", Status: todolist.Pending, UID: "t2"}}
	r.Seen(a) // the person's own command left it so
	b := []todolist.Todo{a[1], a[0]}
	if !r.Changed(b, "todo list changed by another process:") || strings.Count(w.String(), "\n") != 1 {
		t.Fatalf("the reorder was not shown as a change line: %q", w.String())
	}
	if got, ok := r.Shown(); !ok || got[0].Content != "alpha" {
		t.Errorf("after a change line, positions mean %v, want the list shown before (alpha first)", got)
	}
	c := append(b, todolist.Todo{Content: "gamma", Status: todolist.Pending, UID: "t3"})
	w.Reset()
	r.show(c, "", true) // shown whole
	if got, ok := r.Shown(); !ok || len(got) != 3 || got[0].Content != "beta" {
		t.Errorf("after the whole list, positions mean %v", got)
	}
}
