package commands

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/todosh/todosh/todolist"

	"github.com/google/shlex"
)

func shlexSplit(s string) ([]string, error) { return shlex.Split(s) }

// FuzzParsePosition: no panic; a parsed position prints as typed and
// resolves against lists without panicking, within their bounds.
func FuzzParsePosition(f *testing.F) {
	for _, s := range []string{"1", "last", "2.1", "2.last", "0", "1.0", "99999999999999999999", "1.", ".1", "x", "-1", "1.2.3", "last.1"} {
		f.Add(s)
	}
	lists := [][]todolist.Todo{{}, parseSpec(f, "-a"), parseSpec(f, "-a;-b|[ ]b1|[x]b2;-c")}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePosition(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
				t.Fatalf("error adds a line break: %q", err)
			}
			return
		}
		if p.String() != s {
			t.Fatalf("String() = %q, want %q", p.String(), s)
		}
		for _, todos := range lists {
			if item, sub, err := p.Target(todos); err == nil {
				if item < 0 || item >= len(todos) || sub < -1 || (sub >= 0 && sub >= len(todos[item].Subtasks)) {
					t.Fatalf("Target(%q) = %d, %d out of bounds", s, item, sub)
				}
			}
			if item, sub, err := p.InsertAt(todos); err == nil {
				if sub == -1 && (item < 0 || item > len(todos)) {
					t.Fatalf("InsertAt(%q) = %d out of bounds", s, item)
				}
				if sub >= 0 && (item < 0 || item >= len(todos) || sub > len(todos[item].Subtasks)) {
					t.Fatalf("InsertAt(%q) = %d, %d out of bounds", s, item, sub)
				}
			}
		}
	})
}

// FuzzSplitArgs: no panic; free text that was not unquoted is a piece of
// the line as typed, trimmed; on comment-free lines the word scanner
// agrees with shlex.
func FuzzSplitArgs(f *testing.F) {
	for _, s := range []string{
		`/todo add last fix #123 and don't break \n parsing`,
		`/todo add last "2 apples"`, `/todo add 'x'`, `/todo add "unclosed`, `/todo "a\"b" c`,
		`/todo delete 1\`, `a\ b 'c d' "e\\f"`, "\t/todo\r\n", `"" ''`, "#x", "\xff\"",
	} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, line string, n int) {
		n = ((n % 4) + 4) % 4
		words, text, err := SplitArgs(line, n)
		if len(words) > n {
			t.Fatalf("%d words, asked for %d", len(words), n)
		}
		a := NewArgs(line)
		for i := 0; i < len(words); i++ {
			w, ok, err := a.Next()
			if err != nil || !ok || w.Value != words[i] || line[w.Start:w.End] != w.Raw {
				t.Fatalf("word %d: %+v ok=%v err=%v, SplitArgs gave %q", i, w, ok, err, words[i])
			}
		}
		if err == nil {
			rest := a.Rest()
			if !strings.Contains(line, rest) || strings.Trim(rest, spaceChars) != rest {
				t.Fatalf("rest %q is not a trimmed piece of %q", rest, line)
			}
			if text != rest {
				q := rest[:1]
				if len(rest) < 2 || (q != `"` && q != "'") || !strings.HasSuffix(rest, q) || len(text) > len(rest)-2 {
					t.Fatalf("text %q differs from %q but that is not a quoted text", text, rest)
				}
			}
		}
		if utf8.ValidString(line) {
			checkAgainstShlex(t, line)
		}
	})
}

// FuzzRun runs arbitrary lines through the registry on one temp store:
// nothing panics, errors are one line, and a failed command leaves the
// session file as it was.
func FuzzRun(f *testing.F) {
	for _, s := range []string{
		"/todo add last x", "/todo add 1.last y", "/todo done 1.1", "/todo delete 1", "/todo clear",
		"/todo list", "/todo load 2", "/help todo", "/todo add \"", "/todo undo last", "/quit", "/tood",
		"/todo delete 1-2", "/todo set all", "/todo cancel 1", "/todo unset 1.1-1.last", "/todo add 2-4 x", "/todo prune 2", "/todo prune older 1h --yes",
	} {
		f.Add(s)
	}
	env, _ := newTestEnv(f)
	env.Out = io.Discard
	writeSession(f, env.Store, "other", "/src", parseSpec(f, "-a|[ ]a1;+b"), 0)
	reg := NewRegistry()
	path := env.Store.Path(env.SessionID)
	f.Fuzz(func(t *testing.T, line string) {
		before, _ := os.ReadFile(path)
		err := reg.Run(env, line)
		if err == nil || errors.Is(err, ErrQuit) {
			return
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("%q: error is not one line: %q", line, err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
			t.Fatalf("%q failed (%v) but changed the session file", line, err)
		}
	})
}

// FuzzParseSelection: no panic; a parsed selection prints as typed,
// every position is also a selection, and resolving against lists gives
// targets within bounds, in list order, without repeats, of one kind
// (items or subtasks of one item); errors are one line.
func FuzzParseSelection(f *testing.F) {
	for _, s := range []string{"all", "2-4", "1-1", "5-2", "0-3", "2-last", "2.1-2.3", "2.2-2.last", "2.1-3.2", "last-2", "2-", "-1", "1.2.3", "2-4-6", "99999999999999999999-1"} {
		f.Add(s)
	}
	lists := [][]todolist.Todo{{}, parseSpec(f, "-a"), parseSpec(f, "-a;-b|[ ]b1|[x]b2|[ ]b3;-c;+d")}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := ParseSelection(s)
		if _, perr := ParsePosition(s); perr == nil && (err != nil || !sel.Single()) {
			t.Fatalf("position %q is not a single selection: %+v, %v", s, sel, err)
		}
		if err != nil {
			if strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
				t.Fatalf("error adds a line break: %q", err)
			}
			return
		}
		if sel.String() != s {
			t.Fatalf("String() = %q, want %q", sel.String(), s)
		}
		for _, todos := range lists {
			targets, err := sel.Targets(todos)
			if err != nil {
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("Targets(%q) error is not one line: %q", s, err)
				}
				continue
			}
			if len(targets) == 0 {
				t.Fatalf("Targets(%q) resolved to nothing without an error", s)
			}
			if sel.All && len(targets) != len(todos) {
				t.Fatalf("Targets(%q) = %d targets on %d items", s, len(targets), len(todos))
			}
			for i, tg := range targets {
				if tg.Item < 0 || tg.Item >= len(todos) || tg.Sub < -1 || tg.Sub >= len(todos[tg.Item].Subtasks) {
					t.Fatalf("Targets(%q) = %v out of bounds", s, targets)
				}
				if i > 0 {
					prev := targets[i-1]
					if (tg.Sub < 0) != (prev.Sub < 0) || (tg.Sub < 0 && tg.Item != prev.Item+1) || (tg.Sub >= 0 && (tg.Item != prev.Item || tg.Sub != prev.Sub+1)) {
						t.Fatalf("Targets(%q) = %v: not one run in list order", s, targets)
					}
				}
			}
		}
	})
}

// FuzzParseAge: the AGE of /todo prune older is positive and bounded
// whenever it parses, and a whole number of its unit.
func FuzzParseAge(f *testing.F) {
	for _, s := range []string{"30d", "12h", "2w", "0d", "99999999999999999999d", "1", "d", "-1d", "1.5d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseAge(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
				t.Fatalf("error adds a line break: %q", err)
			}
			return
		}
		if d <= 0 || d > maxAge || d%time.Hour != 0 {
			t.Fatalf("parseAge(%q) = %v", s, d)
		}
	})
}
