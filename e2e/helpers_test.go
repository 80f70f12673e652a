// Package e2e_test drives the todosh binary from the outside: in a
// pseudo-terminal as a person would, and as a script through pipes and -c.
package e2e_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	"unicode/utf8"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"

	"github.com/creack/pty"
	"github.com/todosh/todosh/internal/testenv"
	"github.com/todosh/todosh/todostore"
)

// binary is the todosh built once for all tests by TestMain; fakeshell
// is the shell with a fake agent (./fakeshell).
var binary, fakeshell string

// fakeacp is the test-only ACP agent (agent/acpagent/internal/fakeacp).
var fakeacp string

// deadline is how long a test waits for text on the screen or an exit. It
// is generous on purpose: it only bounds a hang, it asserts no speed.
const deadline = 10 * time.Second

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "todosh-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = testenv.Exe(filepath.Join(dir, "todosh"))
	fakeshell = testenv.Exe(filepath.Join(dir, "fakeshell"))
	fakeacp = testenv.Exe(filepath.Join(dir, "fakeacp"))
	raced := testenv.HaltOnRace(dir)
	for pkg, out := range map[string]string{".": binary, "./e2e/fakeshell": fakeshell, "./agent/acpagent/internal/fakeacp": fakeacp} {
		args := []string{"build", "-o", out, pkg}
		if pkg == "./agent/acpagent/internal/fakeacp" {
			// The fake's own races show under -race (testenv.BuildFlags).
			args = append(append([]string{"build"}, testenv.BuildFlags()...), "-o", out, pkg)
		}
		build := exec.Command("go", args...)
		build.Dir = ".." // the module root
		if msg, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", pkg, err, msg)
			return 1
		}
	}
	code := m.Run()
	if raced() && code == 0 {
		code = 1
	}
	return code
}

// home is one test's $HOME and $TODOSH_HOME.
type home struct {
	dir  string // HOME
	root string // TODOSH_HOME
}

func newHome(t testing.TB) home {
	dir := t.TempDir()
	return home{dir: dir, root: testenv.Root(dir)}
}

// env is the environment of a todosh run, built from scratch
// (internal/testenv): nothing of the test's own environment (NO_COLOR,
// TERM, an API key, a TODOSH_SESSION) reaches the child.
func (h home) env() []string { return testenv.Env(h.dir) }

func (h home) store() *todostore.Store { return todostore.Open(h.root) }

// assertList fails unless the items of session id have these texts, in
// this order.
func (h home) assertList(t testing.TB, id string, want ...string) {
	t.Helper()
	sess, err := h.store().Load(id)
	if err != nil {
		t.Fatalf("load session %s: %v", id, err)
	}
	var got []string
	for _, td := range sess.Todos {
		got = append(got, td.Content)
	}
	if !slices.Equal(got, want) {
		t.Errorf("list of session %s = %q, want %q", id, got, want)
	}
}

// result is how a script run ended.
type result struct {
	code           int
	stdout, stderr string
}

// script runs todosh with stdin (a pipe, not a terminal) in dir.
func (h home) script(t testing.TB, dir, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = h.env()
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run todosh %q: %v", args, err)
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String()}
}

// startPiped starts cmd with its stdin and stdout as pipes for the test to
// drive, and its stderr kept for the failure messages.
func startPiped(t testing.TB, cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser, *strings.Builder) {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return in, out, stderr
}

// term is todosh running in a pseudo-terminal of 40x120.
type term struct {
	t    testing.TB
	cmd  *exec.Cmd
	tty  *os.File
	done chan struct{} // closed when the process has exited
	// drained is closed when the terminal has nothing more to read: its
	// last holder has exited and everything it printed is in raw. The
	// process's exit comes first; its last output may still be unread.
	drained chan struct{}

	mu   sync.Mutex
	raw  []byte // everything the terminal showed
	mark int    // expect searches the stripped screen text from here
	// cols and rows are the size; resizes records where in raw the size
	// changed, for the screen model.
	cols, rows int
	resizes    []resizeAt
}

// resizeAt is a change of the window's size at offset at of the output.
type resizeAt struct{ at, cols, rows int }

// resize changes the window's size (the kernel sends SIGWINCH).
func (tm *term) resize(cols, rows int) {
	tm.t.Helper()
	tm.mu.Lock()
	tm.resizes = append(tm.resizes, resizeAt{len(tm.raw), cols, rows})
	tm.mu.Unlock()
	if err := pty.Setsize(tm.tty, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)}); err != nil {
		tm.t.Fatalf("resize: %v", err)
	}
}

// vtScreen is the output replayed on the screen model: the scrollback and
// the window, as a person would see them now.
func (tm *term) vtScreen() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.replayVT().text()
}

// replayVT plays everything the terminal showed, with its resizes where
// they came, on a new screen model; the caller holds tm.mu.
func (tm *term) replayVT() *vt {
	v := newVT(tm.cols, tm.rows)
	from := 0
	for _, r := range tm.resizes {
		v.write(string(tm.raw[from:r.at]))
		v.resize(r.cols, r.rows)
		from = r.at
	}
	v.write(string(tm.raw[from:]))
	return v
}

// skipIfShort skips a test that waits in real time (on a screen, an idle
// limit, a signal's grace period) under go test -short: such tests are most
// of this package's time, so the quick loop keeps the other runs of the
// binary. go test ./... (and .ci/run) runs them all.
func skipIfShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip(what + ": skipped with -short")
	}
}

// startTerm starts todosh in a new pseudo-terminal and stops it at the end
// of the test if it is still running.
func (h home) startTerm(t testing.TB, args ...string) *term {
	t.Helper()
	return h.startProgram(t, binary, nil, args...)
}

// startProgram is startTerm for any program, with extra environment.
func (h home) startProgram(t testing.TB, program string, env []string, args ...string) *term {
	t.Helper()
	return h.startSized(t, 120, 40, program, env, args...)
}

// startSized is startProgram in a terminal of cols x rows.
func (h home) startSized(t testing.TB, cols, rows int, program string, env []string, args ...string) *term {
	t.Helper()
	skipIfShort(t, "a pseudo-terminal test")
	testenv.NeedPTY(t)
	cmd := exec.Command(program, args...)
	cmd.Env = append(h.env(), env...)
	cmd.Dir = h.dir
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
	if err != nil {
		t.Fatalf("start todosh in a pty: %v", err)
	}
	tm := watchTerm(t, cmd, tty)
	tm.cols, tm.rows = cols, rows
	return tm
}

// watchTerm reads the terminal tty of the started cmd and stops cmd at the
// end of the test if it is still running.
func watchTerm(t testing.TB, cmd *exec.Cmd, tty *os.File) *term {
	tm := &term{t: t, cmd: cmd, tty: tty, done: make(chan struct{}), drained: make(chan struct{}), cols: 120, rows: 40}
	go tm.read()
	go func() {
		cmd.Wait()
		close(tm.done)
	}()
	t.Cleanup(func() {
		select {
		case <-tm.done:
		default:
			cmd.Process.Kill()
			<-tm.done
		}
		tty.Close()
	})
	return tm
}

func (tm *term) read() {
	defer close(tm.drained)
	buf := make([]byte, 4096)
	for {
		n, err := tm.tty.Read(buf)
		tm.mu.Lock()
		tm.raw = append(tm.raw, buf[:n]...)
		tm.mu.Unlock()
		if err != nil { // EIO once no process holds the terminal open
			return
		}
	}
}

// isDrained reports whether raw holds everything the terminal will show.
func (tm *term) isDrained() bool {
	select {
	case <-tm.drained:
		return true
	default:
		return false
	}
}

// screen is what the terminal showed, as a log of lines: it replays the
// output on a one-line model of a terminal (carriage return, backspace,
// erase line, cursor left and right), which is enough for readline's
// redraws and the countdown. Only the last line changes; an erased line
// is kept in the log, so positions in the log stay valid.
func (tm *term) screen() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return replay(string(tm.raw))
}

// erased ends a line of the screen log that was erased rather than ended
// by a newline, such as each of readline's redraws.
const erased = "⌫"

// csi matches a control sequence: ESC [ parameters final-byte.
var csi = regexp.MustCompile(`^\x1b\[([0-9;?]*)([@-~])`)

// replay renders terminal output as finished lines plus the current one.
func replay(out string) string {
	var done strings.Builder
	var line []rune
	col := 0
	for len(out) > 0 {
		if m := csi.FindStringSubmatch(out); m != nil {
			n, err := strconv.Atoi(m[1])
			if err != nil || n < 1 {
				n = 1
			}
			switch m[2] {
			case "K", "J": // erase in line (or below): to its end, or all of it with 2
				// The live region erases itself from column 0 with J after
				// moving up (A, not modelled): each line of it stays in the
				// log as erased.
				if m[1] == "2" || col == 0 {
					// An erased line stays in the log, marked, so the log
					// only grows and a match stays where it was found.
					if len(line) > 0 {
						done.WriteString(string(line) + erased + "\n")
					}
					line = line[:0]
				} else if col < len(line) {
					line = line[:col]
				}
			case "C":
				col += n
			case "D":
				col = max(col-n, 0)
			}
			out = out[len(m[0]):]
			continue
		}
		r, size := utf8.DecodeRuneInString(out)
		out = out[size:]
		switch r {
		case '\x1b': // another escape: drop it and the next character
			_, size = utf8.DecodeRuneInString(out)
			out = out[size:]
		case '\r':
			col = 0
		case '\n':
			done.WriteString(string(line) + "\n")
			line, col = line[:0], 0
		case '\b':
			col = max(col-1, 0)
		case '\a':
		default:
			for len(line) < col {
				line = append(line, ' ')
			}
			if col < len(line) {
				line[col] = r
			} else {
				line = append(line, r)
			}
			col++
		}
	}
	return done.String() + string(line)
}

// typ sends keys as if typed.
func (tm *term) typ(keys string) {
	tm.t.Helper()
	if _, err := tm.tty.Write([]byte(keys)); err != nil {
		tm.t.Fatalf("type %q: %v", keys, err)
	}
}

// expect waits until text appears on the screen after the previous match
// and returns everything shown from that match up to and including text.
func (tm *term) expect(text string) string {
	tm.t.Helper()
	end := time.Now().Add(deadline)
	for {
		// Read before the screen: once drained, the screen is final.
		drained := tm.isDrained()
		s := tm.screen()
		// Overwriting the last line in place (backspace) can leave it
		// shorter than the mark for a moment.
		if len(s) < tm.mark {
			s = strings.Repeat(" ", tm.mark)
		}
		if i := strings.Index(s[tm.mark:], text); i >= 0 {
			seen := s[tm.mark : tm.mark+i+len(text)]
			tm.mark += i + len(text)
			return seen
		}
		if drained {
			tm.t.Fatalf("todosh exited while waiting for %q; screen since the last match:\n%s", text, s[tm.mark:])
		}
		if time.Now().After(end) {
			tm.t.Fatalf("waited %v for %q; screen since the last match:\n%s", deadline, text, s[tm.mark:])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// run types one line and Enter and returns what it printed up to and
// including the next prompt.
func (tm *term) run(line string) string {
	tm.t.Helper()
	tm.typ(line + "\r")
	tm.expect(line + "\n")
	return tm.expect("› ")
}

// openFromList picks session name in /todo list's picker, by its row's
// number, and waits until the shell opens it.
func (tm *term) openFromList(name string) {
	tm.t.Helper()
	tm.typ("/todo list" + enter)
	tm.expect("/todo list\n")
	listing := tm.expect("load which list?")
	m := regexp.MustCompile(`(?m)^\s*(\d+)\s+` + regexp.QuoteMeta(name)).FindStringSubmatch(listing)
	if m == nil {
		tm.t.Fatalf("no row for %s in:\n%s", name, listing)
	}
	tm.typ(m[1] + enter)
	tm.expect("Opening session " + name)
}

// quit types Ctrl-D and fails unless todosh exits with status 0.
func (tm *term) quit() {
	tm.t.Helper()
	tm.typ(ctrlD)
	if code := tm.wait(); code != 0 {
		tm.t.Errorf("exit status after Ctrl-D = %d, want 0", code)
	}
}

// wait waits for todosh to exit and for everything it printed to be
// read, so a screen taken after it is whole, and returns its status.
func (tm *term) wait() int {
	tm.t.Helper()
	select {
	case <-tm.done:
	case <-time.After(deadline):
		tm.t.Fatalf("todosh did not exit; screen:\n%s", tm.screen())
		return -1
	}
	select {
	case <-tm.drained:
	case <-time.After(deadline):
		tm.t.Fatalf("todosh exited but its terminal stayed open (a process left behind holds it); screen:\n%s", tm.screen())
	}
	return tm.cmd.ProcessState.ExitCode()
}

// wantOutput reports each of wants that out lacks, with out.
func wantOutput(t testing.TB, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// countLines is the number of non-empty lines of s.
func countLines(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

// jsonlEvent is one line of --output jsonl, as far as the tests read it.
type jsonlEvent struct {
	V       int    `json:"v"`
	Type    string `json:"type"`
	Session string `json:"session"`
	Source  string `json:"source"`
	Items   []struct {
		ID, Content, Status, Evidence string
		Subtasks                      []struct{ ID, Content, Status, Evidence string }
	} `json:"items"`
	Text     string `json:"text"`
	Reason   string `json:"reason"`
	Message  string `json:"message"`
	Continue *bool  `json:"continue"`
	Progress *bool  `json:"progress"`
	Exit     *int   `json:"exit"`
}

// parseJSONL parses a --output jsonl stream, failing the test on a line
// that is not one JSON object of schema version 1.
func parseJSONL(t testing.TB, stdout string) []jsonlEvent {
	t.Helper()
	var evs []jsonlEvent
	for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		if line == "" {
			continue
		}
		var ev jsonlEvent
		dec := json.NewDecoder(strings.NewReader(line))
		if err := dec.Decode(&ev); err != nil || dec.More() {
			t.Fatalf("not one JSON object: %q (%v)", line, err)
		}
		if ev.V != 1 || ev.Type == "" {
			t.Fatalf("event without version 1 or type: %q", line)
		}
		evs = append(evs, ev)
	}
	return evs
}

// jsonlTodos is the list of a todo_list event.
func (ev jsonlEvent) todos() []todolist.Todo {
	todos := []todolist.Todo{}
	for _, it := range ev.Items {
		td := todolist.Todo{Content: it.Content, Status: todolist.Status(it.Status), Evidence: it.Evidence}
		for _, s := range it.Subtasks {
			td.Subtasks = append(td.Subtasks, todolist.Subtask{Content: s.Content, Status: todolist.Status(s.Status), Evidence: s.Evidence})
		}
		todos = append(todos, td)
	}
	return todos
}

// jsonlAsText renders a --output jsonl stream as the text output would
// show it with every list whole: text, tool call lines, lists and
// decision lines. Tests that compare the lists an agent produced run with
// --output jsonl and read this.
func jsonlAsText(t testing.TB, stdout string) string {
	t.Helper()
	var b, text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			s := text.String()
			b.WriteString(s)
			if !strings.HasSuffix(s, "\n") {
				b.WriteByte('\n')
			}
			text.Reset()
		}
	}
	for _, ev := range parseJSONL(t, stdout) {
		if ev.Type == "text" {
			text.WriteString(ev.Text)
			continue
		}
		flush()
		switch ev.Type {
		case "tool_call":
			b.WriteString("  ⏺ " + ev.Text + "\n")
		case "todo_list":
			b.WriteString(todoview.FormatList(ev.todos()))
		case "continuation", "notice", "output":
			if ev.Text != "" {
				b.WriteString(strings.TrimSuffix(ev.Text, "\n") + "\n")
			}
		}
	}
	flush()
	return b.String()
}

// sameTodos reports whether two session files hold the same todos at the
// same revision (the agent's session id and its read, todostore/revs.go,
// may be saved in between).
func sameTodos(a, b []byte) bool {
	x, errA := todostore.Decode(a)
	y, errB := todostore.Decode(b)
	if errA != nil || errB != nil {
		return string(a) == string(b)
	}
	return todolist.SameTodos(x.Todos, y.Todos) && x.Rev == y.Rev
}

// killProcess ends process pid at once, where todosh failed to.
func killProcess(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}
