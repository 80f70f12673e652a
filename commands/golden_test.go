package commands

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// transcriptCases are scripts of command lines whose whole output, errors
// included, is compared with testdata/golden/<name>.golden. Lines starting
// with "!" set up the store instead of running a command:
//
//	!session ID AGO CWD SPEC   write a session file ("." is the current
//	                           session, CWD "-" is none, SPEC as parseSpec
//	                           or "empty")
//	!raw ID AGO TEXT           write TEXT as session ID's file
//	!touch ID AGO              set a file's modification time
//	!ask A1,A2 | EOF | off     answers for Env.Ask (off: script mode)
//
// Every line that fails must leave the store exactly as it was.
var transcriptCases = []struct {
	name  string
	lines []string
}{
	{"show", []string{
		"/todo show",
		"/todo",
		"/todo show extra",
		"!session . 1m /work/project +Create project skeleton;>Implement the parser|[x]quoted fields|[ ]CRLF endings;-Write unit tests",
		"/todo show",
		"/todo",
	}},
	{"add", []string{
		"/todo add write tests",
		"/todo add 1 first thing",
		`/todo add last fix #123 and don't break \n parsing`,
		`/todo add last "2 apples"`,
		`/todo add 'last minute'`,
		"/todo add 2.last sub a",
		"/todo add 2.1 sub zero",
		"/todo add 2.3 sub end",
		`/todo add 2.last 'quoted sub'`,
		`/todo add "He said \"hi\" \\o/ C:\dir"`,
		`/todo add "2 apples" and pears`,
		"/todo add 1e3 items",
		"/todo add 1.2.3 release notes",
		"/todo add last.2 not a position",
		"/todo add don't stop",
		"/todo add #42 hashtag first",
		"/todo add    spaced    inside   ",
		"/todo add 6 sixth",
	}},
	{"add_errors", []string{
		"/todo add",
		"/todo add   ",
		"/todo add last",
		"/todo add 1",
		`/todo add ""`,
		`/todo add last "   "`,
		"/todo add 2 x",
		"/todo add 0 x",
		"/todo add 1.1 x",
		"/todo add 1.last x",
		`/todo add "unclosed text`,
		`/todo add last 'unclosed`,
		"/todo add one",
		"/todo add 3 x",
		"/todo add 0 x",
		"/todo add 99999999999999999999 x",
		"/todo add 2.1 x",
		"/todo add 1.3 x",
		"/todo add 1.0 x",
		"/todo add last trailing \\",
	}},
	{"delete", []string{
		"/todo delete 1",
		"/todo delete last",
		"/todo delete 1.1",
		"!session . 1m /work/project -one|[ ]a|[x]b;-two;-three",
		"/todo delete",
		"/todo delete x",
		"/todo delete 1,2",
		"/todo delete -1",
		"/todo delete 9",
		"/todo delete 0",
		"/todo delete 1.9",
		"/todo delete 2.1",
		"/todo delete 2.last",
		"/todo delete 9.1",
		"/todo delete 1 2",
		`/todo delete "1`,
		"/todo delete 1.last",
		"/todo delete 1.1",
		"/todo delete last",
		"/todo delete 1",
		`/todo delete "1"`,
	}},
	{"done_undo", []string{
		"/todo done 1",
		"!session . 1m /work/project -Implement the parser|[ ]quoted fields|[ ]CRLF endings|[ ]BOM;-Write unit tests",
		"/todo done 1",
		"/todo done 1.1",
		"/todo done 1",
		"/todo done 1.last",
		"/todo done 1.2",
		"/todo undo 1.2",
		"/todo done 1.2",
		"/todo undo 1",
		"/todo done last",
		"/todo undo 2",
		"/todo done 3",
		"/todo undo",
		"/todo done 2 now",
	}},
	{"ranges", []string{
		"/todo delete 1-2",
		"/todo delete all",
		"/todo undo all",
		"!session . 1m /work/project +one;+two|[x]t1|[x]t2|[ ]t3;+three;-four;>five",
		"/todo delete 3-2",
		"/todo delete 0-2",
		"/todo delete 2-6",
		"/todo delete 9-7",
		"/todo delete 6-last",
		"/todo delete 2-x",
		"/todo delete 2-4-5",
		"/todo delete 2.1-3.1",
		"/todo delete 2.1-3",
		"/todo delete 2-2.3",
		"/todo delete last-2",
		"/todo delete 2.3-2.1",
		"/todo delete 2.1-2.4",
		"/todo delete 1.1-1.2",
		"/todo delete 7.1-7.2",
		"/todo undo 1-3",
		"/todo undo 2.1-2.last",
		"/todo undo 1-3",
		"/todo done all",
		"/todo done 2.1-2.3",
		"/todo done all",
		"/todo undo all",
		"/todo undo 2.1-2.last",
		"/todo undo all",
		"/todo delete 1-1",
		"/todo delete 2.2-2.last",
		"/todo delete 3-last",
		"/todo delete all",
		"/todo show",
	}},
	{"start_cancel", []string{
		"/todo start 1",
		"/todo cancel all",
		"!session . 1m /work/project +one;-two|[x]t1|[ ]t2;-three|[x]u1;-four",
		"/todo start 1",
		"/todo set 4",
		"/todo start 3",
		"/todo start 3.1",
		"/todo cancel 2.1",
		"/todo cancel 2",
		"/todo start 2.2",
		"/todo cancel 1-4",
		"/todo undo 1-2",
		"/todo unset 3-4",
		"/todo set",
		"/todo unset x",
		"/todo start 1 2",
		"/todo cancel 5",
	}},
	{"add_mistyped", []string{
		"/todo add 1.2.3 fix it",
		"/todo add -1 fix it",
		"/todo add 2-4 fix it",
		"/todo add all done things",
		"/todo add 1. dot",
		"/todo add last.2 x",
		`/todo add 2-4 say "hi"`,
		"/todo add 2024-01-05 " + strings.Repeat("long ", 10),
		`/todo add "1.2.3 fix it"`,
		`/todo add '-1 fix it'`,
		`/todo add "2-4" fix it`,
		"/todo add 2nd attempt",
		"/todo add 3D printing",
		"/todo add - a bullet",
		"/todo add lastly this",
		"/todo add 2.1 x",
	}},
	{"prune", []string{
		"!session s-two 2h /src/two -Fix the parser;+Ship",
		"!session s-three 3d /src/three -Third",
		"!session s-old 40d /src/old +Old",
		"!session s-older 60d - -Older",
		"!session . 1m /work/project -mine",
		"/todo prune",
		"/todo prune x",
		"/todo prune 2 3",
		"/todo prune older",
		"/todo prune older 30",
		"/todo prune older 0d",
		"/todo prune older 30y",
		"/todo prune 9",
		"/todo prune 0",
		"/todo prune 4-2",
		"/todo prune 2-9",
		"/todo prune 1",
		"!ask off",
		"/todo prune 2",
		"/todo prune 2 --yes",
		"/todo list",
		"!ask n",
		"/todo prune older 30d",
		"!ask ",
		"/todo prune 1-3",
		"!ask EOF",
		"/todo prune all",
		"!ask y",
		"/todo prune older 30d",
		"/todo prune 2",
		"/todo load 2",
		"/todo prune 1-5",
		"/todo prune older 30d",
		"/todo list",
		"!ask yes",
		"/todo prune all",
		"/todo prune all",
		"/todo show",
	}},
	{"clear", []string{
		"/todo clear",
		"!session . 1m /work/project +one;-two",
		"/todo clear all",
		"/todo clear",
		"/todo clear",
		"/todo show",
	}},
	{"edit_move", []string{
		"/todo edit 1 nothing here",
		"!session . 1m /work/project +one;>two|[x]quoted fields|[ ]CRLF endings;-three;-four",
		"/todo edit 2 the parser",
		"/todo edit 2.2 CR LF endings",
		"/todo edit last \"4 is four\"",
		"/todo edit",
		"/todo edit 2",
		"/todo edit 9 x",
		"/todo edit 2.7 x",
		"/todo move 1 last",
		"/todo move 4 1",
		"/todo move 2.2 2.1",
		"/todo move 2.1 2.last",
		"/todo move 2.1 1",
		"/todo move 2 1.1",
		"/todo move 3.1 1.1",
		"/todo move 1",
		"/todo move 1 9",
		"/todo move 1 1 extra",
		"/todo move 1 1",
		"/todo history",
	}},
	{"history_wording", []string{
		"/todo add a",
		"/todo add b",
		"/todo add c",
		"/todo add 2.last sub",
		"/todo start 1",
		"/todo cancel 3",
		"/todo done 2.1",
		"/todo undo all",
		"/todo delete 2-3",
		"/todo set 1",
		"/todo done 1",
		"/todo undo 1",
		"/todo history",
		"/todo revert",
		"/todo revert",
		"/todo history",
	}},
	{"legacy_archive", []string{
		`!raw old 2h {"version":1,"session":"old","cwd":"/src","todos":[],"archive":[{"at":"2026-11-21T10:00:00Z","reason":"cleared","todos":[{"content":"parse quoted fields","status":"completed"},{"content":"CRLF endings","status":"pending"}]}]}`,
		`!raw . 1h {"version":1,"session":"cur","todos":[],"archive":[{"at":"2026-11-21T11:00:00Z","reason":"all done","todos":[{"content":"mine","status":"completed"}]}]}`,
		"/todo history",
		"/todo list",
		"/todo load 2",
		"/todo history",
		"/todo revert",
		"/todo restore 1",
		"/todo history",
	}},
	{"history_revert", []string{
		"/todo history",
		"/todo revert",
		"/todo restore 1",
		"/todo add one",
		"/todo add two",
		"/todo done 1",
		"/todo delete 2",
		"/todo clear",
		"/todo history",
		"/todo revert",
		"/todo revert",
		"/todo revert",
		"/todo history show 2",
		"/todo history show 99",
		"/todo history show",
		"/todo history show x",
		"/todo history x",
		"/todo history 9",
		"/todo restore 3",
		"/todo restore 3",
		"/todo restore 0",
		"/todo restore",
		"/todo revert extra",
		"/todo history",
		"/todo revert",
		"/todo revert",
		"/todo revert",
		"/todo revert",
		"/todo revert",
		"/todo revert",
	}},
	{"revert_changes_nothing", []string{
		// An older todosh's file whose archive holds the list before
		// change 2, and whose list is that list again: change 2 is the
		// last to take back, and taking it back changes nothing.
		"/todo add a",
		"/todo add b",
		`!raw . 1m {"version":1,"session":"cur","todos":[{"id":"1","content":"a","status":"pending","origin":"person","uid":"t1","rev":1}],"rev":1,"nextUid":3,"archive":[{"at":"2026-11-21T10:00:00Z","reason":"cleared","todos":[{"id":"1","content":"a","status":"pending","origin":"person","uid":"t1","rev":1}]}]}`,
		"/todo history",
		"/todo revert",
		"/todo restore 2",
		"/todo revert",
	}},
	{"help", []string{
		"/help",
		"/help todo",
		"/help /todo",
		"/help todo add",
		"/help todo load",
		"/help quit",
		"/help tood",
		"/help nothing",
		"/help todo shwo",
		"/help todo add more",
		"/help todo set",
		"/help todo unset",
		"/help todo prune",
	}},
	{"dispatch", []string{
		"/tood",
		"/xyz",
		"/TODO show",
		"/q",
		"/todo shwo",
		"/todo d 1",
		"/todo s 1",
		"/todo sett 1",
		"/todo frobnicate",
		"/",
		`/to"do`,
		`/todo "show`,
		"/quit",
		"/exit",
		"/quit now",
		"  /todo   show  ",
		"not a command",
	}},
	{"list", []string{
		"/todo list",
		"!session s-two 2h /src/two -Fix the parser;+Ship",
		"!session s-three 3m /src/three +Done thing;+Another",
		"!session s-old 50h - >Refactor|[x]a|[ ]b;xDropped;-Later",
		"!raw s-broken 10m {\"version\": 1, \"todos\": [",
		"!raw s-future 5m {\"version\": 9}",
		"!session s-empty 400h /src/empty empty",
		"!session s-long 20d /a/very/long/directory/name/that/goes/on -An item whose text is much longer than the forty characters of its column",
		"/todo list",
		"/todo add current work",
		"!touch . 30s",
		"/todo list",
		"/todo list 1",
		"/todo list 2",
		"/todo list 0",
		"/todo list x",
		"/todo list 1 2",
	}},
	{"load", []string{
		"/todo load 2",
		"!session s-two 2h /src/two -Fix the parser;+Ship",
		"!raw s-broken 10m not json at all",
		"!session s-empty 1h /src/empty empty",
		"/todo list",
		"/todo load",
		"/todo load x",
		"/todo load 9",
		"/todo load 0",
		"/todo load 2 3",
		"/todo load 1",
		"/todo load 2",
		"/todo load 3",
		"/todo load 4",
		"/todo add mine",
		"/todo load 4",
		"!session s-new 1s /src/new -Newest",
		"/todo load 4",
		"/todo list",
		"/todo load 2",
	}},
	{"list_ask", []string{
		"!session s-two 2h /src/two -Fix the parser;+Ship",
		"!session s-three 3h /src/three -Third",
		"!ask 3",
		"/todo list",
		"!ask ",
		"/todo list",
		"!ask EOF",
		"/todo list",
		"!ask abc",
		"/todo list",
		"!ask 1",
		"/todo list",
		"!ask 7",
		"/todo list",
	}},
	{"list_pages", pagesScript()},
	{"corrupt_current", []string{
		"!raw . 1m {\"version\": 1, \"todos\": [{\"id\": \"1\", \"content\": \"\", \"status\": \"pending\"}]}",
		"/todo show",
		"/todo add x",
		"/todo done 1",
		"/todo delete 1",
		"/todo clear",
		"!session s-two 2h /src/two -Fix the parser",
		"/todo list",
		"/todo load 2",
	}},
	{"limits", []string{
		"!session . 1m /work/project " + repeatSpec("-item", 100, ";"),
		"/todo add one more",
		"/todo add 1.last sub",
		"!session . 1m /work/project -parent" + repeatSpec("|[ ]s", 50, ""),
		"/todo add 1.last one more",
		"/todo add " + strings.Repeat("é", 1001),
		"/todo add last " + strings.Repeat("a", 1000),
		"/todo add last \xff\xfe",
	}},
}

// pagesScript makes 45 other sessions, one minute apart, for paging.
func pagesScript() []string {
	var lines []string
	for i := 1; i <= 45; i++ {
		lines = append(lines, fmt.Sprintf("!session s-%02d %dm /src/%02d -task %d", i, i, i, i))
	}
	return append(lines, "/todo list", "/todo list 2", "/todo list 3", "/todo list 4", "/todo load 21", "/todo load 46")
}

func repeatSpec(item string, n int, sep string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("%s %d", item, i+1)
	}
	return strings.Join(parts, sep)
}

func TestTranscripts(t *testing.T) {
	for _, tc := range transcriptCases {
		t.Run(tc.name, func(t *testing.T) {
			got := runTranscript(t, tc.lines)
			path := filepath.Join("testdata", "golden", tc.name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./commands -run TestTranscripts -update)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (rerun with -update and review the diff):\n%s", path, lineDiff(string(want), got))
			}
		})
	}
}

// runTranscript runs lines on a fresh store and returns the transcript.
func runTranscript(t *testing.T, lines []string) string {
	env, out := newTestEnv(t)
	reg := NewRegistry()
	var tr strings.Builder
	var answers []string
	askEOF := false
	for _, line := range lines {
		if strings.HasPrefix(line, "!") {
			fmt.Fprintf(&tr, "%s\n", line)
			directive(t, env, line)
			if rest, ok := strings.CutPrefix(line, "!ask "); ok {
				env.Ask, askEOF, answers = nil, false, nil
				switch rest {
				case "off":
				case "EOF":
					askEOF = true
				default:
					answers = strings.Split(rest, ",")
				}
				if rest != "off" {
					env.Ask = func(prompt string) (string, error) {
						if askEOF || len(answers) == 0 {
							fmt.Fprintf(out, "? %s<EOF>\n", prompt)
							return "", io.EOF
						}
						a := answers[0]
						answers = answers[1:]
						fmt.Fprintf(out, "? %s%s\n", prompt, a)
						return a, nil
					}
				}
			}
			continue
		}
		before := snapshotStore(t, env.Store.Root)
		out.Reset()
		err := reg.Run(env, line)
		fmt.Fprintf(&tr, "$ %s\n%s", line, out.String())
		if err != nil {
			msg := err.Error()
			fmt.Fprintf(&tr, "error: %s\n", msg)
			if strings.Contains(msg, "\n") {
				t.Errorf("%q: error is not one line: %q", line, msg)
			}
			if !errors.Is(err, ErrQuit) {
				if diff := diffSnapshots(before, snapshotStore(t, env.Store.Root)); len(diff) > 0 {
					t.Errorf("%q failed (%v) but changed %v", line, err, diff)
				}
			}
		}
	}
	return strings.ReplaceAll(tr.String(), env.Store.Root, "$TODOSH_HOME")
}

// directive applies one "!" setup line of a transcript.
func directive(t *testing.T, env *Env, line string) {
	f := strings.SplitN(line, " ", 5)
	id := func() string {
		if f[1] == "." {
			return env.SessionID
		}
		return f[1]
	}
	ago := func() time.Duration {
		s := f[2]
		if days, ok := strings.CutSuffix(s, "d"); ok {
			var n int
			if _, err := fmt.Sscan(days, &n); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return time.Duration(n) * 24 * time.Hour
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return d
	}
	switch f[0] {
	case "!session":
		cwd, spec := f[3], f[4]
		if cwd == "-" {
			cwd = ""
		}
		if spec == "empty" {
			spec = ""
		}
		writeSession(t, env.Store, id(), cwd, parseSpec(t, spec), ago())
	case "!raw":
		writeRaw(t, env.Store, id(), []byte(strings.Join(f[3:], " ")), ago())
	case "!touch":
		touch(t, env.Store.Path(id()), ago())
	case "!ask":
	default:
		t.Fatalf("unknown directive %q", line)
	}
}

// lineDiff shows the first lines where two transcripts differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 10; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %q\n  got  %q\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}
