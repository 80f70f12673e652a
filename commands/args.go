package commands

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/shlex"
)

// spaceChars are exactly the separators shlex uses, so that the word
// boundaries found here and the words shlex decodes always agree.
const spaceChars = " \t\r\n"

// errUnbalancedQuote and errTrailingBackslash are the two ways a command
// line cannot be split into words.
var (
	errUnbalancedQuote   = errors.New(`unbalanced quote: close it, or quote the whole text ("..." or '...')`)
	errTrailingBackslash = errors.New(`the line ends with a backslash: remove it or quote the text`)
)

func isSpace(c byte) bool { return strings.IndexByte(spaceChars, c) >= 0 }

// Word is one word of a command line: its value after shell-style unquoting
// (by shlex) and the bytes it was typed as, line[Start:End].
type Word struct {
	Value      string
	Raw        string
	Start, End int
}

// Args walks a command line word by word. Command words and positions are
// taken as words; whatever a command takes after them is free text, sliced
// off the line as typed, because shlex would drop "#..." as a comment and
// rewrite backslashes inside double quotes.
type Args struct {
	line string
	pos  int
}

// NewArgs starts walking line at its first word.
func NewArgs(line string) *Args { return &Args{line: line} }

// Next consumes and returns the next word; ok is false when only
// whitespace is left. An unclosed quote or a trailing backslash is an error
// and consumes nothing.
func (a *Args) Next() (w Word, ok bool, err error) {
	w, ok, err = a.Peek()
	if ok && err == nil {
		a.pos = w.End
	}
	return w, ok, err
}

// Peek returns the next word without consuming it.
func (a *Args) Peek() (Word, bool, error) {
	start, end, err := scanWord(a.line, a.pos)
	if start == len(a.line) {
		return Word{}, false, nil
	}
	if err != nil {
		return Word{}, true, err
	}
	raw := a.line[start:end]
	value, err := shlexWord(raw)
	if err != nil {
		return Word{}, true, err
	}
	return Word{Value: value, Raw: raw, Start: start, End: end}, true, nil
}

// Words consumes every word left, unquoted, for commands that take only
// words (no free text).
func (a *Args) Words() ([]string, error) {
	var words []string
	for {
		w, ok, err := a.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return words, nil
		}
		words = append(words, w.Value)
	}
}

// Done reports whether only whitespace is left.
func (a *Args) Done() bool { return a.Rest() == "" }

// Rest is what is left of the line, as typed, without surrounding
// whitespace; it does not consume it.
func (a *Args) Rest() string { return strings.Trim(a.line[a.pos:], spaceChars) }

// Text consumes the rest of the line as free text: as typed, except that a
// text wholly enclosed in one pair of quotes is unquoted. A text that starts
// with a quote that is never closed is an error.
func (a *Args) Text() (string, error) {
	rest := a.Rest()
	text, err := unquoteText(rest)
	if err != nil {
		return "", err
	}
	a.pos = len(a.line)
	return text, nil
}

// SplitArgs splits line into at most n leading words (shell-style, by
// shlex) and the free text after them (as typed, see Args.Text). It is the
// pure core of how every command reads its arguments.
func SplitArgs(line string, n int) (words []string, text string, err error) {
	a := NewArgs(line)
	for len(words) < n {
		w, ok, err := a.Next()
		if err != nil {
			return words, "", err
		}
		if !ok {
			return words, "", nil
		}
		words = append(words, w.Value)
	}
	text, err = a.Text()
	return words, text, err
}

// scanWord finds the word that starts at the first non-space byte at or
// after from, following shlex's rules for quotes and backslashes (a
// backslash escapes any byte outside single quotes; '...' is literal).
// start == len(line) means no word is left.
func scanWord(line string, from int) (start, end int, err error) {
	i := from
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	start = i
	for i < len(line) {
		switch c := line[i]; {
		case isSpace(c):
			return start, i, nil
		case c == '\\':
			if i+1 == len(line) {
				return start, len(line), errTrailingBackslash
			}
			i += 2
		case c == '\'', c == '"':
			j := closingQuote(line, i)
			if j < 0 {
				return start, len(line), errUnbalancedQuote
			}
			i = j + 1
		default:
			i++
		}
	}
	return start, i, nil
}

// closingQuote returns the index of the quote that closes the one at
// line[open], or -1. Inside double quotes a backslash escapes the next
// byte, as in shlex; inside single quotes nothing is special.
func closingQuote(line string, open int) int {
	q := line[open]
	if q == '\'' {
		if j := strings.IndexByte(line[open+1:], '\''); j >= 0 {
			return open + 1 + j
		}
		return -1
	}
	for j := open + 1; j < len(line); j++ {
		switch line[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

// shlexWord decodes one complete word with shlex. A leading '#' would make
// shlex read a comment, so it is escaped: todosh's commands have no
// comments, and free text never reaches shlex.
func shlexWord(raw string) (string, error) {
	in := raw
	if strings.HasPrefix(in, "#") {
		in = `\` + in
	}
	parts, err := shlex.Split(in)
	if err != nil {
		return "", fmt.Errorf("split %q: %w", raw, err)
	}
	if len(parts) != 1 {
		return "", fmt.Errorf("split %q: %d words where one was expected", raw, len(parts))
	}
	return parts[0], nil
}

// unquoteText removes the quotes around a text wholly enclosed in "..." or
// '...'. In double quotes only \" and \\ are escapes, so "a\nb" keeps its
// backslash. A text that merely starts with a quoted part ("2 apples" and
// pears) is kept as typed; one whose opening quote is never closed is an
// error.
func unquoteText(s string) (string, error) {
	if s == "" || (s[0] != '"' && s[0] != '\'') {
		return s, nil
	}
	end := closingQuote(s, 0)
	if end < 0 {
		return "", errUnbalancedQuote
	}
	if end != len(s)-1 {
		return s, nil
	}
	inner := s[1:end]
	if s[0] == '\'' || !strings.Contains(inner, `\`) {
		return inner, nil
	}
	var b strings.Builder
	for i := 0; i < len(inner); i++ {
		if inner[i] == '\\' && i+1 < len(inner) && (inner[i+1] == '"' || inner[i+1] == '\\') {
			i++
		}
		b.WriteByte(inner[i])
	}
	return b.String(), nil
}
