package continuation

import "testing"

func TestEndsWithQuestion(t *testing.T) {
	tests := []struct {
		name, text string
		want       bool
	}{
		{"empty", "", false},
		{"blank", " \n\t\n", false},
		{"plain question", "Should I continue?", true},
		{"statement", "I fixed the parser.", false},
		{"trailing white space", "Should I continue?  \n\n\t", true},
		{"question then statement", "Should I continue? I will assume yes.", false},
		{"question on an earlier line", "Should I continue?\nContinuing with item 2.", false},
		{"last line of several", "Done with item 1.\n\nWhich database should item 2 use?", true},
		{"bold", "**Shall I run the migration?**", true},
		{"italic", "_Want me to go on?_", true},
		{"closing double quote", `He asked "is that right?"`, true},
		{"closing curly quote", "“Is that right?”", true},
		{"closing guillemet", "«Ça va ?»", true},
		{"in parentheses", "I kept the old API (or should it go?)", true},
		{"heading", "## Next steps?", true},
		{"list item", "- Do you want CSV or JSON?", true},
		{"block quote", "> Which one?", true},
		{"fullwidth question mark", "これでいいですか？", true},
		{"question mark mid-word", "Use the ?flag option.", false},
		{"interrobang is not ours", "Really‽", false},
		{"emoji after the question", "Shall I go on? 🙂", false},
		{"exclamation", "All tests pass!", false},
		{"CRLF endings", "Shall I commit?\r\n", true},
		{"code block after a question", "Should I apply this patch?\n\n```diff\n-a\n+b\n```\n", true},
		{"question inside a code block", "Here is the regex:\n```\n^ab?\n```", false},
		{"question-like code after prose", "Here is the fix.\n```js\nconst x = ok ? 1 : 2; // why?\n```", false},
		{"tilde fence", "Here:\n~~~\nwhat?\n~~~", false},
		{"unclosed fence", "Run this:\n```sh\nls foo?", false},
		{"unclosed fence after a question", "Shall I run it?\n```sh\nls foo?", true},
		{"longer closing fence", "Is this ok?\n````\n```\nnot a close?\n````", true},
		{"shorter fence does not close", "Done.\n````\ncode\n```\nstill code?", false},
		{"fence closed, prose after", "```\nx?\n```\nWhat do you think?", true},
		{"indented fence", "Look:\n   ```\n   a?\n   ```\nDone.", false},
		{"inline code with a question mark", "Run `ls foo?`", false},
		{"inline code then question", "Should I run `make test`?", true},
		{"double backtick span", "Try ``a`b?``", false},
		{"unmatched backtick", "Is it `x?", true},
		{"trailing backtick after question", "Is it done?`", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EndsWithQuestion(tt.text); got != tt.want {
				t.Fatalf("EndsWithQuestion(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}
