package continuation

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// EndsWithQuestion reports whether a reply ends by asking the person a
// question: its last line of prose, once trailing markdown and closing quotes
// are trimmed, ends with a question mark. Fenced code blocks are not prose
// (a '?' in a regex or a shell glob is no question), so a question followed
// only by code still counts; inline code spans are dropped for the same
// reason. It is a heuristic on purpose: cheap, predictable and testable.
func EndsWithQuestion(text string) bool {
	line := lastProseLine(text)
	line = stripInlineCode(line)
	line = strings.TrimRightFunc(line, isTrailingNoise)
	r, _ := utf8.DecodeLastRuneInString(line)
	return r == '?' || r == '？'
}

// lastProseLine returns the last non-blank line of text that is outside
// fenced code blocks (``` or ~~~, closed by a fence of the same character at
// least as long; an unclosed fence runs to the end, as in CommonMark).
func lastProseLine(text string) string {
	var last string
	var fence string // the opening fence while inside a code block
	for line := range strings.Lines(text) {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if f := openingFence(trimmed); f != "" {
			fence = f
			continue
		}
		if trimmed != "" {
			last = trimmed
		}
	}
	return last
}

// openingFence returns the run of three or more backticks or tildes that
// opens a code block on this (trimmed) line, or "".
func openingFence(trimmed string) string {
	for _, c := range []string{"`", "~"} {
		n := len(trimmed) - len(strings.TrimLeft(trimmed, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// stripInlineCode removes `code spans` from a line; an unmatched backtick is
// left alone and later trimmed as markdown if it is trailing.
func stripInlineCode(line string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			break
		}
		n := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
		closing := strings.Index(line[i+n:], line[i:i+n])
		if closing < 0 {
			break
		}
		b.WriteString(line[:i])
		line = line[i+n+closing+n:]
	}
	b.WriteString(line)
	return b.String()
}

// isTrailingNoise reports whether a rune may follow the question mark of a
// question without changing it: white space, markdown emphasis, closing
// quotes and brackets ("**Shall I go on?**", “Is that right?”, (or not?)).
func isTrailingNoise(r rune) bool {
	if unicode.IsSpace(r) {
		return true
	}
	return strings.ContainsRune("*_~`\"')]»›”’」』", r)
}
