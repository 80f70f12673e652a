package textwidth_test

import (
	"strings"
	"testing"

	"github.com/todosh/todosh/textwidth"
	"github.com/todosh/todosh/todolist"
)

// FuzzWrap: every wrapped line fits (a grapheme wider than the line
// aside), and no text is lost but the spaces at the breaks.
func FuzzWrap(f *testing.F) {
	for _, s := range []string{"implement the parser", "日本語のテキスト", "👍🏽 ok", "a  b   c", "averyveryverylongword"} {
		f.Add(s, 8)
	}
	f.Fuzz(func(t *testing.T, s string, cols int) {
		s = todolist.DisplayLine(s)
		cols = 1 + abs(cols%60)
		lines := textwidth.Wrap(s, cols)
		for _, l := range lines {
			if textwidth.Width(l) > cols && textwidth.Width(l) > 2 {
				t.Fatalf("Wrap(%q, %d): line %q is %d wide", s, cols, l, textwidth.Width(l))
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
