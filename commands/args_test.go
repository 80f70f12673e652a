package commands

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitArgs(t *testing.T) {
	unbalanced := errUnbalancedQuote.Error()
	backslash := errTrailingBackslash.Error()
	tests := []struct {
		line    string
		n       int
		words   []string
		text    string
		wantErr string
	}{
		// Free text survives exactly as typed, whatever shlex would do to it.
		{line: `/todo add last fix #123 and don't break \n parsing`, n: 3,
			words: []string{"/todo", "add", "last"}, text: `fix #123 and don't break \n parsing`},
		{line: `/todo add # not a comment`, n: 2, words: []string{"/todo", "add"}, text: "# not a comment"},
		{line: `/todo add a "b c" 'd' \e`, n: 2, words: []string{"/todo", "add"}, text: `a "b c" 'd' \e`},
		{line: "/todo add  inner   spaces  kept \t", n: 2, words: []string{"/todo", "add"}, text: "inner   spaces  kept"},
		{line: `/todo add C:\dir\file`, n: 2, words: []string{"/todo", "add"}, text: `C:\dir\file`},
		{line: `/todo add it's`, n: 2, words: []string{"/todo", "add"}, text: `it's`},
		{line: `/todo add say "hi`, n: 2, words: []string{"/todo", "add"}, text: `say "hi`},
		{line: `/todo add ends with \`, n: 2, words: []string{"/todo", "add"}, text: `ends with \`},
		// A text wholly in quotes is unquoted.
		{line: `/todo add last "2 apples"`, n: 3, words: []string{"/todo", "add", "last"}, text: "2 apples"},
		{line: `/todo add '2 apples'`, n: 2, words: []string{"/todo", "add"}, text: "2 apples"},
		{line: `/todo add "a\nb"`, n: 2, words: []string{"/todo", "add"}, text: `a\nb`},
		{line: `/todo add "say \"hi\" \\ \x"`, n: 2, words: []string{"/todo", "add"}, text: `say "hi" \ \x`},
		{line: `/todo add 'single \ and "double"'`, n: 2, words: []string{"/todo", "add"}, text: `single \ and "double"`},
		{line: `/todo add "#123"`, n: 2, words: []string{"/todo", "add"}, text: `#123`},
		{line: `/todo add ""`, n: 2, words: []string{"/todo", "add"}, text: ""},
		{line: `/todo add "  padded  "`, n: 2, words: []string{"/todo", "add"}, text: "  padded  "},
		// Quoted at the start but not wholly: kept as typed.
		{line: `/todo add "2 apples" and pears`, n: 2, words: []string{"/todo", "add"}, text: `"2 apples" and pears`},
		{line: `/todo add 'don't'`, n: 2, words: []string{"/todo", "add"}, text: `'don't'`},
		{line: `/todo add "a" "b"`, n: 2, words: []string{"/todo", "add"}, text: `"a" "b"`},
		// Unbalanced quote at the start of the text, or in a word.
		{line: `/todo add "unclosed`, n: 2, words: []string{"/todo", "add"}, wantErr: unbalanced},
		{line: `/todo add 'unclosed`, n: 2, words: []string{"/todo", "add"}, wantErr: unbalanced},
		{line: `/todo add "a\"`, n: 2, words: []string{"/todo", "add"}, wantErr: unbalanced},
		{line: `/todo delete "1`, n: 3, words: []string{"/todo", "delete"}, wantErr: unbalanced},
		{line: `/todo de'lete 1`, n: 3, words: []string{"/todo"}, wantErr: unbalanced},
		{line: `/todo delete 1\`, n: 3, words: []string{"/todo", "delete"}, wantErr: backslash},
		// Words are unquoted by shlex; a leading # is literal, not a comment.
		{line: `/todo "delete" '1'`, n: 3, words: []string{"/todo", "delete", "1"}},
		{line: `/todo del"ete" 1`, n: 3, words: []string{"/todo", "delete", "1"}},
		{line: `/todo a\ b`, n: 2, words: []string{"/todo", "a b"}},
		{line: `/todo #x`, n: 2, words: []string{"/todo", "#x"}},
		{line: `/todo a#b`, n: 2, words: []string{"/todo", "a#b"}},
		{line: `/todo "a\nb"`, n: 2, words: []string{"/todo", "anb"}}, // shlex's rule, for words only
		// Fewer words than asked for.
		{line: "/todo", n: 3, words: []string{"/todo"}},
		{line: "   ", n: 3, words: nil},
		{line: "", n: 0, words: nil},
		{line: "\t/todo\r\n", n: 1, words: []string{"/todo"}},
	}
	for _, tc := range tests {
		words, text, err := SplitArgs(tc.line, tc.n)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("SplitArgs(%q, %d) error = %v, want %q", tc.line, tc.n, err, tc.wantErr)
			}
		} else if err != nil {
			t.Errorf("SplitArgs(%q, %d): %v", tc.line, tc.n, err)
		} else if text != tc.text {
			t.Errorf("SplitArgs(%q, %d) text = %q, want %q", tc.line, tc.n, text, tc.text)
		}
		if !reflect.DeepEqual(words, tc.words) {
			t.Errorf("SplitArgs(%q, %d) words = %q, want %q", tc.line, tc.n, words, tc.words)
		}
	}
}

func TestArgsWordSpans(t *testing.T) {
	line := `  /todo  "add it"  last  rest of it `
	a := NewArgs(line)
	var raws []string
	for i := 0; i < 3; i++ {
		w, ok, err := a.Next()
		if err != nil || !ok {
			t.Fatalf("word %d: ok=%v err=%v", i, ok, err)
		}
		if line[w.Start:w.End] != w.Raw {
			t.Errorf("word %d: span %d-%d is %q, Raw %q", i, w.Start, w.End, line[w.Start:w.End], w.Raw)
		}
		raws = append(raws, w.Raw)
	}
	if want := []string{"/todo", `"add it"`, "last"}; !reflect.DeepEqual(raws, want) {
		t.Errorf("raw words = %q, want %q", raws, want)
	}
	if got := a.Rest(); got != "rest of it" {
		t.Errorf("Rest = %q", got)
	}
	if p, _, _ := a.Peek(); p.Value != "rest" {
		t.Errorf("Peek = %q", p.Value)
	}
	if a.Done() {
		t.Error("Done before the text was taken")
	}
	if text, err := a.Text(); err != nil || text != "rest of it" {
		t.Errorf("Text = %q, %v", text, err)
	}
	if !a.Done() {
		t.Error("not Done after Text")
	}
	if _, ok, _ := a.Next(); ok {
		t.Error("a word after Text")
	}
}

// TestWordsAgreeWithShlex checks the word scanner against shlex itself on
// lines without '#', where the two must split identically.
func TestWordsAgreeWithShlex(t *testing.T) {
	for _, line := range []string{
		`a b c`, `"a b" c`, `'a b'c "d"e`, `a\ b`, `"a\"b"`, `'a\'`, "a\tb\nc\rd", `"" ''`, `x"y z"w`,
	} {
		checkAgainstShlex(t, line)
	}
}

func checkAgainstShlex(t *testing.T, line string) {
	t.Helper()
	if strings.Contains(line, "#") {
		return
	}
	want, shErr := shlexSplit(line)
	var got []string
	a := NewArgs(line)
	var err error
	for {
		var w Word
		var ok bool
		w, ok, err = a.Next()
		if err != nil || !ok {
			break
		}
		got = append(got, w.Value)
	}
	if (err != nil) != (shErr != nil) {
		t.Errorf("%q: scanner error %v, shlex error %v", line, err, shErr)
		return
	}
	if err == nil && !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("%q: scanner words %q, shlex words %q", line, got, want)
	}
}

// TestAddQuotesAlike (issue 16): the quotes of /todo add follow one rule
// whatever the first word is. After a position the text is unquoted when
// wholly quoted; a first word that is text ("1e3", "2nd", "hello") starts
// the text, which is kept as typed, inner quotes and all, so
// /todo add 1e3 "t" stores what /todo add hello "t" stores; to unquote,
// quote the whole text.
func TestAddQuotesAlike(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{`/todo add "t"`, `t`},
		{`/todo add 1 "t"`, `t`},
		{`/todo add last "t"`, `t`},
		{`/todo add 1e3 "t"`, `1e3 "t"`},
		{`/todo add 2nd "t"`, `2nd "t"`},
		{`/todo add hello "t"`, `hello "t"`},
		{`/todo add 1e3 't'`, `1e3 't'`},
		{`/todo add "1e3 t"`, `1e3 t`},
		{`/todo add '1e3 "t"'`, `1e3 "t"`},
		{`/todo add last "1e3 t"`, `1e3 t`},
	} {
		env, _ := newTestEnv(t)
		if err := NewRegistry().Run(env, tt.line); err != nil {
			t.Errorf("%s: %v", tt.line, err)
			continue
		}
		if sess := mustLoad(t, env); len(sess.Todos) != 1 || sess.Todos[0].Content != tt.want {
			t.Errorf("%s stored %+v, want %q", tt.line, sess.Todos, tt.want)
		}
	}
}
