package todolist

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// StatusMarks are the one-character markers of the list format (ARCHITECTURE.md §6).
var StatusMarks = map[Status]string{
	Pending:    "○",
	InProgress: "▸",
	Completed:  "✓",
	Cancelled:  "✗",
}

// DisplayLine makes text from an agent, a file or the person safe to print
// as (part of) one terminal line: line breaks, tabs, other control
// characters (ESC above all, which could retitle or clear the terminal) and
// bidirectional overrides each become a space, and a byte that is not UTF-8
// becomes "?". The result is never longer than s, so callers can cut lines
// to a byte limit first. The stored text is unchanged.
func DisplayLine(s string) string {
	clean := true
	for i := 0; i < len(s) && clean; {
		if c := s[i]; c < utf8.RuneSelf { // ASCII, most text: no decoding
			clean = c >= 0x20 && c != 0x7f
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		clean = r != utf8.RuneError && !IsDisplayControl(r)
		i += n
	}
	if clean {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteByte('?')
		case IsDisplayControl(r):
			b.WriteByte(' ')
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// IsDisplayControl reports runes a terminal would act on instead of show,
// or that would start a new line in a reader's eyes.
func IsDisplayControl(r rune) bool {
	if r < 0x061c { // below the first bidirectional control: C0, DEL and C1 only
		return r < 0x20 || r >= 0x7f && r < 0xa0
	}
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r)
}

// ShortLine is DisplayLine for one-line summaries and error messages: runs
// of white space also collapse to one space, and the result is cut to at
// most n characters, ending in "…" when cut (n <= 0 cuts nothing).
func ShortLine(s string, n int) string {
	s = strings.Join(strings.Fields(DisplayLine(s)), " ")
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// Plural counts a noun for a message: "1 item", "3 items".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// AndList joins words as a sentence does: "a", "a and b", "a, b and c".
func AndList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
