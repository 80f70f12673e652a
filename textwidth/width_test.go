package textwidth

import (
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
