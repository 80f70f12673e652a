package e2e_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"

	"github.com/todosh/todosh/internal/procgroup"
	"github.com/todosh/todosh/internal/testenv"
	"github.com/todosh/todosh/todostore"
)

// These tests run the built todosh around the wrapped agent CLIs, played by
// the fake CLI of package clis (agent/clis/internal/fakecli): it replays
// the recorded transcripts in agent/clis/testdata/transcripts, honours each
// CLI's resume flag and records its arguments. The fake is configured by
// FAKECLI_* variables, which todosh passes on to the CLI it starts.

// clisTestdata is package clis's testdata: the transcripts the fake replays
// and the golden renderings of what todosh makes of them.
const clisTestdata = "../agent/clis/testdata"

// fakeCLI is the fake CLI, built on first use.
var fakeCLI struct {
	once sync.Once
	dir  string // holds it as claude, codex and gemini
	err  error
}

// fakeCLIDir builds the fake CLI once and returns the directory that holds
// it under the names claude, codex and gemini (it plays whichever it is
// called). It lives next to the todosh binary, so TestMain removes it.
func fakeCLIDir(t testing.TB) string {
	t.Helper()
	fakeCLI.once.Do(func() {
		dir := filepath.Join(filepath.Dir(binary), "agent-clis")
		bin := testenv.Exe(filepath.Join(dir, "fakecli"))
		build := exec.Command("go", "build", "-o", bin, "./agent/clis/internal/fakecli")
		build.Dir = ".." // the module root
		if out, err := build.CombinedOutput(); err != nil {
			fakeCLI.err = fmt.Errorf("build fakecli: %v\n%s", err, out)
			return
		}
		for _, kind := range []string{"claude", "codex", "gemini", "qwen", "pi"} {
			if err := os.Symlink(bin, testenv.Exe(filepath.Join(dir, kind))); err != nil {
				fakeCLI.err = err
				return
			}
		}
		fakeCLI.dir = dir
	})
	if fakeCLI.err != nil {
		t.Fatal(fakeCLI.err)
	}
	return fakeCLI.dir
}

// setFakeEnv sets the fake CLI's configuration for todosh runs of this test;
// variables not named are cleared so nothing leaks between tests. The
// fake works before it marks an item done (FAKECLI_WORK=1, so receipts
// see a command) unless the test says FAKECLI_WORK=0: the transcripts
// were recorded against a scripted model that only marks items done.
func setFakeEnv(t *testing.T, env map[string]string) {
	t.Helper()
	for _, name := range []string{"FAKECLI_RUN1", "FAKECLI_RESUME", "FAKECLI_SESSION", "FAKECLI_RECORD", "FAKECLI_MODE", "FAKECLI_STDERR", "FAKECLI_PIDFILE", "FAKECLI_LINE_DELAY", "FAKECLI_IGNORE_TERM", "FAKECLI_KIND", "FAKECLI_CLAUDE_RULE", "FAKECLI_MCP_STATUS", "FAKECLI_USAGE", "FAKECLI_USAGE_FILE"} {
		t.Setenv(name, env[name])
	}
	work, ok := env["FAKECLI_WORK"]
	if !ok {
		work = "1"
	}
	t.Setenv("FAKECLI_WORK", work)
}

// fakeWork is the command the fake CLI runs with FAKECLI_WORK=1
// (fakecli.WorkCommand): its tool lines are not in the transcripts'
// golden files.
const fakeWork = "fake-work"

// cliRun is one invocation of the fake CLI, as it recorded it.
type cliRun struct {
	Argv          []string `json:"argv"`
	Resume        string   `json:"resume"`
	Stdin         string   `json:"stdin"`
	TodoshSession string   `json:"todoshSession"`
	// ClaudeTodoTools is the CLAUDE_CODE_ENABLE_TODO_TOOLS it was given,
	// "(unset)" when none.
	ClaudeTodoTools string `json:"claudeTodoTools"`
}

// readCLIRuns returns the invocations the fake recorded in path.
func readCLIRuns(t *testing.T, path string) []cliRun {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the fake CLI recorded nothing: %v", err)
	}
	var runs []cliRun
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r cliRun
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("record %q: %v", line, err)
		}
		runs = append(runs, r)
	}
	return runs
}

// hasArgs reports whether seq appears in argv as consecutive arguments.
func hasArgs(argv []string, seq ...string) bool {
	for i := 0; i+len(seq) <= len(argv); i++ {
		if slices.Equal(argv[i:i+len(seq)], seq) {
			return true
		}
	}
	return false
}

// onlySession loads the one session file todosh wrote under
// $TODOSH_HOME/todos, failing unless there is exactly one.
func (h home) onlySession(t *testing.T) *todostore.Session {
	t.Helper()
	entries, err := h.store().List()
	if err != nil || len(entries) != 1 {
		t.Fatalf("sessions under %s: %+v (%v), want exactly one", h.root, entries, err)
	}
	sess, err := h.store().Load(entries[0].ID)
	if err != nil {
		t.Fatalf("load session %s: %v", entries[0].ID, err)
	}
	return sess
}

// listHeader starts a list as FormatList prints it; listLine is one of its
// item or subtask lines.
var (
	listHeader = regexp.MustCompile(`^Todo \d+/\d+ done$`)
	listLine   = regexp.MustCompile(`^ +\d+\.(\d+)? `)
)

// toolLine starts a tool call as the shell prints it.
const toolLine = "  ⏺ "

// shownEvents reduces todosh's output to the tool calls and lists it showed,
// in order, in the shape of the golden files: "tool: LINE" and
// "todos:\nLIST".
func shownEvents(stdout string) []string {
	var out []string
	lines := strings.Split(stdout, "\n")
	for i := 0; i < len(lines); i++ {
		switch l := lines[i]; {
		case strings.HasPrefix(l, toolLine) && strings.HasSuffix(l, " "+fakeWork):
		case strings.HasPrefix(l, toolLine):
			out = append(out, "tool: "+strings.TrimPrefix(l, toolLine))
		case listHeader.MatchString(l):
			block := l + "\n"
			for i+1 < len(lines) && listLine.MatchString(lines[i+1]) {
				i++
				block += lines[i] + "\n"
			}
			out = append(out, "todos:\n"+block)
		}
	}
	return out
}

// goldenEvents reads the tool calls and lists of package clis's golden
// renderings of transcripts, in the shape shownEvents returns. The golden
// files hold every update the parser made; a list equal to the one before
// it is left out, as the shell shows a list only when it changed.
func goldenEvents(t *testing.T, names ...string) []string {
	t.Helper()
	var out []string
	last := -1 // index in out of the last list kept
	endList := func() {
		if n := len(out) - 1; n >= 0 && strings.HasPrefix(out[n], "todos:") {
			if last >= 0 && out[last] == out[n] {
				out = out[:n]
				return
			}
			last = n
		}
	}
	for _, name := range names {
		f, err := os.Open(filepath.Join(clisTestdata, "golden", name+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			l := sc.Text()
			switch {
			case strings.HasPrefix(l, "tool: "):
				// The line, then what is known of the call: "(Bash execute …)".
				q, err := strconv.QuotedPrefix(strings.TrimPrefix(l, "tool: "))
				if err != nil {
					t.Fatalf("%s: %q: %v", name, l, err)
				}
				tool, err := strconv.Unquote(q)
				if err != nil {
					t.Fatalf("%s: %q: %v", name, l, err)
				}
				endList()
				out = append(out, "tool: "+tool)
			case l == "todos:":
				endList()
				out = append(out, "todos:\n")
			case listHeader.MatchString(l) || listLine.MatchString(l):
				out[len(out)-1] += l + "\n"
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	endList()
	return out
}

// assertNoRepeatedList fails if the output shows the same list twice with
// no other list in between.
func assertNoRepeatedList(t *testing.T, stdout string) {
	t.Helper()
	last := ""
	for _, ev := range shownEvents(stdout) {
		if !strings.HasPrefix(ev, "todos:") {
			continue
		}
		if ev == last {
			t.Errorf("the same list is shown twice in a row:\n%s\noutput:\n%s", ev, stdout)
		}
		last = ev
	}
}

// assertShortToolLines fails unless every tool call shown is one short line
// naming tool.
func assertShortToolLines(t *testing.T, stdout, tool string) {
	t.Helper()
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasSuffix(l, " "+fakeWork) {
			continue
		}
		if strings.Contains(l, "⏺") && (!strings.HasPrefix(l, toolLine+tool+" ") || len([]rune(l)) > 124) {
			t.Errorf("tool call line %q: want one short line starting with %q", l, toolLine+tool)
		}
	}
}

// TestAgentCLIContinuesThroughOwnSession wraps each fake CLI in script
// mode: the first turn replays a lazy ending, todosh continues it by
// resuming the CLI's own session, and a later `todosh --resume` resumes
// that same session again.
func TestAgentCLIContinuesThroughOwnSession(t *testing.T) {
	cases := []struct {
		kind, folder, run1, resume, session string
		tool                                string   // the CLI's todo tool, as tool calls show
		resumeArgs                          []string // how the CLI is told to resume; the id follows
	}{
		{"claude", "claude-todowrite", "claude-run1", "claude-resume", "f3b303c4-9b82-483f-a4f8-445bb003551f", "TodoWrite", []string{"--resume"}},
		{"codex", "codex", "codex-run1", "codex-resume-id", "01a20041-b822-7443-827f-46d87d803854", "update_plan", []string{"resume"}},
		{"gemini", "gemini", "gemini-run1", "gemini-resume-id", "efe60ada-73d8-4b4e-a1d6-8e2ddc259f66", "write_todos", []string{"--resume"}},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			bin := filepath.Join(fakeCLIDir(t), c.kind)
			h := newHome(t)
			work := filepath.Join(h.dir, "project")
			if err := os.Mkdir(work, 0o755); err != nil {
				t.Fatal(err)
			}
			record := filepath.Join(h.dir, "cli-runs.jsonl")
			transcripts := filepath.Join(clisTestdata, "transcripts", c.folder)
			abs := func(name string) string {
				p, err := filepath.Abs(filepath.Join(transcripts, name+".jsonl"))
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
			setFakeEnv(t, map[string]string{
				"FAKECLI_RUN1":    abs(c.run1),
				"FAKECLI_RESUME":  abs(c.resume),
				"FAKECLI_SESSION": c.session,
				"FAKECLI_RECORD":  record,
			})
			resumed := append(slices.Clone(c.resumeArgs), c.session)

			// First prompt: a lazy ending with items open, then one
			// continuation that resumes the CLI's session and finishes.
			// The lists each change makes are compared whole: read them
			// from the event stream (a script's text says each in one line).
			r := h.script(t, work, "", "--output", "jsonl", "--agent", c.kind, "--agent-bin", bin, "-c", "Plan and start building csvkit-lite")
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("first run: exit %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
			}
			r.stdout = jsonlAsText(t, r.stdout)
			runs := readCLIRuns(t, record)
			if len(runs) != 2 {
				t.Fatalf("the CLI ran %d times, want a first turn and one continuation: %+v", len(runs), runs)
			}
			if hasArgs(runs[0].Argv, c.resumeArgs...) {
				t.Errorf("the first turn resumed a session: %q", runs[0].Argv)
			}
			if !hasArgs(runs[1].Argv, resumed...) {
				t.Errorf("the continuation did not resume %s with %q: %q", c.session, c.resumeArgs, runs[1].Argv)
			}
			// Every CLI todosh starts is told the session, for a todosh mcp
			// it was given by hand.
			if id := runs[0].TodoshSession; id == "" || runs[1].TodoshSession != id {
				t.Errorf("TODOSH_SESSION given to the CLI: %q then %q, want the session both times", id, runs[1].TodoshSession)
			} else if _, err := h.store().Load(id); err != nil {
				t.Errorf("TODOSH_SESSION %q is not the shell's session: %v", id, err)
			}
			if !strings.Contains(r.stdout, "continuing 1/3") || !strings.HasSuffix(r.stdout, "\nall done\n") {
				t.Errorf("want a continuation and then all done; output:\n%s", r.stdout)
			}
			want := goldenEvents(t, c.folder+"_"+c.run1, c.folder+"_"+c.resume)
			if got := shownEvents(r.stdout); !slices.Equal(got, want) {
				t.Errorf("tool calls and lists shown:\n%s\nwant (from the golden files):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			assertShortToolLines(t, r.stdout, c.tool)
			assertNoRepeatedList(t, r.stdout)

			sess := h.onlySession(t)
			wantList := strings.TrimPrefix(want[len(want)-1], "todos:\n")
			if got := todoview.FormatList(sess.Todos); got != wantList {
				t.Errorf("list on disk:\n%s\nwant the transcripts' last list:\n%s", got, wantList)
			}
			if !todolist.AllDone(sess.Todos) {
				t.Errorf("list on disk is not done:\n%s", todoview.FormatList(sess.Todos))
			}
			wantRef := todostore.AgentRef{Kind: c.kind, Session: c.session}
			if sess.Agent == nil || sess.Agent.Kind != wantRef.Kind || sess.Agent.Session != wantRef.Session {
				t.Errorf("session file agent = %+v, want %+v", sess.Agent, wantRef)
			}

			// A later todosh --resume with a new prompt resumes the same
			// agent session.
			const next = "Now write the README"
			r = h.script(t, work, "", "--output", "jsonl", "--resume", "--agent", c.kind, "--agent-bin", bin, "-c", next)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("--resume run: exit %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
			}
			r.stdout = jsonlAsText(t, r.stdout)
			runs = readCLIRuns(t, record)
			if len(runs) != 3 {
				t.Fatalf("the CLI ran %d times in all, want 3: %+v", len(runs), runs)
			}
			last := runs[2]
			if !hasArgs(last.Argv, resumed...) {
				t.Errorf("todosh --resume did not resume %s with %q: %q", c.session, c.resumeArgs, last.Argv)
			}
			if !strings.Contains(last.Stdin, next) {
				t.Errorf("the new prompt was not passed on stdin: %q", last.Stdin)
			}
			if slices.ContainsFunc(last.Argv, func(a string) bool { return strings.Contains(a, next) }) {
				t.Errorf("the prompt is on the command line: %q", last.Argv)
			}
			assertShortToolLines(t, r.stdout, c.tool)
			assertNoRepeatedList(t, r.stdout)
			if sess := h.onlySession(t); sess.Agent == nil || sess.Agent.Kind != wantRef.Kind || sess.Agent.Session != wantRef.Session {
				t.Errorf("after --resume the session file agent = %+v, want %+v", sess.Agent, wantRef)
			}
		})
	}
}

// seedSession writes a session with one open item, started in cwd, and
// returns its file's bytes so a test can check nothing touched it.
func (h home) seedSession(t *testing.T, id, cwd string) []byte {
	t.Helper()
	if _, err := h.store().Update(id, func(s *todostore.Session) error {
		s.Cwd = cwd
		s.Todos = []todolist.Todo{{Content: "keep me", Status: todolist.Pending}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return h.sessionBytes(t, id)
}

func (h home) sessionBytes(t *testing.T, id string) []byte {
	t.Helper()
	data, err := os.ReadFile(h.store().Path(id))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestAgentCLIFailures: a CLI that cannot start or that fails is one line
// naming it and its last error, exit status 1, and the list untouched.
func TestAgentCLIFailures(t *testing.T) {
	cases := []struct {
		name, kind, bin string
		env             map[string]string
		want            string // on the error line
		notWant         string
	}{
		{"missing executable", "claude", "/nonexistent/claude", nil,
			"claude: /nonexistent/claude not found", ""},
		{"non-zero exit with stderr", "gemini", "", map[string]string{
			"FAKECLI_MODE":   "fail",
			"FAKECLI_STDERR": "warming up\nError: Invalid API key · Please run /login\n\n",
		}, "gemini: exit status 3: Error: Invalid API key · Please run /login", "warming up"},
		{"non-zero exit of codex", "codex", "", map[string]string{
			"FAKECLI_MODE":   "fail",
			"FAKECLI_STDERR": "Error: stream disconnected\n",
		}, "codex: exit status 3: Error: stream disconnected", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bin := c.bin
			if bin == "" {
				bin = filepath.Join(fakeCLIDir(t), c.kind)
			}
			setFakeEnv(t, c.env)
			h := newHome(t)
			before := h.seedSession(t, "fails", h.dir)
			r := h.script(t, h.dir, "", "--session", "fails", "--agent", c.kind, "--agent-bin", bin, "-c", "go")
			if r.code != 1 {
				t.Errorf("exit status %d, want 1", r.code)
			}
			// The error once, on stderr; stdout stays clean for the transcript.
			if r.stdout != "" {
				t.Errorf("stdout = %q, want nothing (the error goes to stderr)", r.stdout)
			}
			for name, out := range map[string]string{"stderr": r.stderr} {
				if countLines(out) != 1 || !strings.Contains(out, c.want) {
					t.Errorf("%s = %q, want one line with %q", name, out, c.want)
				}
				if c.notWant != "" && strings.Contains(out, c.notWant) {
					t.Errorf("%s = %q shows more than the last stderr line", name, out)
				}
			}
			if after := h.sessionBytes(t, "fails"); !sameTodos(after, before) {
				t.Errorf("the session file changed:\n%s\nwas:\n%s", after, before)
			}
		})
	}
}

// processGone reports whether process pid has exited: it is not there, or
// it is a zombie waiting for whoever adopted it to reap it.
func processGone(pid int) bool { return !procgroup.Running(pid) }

// waitFor polls cond until it holds or the test deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(deadline)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("waited %v for %s", deadline, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAgentCLICtrlCInTerminal: Ctrl-C during a turn of a CLI that hangs
// cancels the turn, ends the CLI and the child it started (also when both
// ignore SIGTERM), and leaves the shell usable with the list as it was.
func TestAgentCLICtrlCInTerminal(t *testing.T) {
	for _, ignoreTerm := range []string{"0", "1"} {
		t.Run("ignore_term="+ignoreTerm, func(t *testing.T) {
			bin := filepath.Join(fakeCLIDir(t), "claude")
			h := newHome(t)
			h.seedSession(t, "hang", h.dir)
			pidFile := filepath.Join(h.dir, "cli.pids")
			env := []string{"FAKECLI_MODE=sleep", "FAKECLI_PIDFILE=" + pidFile, "FAKECLI_IGNORE_TERM=" + ignoreTerm}
			tm := h.startProgram(t, binary, env, "--session", "hang", "--agent", "claude", "--agent-bin", bin)
			tm.expect("todosh 0/1 › ")
			tm.typ("work on it" + enter)
			tm.expect("work on it\n")

			// The fake writes "pid child" once it and its child run.
			var pid, child int
			waitFor(t, "the fake CLI to start", func() bool {
				data, err := os.ReadFile(pidFile)
				if err != nil {
					return false
				}
				_, err = fmt.Sscan(string(data), &pid, &child)
				return err == nil
			})
			t.Cleanup(func() {
				// Only if todosh failed to end them: they would sleep
				// for an hour.
				for _, p := range []int{pid, child} {
					if !processGone(p) {
						killProcess(p)
					}
				}
			})
			if processGone(pid) || processGone(child) {
				t.Fatalf("the fake CLI %d or its child %d is not running before Ctrl-C", pid, child)
			}
			tm.typ(ctrlC)
			tm.expect("turn cancelled")
			tm.expect("todosh 0/1 › ")
			waitFor(t, fmt.Sprintf("the CLI %d and its child %d to end", pid, child), func() bool {
				return processGone(pid) && processGone(child)
			})

			out := tm.run("/todo show")
			if !strings.Contains(out, "○ keep me") {
				t.Errorf("/todo show after Ctrl-C:\n%s", out)
			}
			tm.quit()
			h.assertList(t, "hang", "keep me")
		})
	}
}
