package repl

import (
	"strings"
	"unicode/utf8"
)

// completer adapts the registry's whole-line completion to readline's
// AutoCompleter, which wants the suffixes to insert and how many runes
// before the cursor the shown candidates repeat.
type completer struct {
	complete func(line string) []string
}

// Do is readline's AutoCompleter: it completes the text before the cursor.
func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	head := string(line[:pos])
	return suffixes(head, c.complete(head))
}

// suffixes turns whole-line candidates for head into the runes readline
// inserts after the cursor. Candidates that do not extend head, or whose
// rest is not whole UTF-8 runes (readline edits runes), are dropped. The length is that of the word being completed, so a list of
// several candidates shows words ("add", "delete"), not whole lines.
func suffixes(head string, candidates []string) ([][]rune, int) {
	var out [][]rune
	for _, c := range candidates {
		if strings.HasPrefix(c, head) && utf8.ValidString(c[len(head):]) {
			out = append(out, []rune(c[len(head):]))
		}
	}
	word := head[strings.LastIndexAny(head, " \t")+1:]
	return out, utf8.RuneCountInString(word)
}
