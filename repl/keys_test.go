package repl

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTranslateKeys checks each rewrite readline needs, and that keys
// split across reads come out the same.
func TestTranslateKeys(t *testing.T) {
	long := strings.Repeat("x", bulkText)
	tests := []struct {
		name, in, want string
		pastes         []string
	}{
		{"plain keys pass", "ab\r", "ab\r", nil},
		{"Home tmux", "a\x1b[1~b", "a\x01b", nil},
		{"End tmux", "\x1b[4~", "\x05", nil},
		{"Home rxvt", "\x1b[7~", "\x01", nil},
		{"End rxvt", "\x1b[8~", "\x05", nil},
		{"xterm Home left to readline", "\x1b[H\x1b[F", "\x1b[H\x1b[F", nil},
		{"Delete left to readline", "\x1b[3~", "\x1b[3~", nil},
		{"arrows left to readline", "\x1b[A\x1b[D", "\x1b[A\x1b[D", nil},
		{"Alt-Enter is a line break", "one\x1b\rtwo\r", "one␤two\r", nil},
		{"bracketed paste is one block", "\x1b[200~line one\nline two\r\n/todo clear\x1b[201~\r",
			"\uE000\r", []string{"line one␤line two␤/todo clear"}},
		{"control keys in a paste are text", "\x1b[200~a\x03b\tc\x1b[1~\x1b[201~", "\uE000", []string{"a b    c [1~"}},
		{"long typed run is one block", long + "\r", "\uE000\r", []string{long}},
		{"short run stays keys", "hello", "hello", nil},
	}
	for _, tt := range tests {
		for _, split := range []int{0, 1, 3, 7} {
			var out []byte
			var pastes []string
			var rest []byte
			inPaste := false
			var paste strings.Builder
			in := []byte(tt.in)
			// Feed the input in pieces of split bytes (0: at once).
			for len(in) > 0 || len(rest) > 0 {
				n := len(in)
				if split > 0 {
					n = min(split, len(in))
				}
				chunk := append(rest, in[:n]...)
				in = in[n:]
				var o []byte
				var p []string
				o, p, rest, inPaste = translateKeys(chunk, inPaste, &paste)
				out = append(out, o...)
				pastes = append(pastes, p...)
				if n == 0 {
					break
				}
			}
			if split > 0 && split < bulkText && strings.HasPrefix(tt.name, "long") {
				continue // typed slowly, a long run is keys
			}
			if string(out) != tt.want || strings.Join(pastes, "|") != strings.Join(tt.pastes, "|") {
				t.Errorf("%s (pieces of %d): out %q pastes %q; want %q %q", tt.name, split, out, pastes, tt.want, tt.pastes)
			}
		}
	}
}

func TestInsertPastes(t *testing.T) {
	f := &keyFilter{pastes: []string{"PASTE"}}
	line := []rune("ab\uE000cd")
	got, pos, ok := f.insertPastes(line, 3)
	if !ok || string(got) != "abPASTEcd" || pos != 7 {
		t.Errorf("insertPastes = %q, %d, %v; want abPASTEcd, 7, true", string(got), pos, ok)
	}
	f.pastes = []string{"lost", "next"}
	if _, _, ok := f.insertPastes([]rune("plain"), 2); ok {
		t.Error("a line without a paste mark was changed")
	}
	if got, _, _ := f.insertPastes([]rune("\uE000"), 1); string(got) != "next" {
		t.Errorf("after a mark that went elsewhere the next paste is %q, want next", string(got))
	}
	if sentLine("a␤b") != "a\nb" {
		t.Error("newline marks are not sent as line breaks")
	}
}

// FuzzTranslateKeys: whatever arrives, the output is valid where the
// input was, a paste never contains a control character, and nothing is
// kept back but a short incomplete sequence.
func FuzzTranslateKeys(f *testing.F) {
	for _, s := range []string{"ab\r", "\x1b[200~x\ny\x1b[201~", "\x1b[1~\x1b[4~", "\x1b\r", "\x1b[20", strings.Repeat("é", 70)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var paste strings.Builder
		_, pastes, rest, inPaste := translateKeys(in, false, &paste)
		for _, p := range pastes {
			for _, r := range p {
				if r < 0x20 || r == 0x7f {
					t.Fatalf("paste %q holds control character %U", p, r)
				}
			}
		}
		if !inPaste && len(rest) > len(pasteStart) {
			t.Fatalf("kept back %q", rest)
		}
		if utf8.Valid(in) {
			for _, p := range pastes {
				if !utf8.ValidString(p) {
					t.Fatalf("paste %q of valid input is not UTF-8", p)
				}
			}
		}
	})
}
