package todostore

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// NeutraliseDelimiter keeps text meant for a model inside its delimited
// block: every '<' (or its fullwidth or small form) that starts a spelling of
// the delimiter's letters, in any case and with white space, slashes, dashes
// or underscores before and between them ("</todo-list>", "< / TODO _ lis t"),
// becomes '‹'. letters is the delimiter's name in lower case without
// separators, such as "todolist".
func NeutraliseDelimiter(body, letters string) string {
	var b strings.Builder
	for len(body) > 0 {
		r, n := utf8.DecodeRuneInString(body)
		if (r == '<' || r == '\uFF1C' || r == '\uFE64') && spellsLetters(body[n:], letters) {
			b.WriteRune('‹')
		} else {
			b.WriteString(body[:n]) // invalid UTF-8 passes through unchanged
		}
		body = body[n:]
	}
	return b.String()
}

// spellsLetters reports whether s starts with want's letters, separators
// allowed anywhere among them.
func spellsLetters(s, want string) bool {
	for _, r := range s {
		if want == "" {
			return true
		}
		switch {
		case unicode.IsSpace(r) || strings.ContainsRune(delimiterSeparators, r):
		case unicode.ToLower(r) == rune(want[0]):
			want = want[1:]
		default:
			return false
		}
	}
	return want == ""
}

// delimiterSeparators may appear inside a delimiter without changing how a
// model reads it: slashes and dashes in their ASCII, Unicode and fullwidth
// forms, and underscores.
const delimiterSeparators = "/\uFF0F\u2215-_\u2010\u2011\u2012\u2013\u2014\u2015\u2212\uFE63\uFF0D"
