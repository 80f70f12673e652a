package todostore

import (
	"fmt"
	"strings"
	"testing"
)

func TestWidthRules(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"abc", 3}, {"日本語", 6}, {"🚀", 2}, {"é", 1}, {"👍🏽", 2}, {"", 0},
	} {
		if got := Width(tc.s); got != tc.want {
			t.Errorf("Width(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
	for _, tc := range []struct {
		s    string
		cols int
		want string
	}{
		{"hello world", 20, "hello world"},
		{"hello world", 6, "hello…"},
		{"日本語のテキスト", 7, "日本語…"},
		{"👍🏽👍🏽👍🏽", 5, "👍🏽👍🏽…"},
		{"abc", 0, "abc"},
	} {
		if got := Truncate(tc.s, tc.cols); got != tc.want || Width(got) > max(tc.cols, Width(tc.s)) {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.s, tc.cols, got, tc.want)
		}
	}
}

func TestWrapAtWords(t *testing.T) {
	for _, tc := range []struct {
		s    string
		cols int
		want []string
	}{
		{"implement the parser for the config", 12, []string{"implement", "the parser", "for the", "config"}},
		{"short", 12, []string{"short"}},
		{"averyveryverylongword here", 10, []string{"averyveryv", "erylongwor", "d here"}},
		{"日本語のテキストを折り返す", 8, []string{"日本語の", "テキスト", "を折り返", "す"}},
	} {
		got := Wrap(tc.s, tc.cols)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tc.s, tc.cols, got, tc.want)
		}
		for _, l := range got {
			if Width(l) > tc.cols {
				t.Errorf("Wrap(%q, %d): line %q is %d columns", tc.s, tc.cols, l, Width(l))
			}
		}
	}
}

// TestFormatListWidth checks that every line fits, CJK and emoji items
// align their notes by display width, and wrapped text hangs under the
// item's text.
func TestFormatListWidth(t *testing.T) {
	todos := []Todo{
		{Content: "Implement the parser for the configuration file format", Status: InProgress},
		{Content: "日本語のドキュメントを書く", Status: InProgress},
		{Content: "Ship it 🚀", Status: InProgress},
		{Content: "Tests", Status: Pending, Subtasks: []Subtask{{Content: "edge cases with a rather long description", Status: Completed}, {Content: "fuzz", Status: Pending}}},
	}
	Normalize(todos)
	for _, cols := range []int{20, 40, 120} {
		out := FormatListWidth(todos, cols)
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if Width(l) > cols {
				t.Errorf("at %d columns line %q is %d wide:\n%s", cols, l, Width(l), out)
			}
		}
	}
	out := FormatListWidth(todos, 120)
	var notes []int
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, "(in progress"); i >= 0 {
			notes = append(notes, Width(l[:i]))
		}
	}
	if len(notes) != 4 || notes[0] < noteColumn || notes[1] != noteColumn || notes[2] != noteColumn || notes[3] != noteColumn {
		t.Errorf("notes start at columns %v, want the two short items at %d:\n%s", notes, noteColumn, out)
	}
	out = FormatListWidth(todos, 40)
	want := " 1. ▸ Implement the parser for the\n" +
		"      configuration file format\n" +
		"      (in progress)\n"
	if !strings.Contains(out, want) {
		t.Errorf("at 40 columns item 1 is not wrapped under its text:\n%s", out)
	}
	if FormatList(todos) != FormatListWidth(todos, 0) {
		t.Error("FormatList is not FormatListWidth(0)")
	}
}

// FuzzWrap: every wrapped line fits (a grapheme wider than the line
// aside), and no text is lost but the spaces at the breaks.
func FuzzWrap(f *testing.F) {
	for _, s := range []string{"implement the parser", "日本語のテキスト", "👍🏽 ok", "a  b   c", "averyveryverylongword"} {
		f.Add(s, 8)
	}
	f.Fuzz(func(t *testing.T, s string, cols int) {
		s = DisplayLine(s)
		cols = 1 + abs(cols%60)
		lines := Wrap(s, cols)
		for _, l := range lines {
			if Width(l) > cols && Width(l) > 2 {
				t.Fatalf("Wrap(%q, %d): line %q is %d wide", s, cols, l, Width(l))
			}
		}
		if got, want := strings.ReplaceAll(strings.Join(lines, ""), " ", ""), strings.ReplaceAll(s, " ", ""); got != want {
			t.Fatalf("Wrap(%q, %d) lost text: %q", s, cols, lines)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestFoldList: a list too long for the live region folds its done items
// first, then the open items at the end, and never exceeds its lines.
func TestFoldList(t *testing.T) {
	var todos []Todo
	for i := range 30 {
		st := Pending
		if i < 10 {
			st = Completed
		}
		todos = append(todos, Todo{Content: fmt.Sprintf("item number %d", i+1), Status: st})
	}
	for _, max := range []int{3, 8, 25, 40} {
		out := FoldList(todos, 40, max)
		n := strings.Count(out, "\n")
		if n > max && max < 31 {
			t.Errorf("FoldList(max %d) has %d lines:\n%s", max, n, out)
		}
		if max < 31 && !strings.Contains(out, "10 items done or cancelled (folded)") {
			t.Errorf("FoldList(max %d) did not fold the done items:\n%s", max, out)
		}
		if max == 8 && (!strings.Contains(out, "11. ○ item number 11") || !strings.Contains(out, "… 15 more open")) {
			t.Errorf("FoldList(max 8) should keep positions and count the rest:\n%s", out)
		}
	}
	if out := FoldList(todos[:3], 40, 10); out != FormatListWidth(todos[:3], 40) {
		t.Errorf("a list that fits is not folded:\n%s", out)
	}
}
