package repl

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzTypedText checks that what the countdown keeps of the keys read is
// a printable prefix of them, whatever bytes the terminal sends.
func FuzzTypedText(f *testing.F) {
	for _, s := range []string{"h", "hello", "\x1b[A", "\x03", "ab\rcd", "é✓", "\xff\xfe", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, keys []byte) {
		got := typedText(keys)
		noEnters := strings.NewReplacer("\r", "", "\n", "").Replace(string(keys))
		if !strings.HasPrefix(noEnters, strings.ReplaceAll(got, "\n", "")) || strings.Contains(got, "\n\n") || strings.HasPrefix(got, "\n") {
			t.Fatalf("typedText(%q) = %q, not a prefix", keys, got)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("typedText(%q) = %q, not UTF-8", keys, got)
		}
		for _, r := range got {
			if !unicode.IsPrint(r) && r != '\n' {
				t.Fatalf("typedText(%q) = %q, holds %U", keys, got, r)
			}
		}
	})
}

// FuzzSuffixes checks the completion adapter: every suffix it returns
// completes the line to one of the candidates, and the length it reports
// never reaches before the line's start.
func FuzzSuffixes(f *testing.F) {
	f.Add("/to", "/todo ", "/help")
	f.Add("/todo a", "/todo add ", "/todo clear")
	f.Add("", "/help", "/todo")
	f.Add("/todo add ✓", "/todo add ✓x", "x")
	f.Fuzz(func(t *testing.T, head, c1, c2 string) {
		got, length := suffixes(head, []string{c1, c2})
		if length < 0 || length > utf8.RuneCountInString(head) {
			t.Fatalf("suffixes(%q): length %d outside 0..%d", head, length, utf8.RuneCountInString(head))
		}
		for _, s := range got {
			if line := head + string(s); line != c1 && line != c2 {
				t.Fatalf("suffixes(%q, %q, %q): %q completes to %q, not a candidate", head, c1, c2, string(s), line)
			}
		}
	})
}
