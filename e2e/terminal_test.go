package e2e_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/todosh/todosh/textwidth"
	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todostore"
)

// Keys as a terminal sends them.
const (
	enter   = "\r"
	tab     = "\t"
	ctrlC   = "\x03"
	ctrlD   = "\x04"
	ctrlR   = "\x12"
	arrowUp = "\x1b[A"
)

func TestTerminalCommandsAndProgressPrompt(t *testing.T) {
	h := newHome(t)
	tm := h.startTerm(t, "--session", "work")
	banner := tm.expect("Ctrl-D to quit.")
	// The default agent in a terminal is the demo; the banner names it and
	// fits 80 columns.
	if !strings.Contains(banner, "todosh session work · agent demo\n") {
		t.Errorf("banner %q does not name the session and the agent", banner)
	}
	for _, line := range strings.Split(banner, "\n") {
		if w := textwidth.Width(line); w > 80 {
			t.Errorf("banner line of %d columns: %q", w, line)
		}
	}
	tm.expect("todosh › ")
	for _, step := range []struct{ line, prompt string }{
		{"/todo add write tests", "todosh 0/1 › "},
		{"/todo add 1 plan", "todosh 0/2 › "},
		{"/todo done 1", "todosh 1/2 › "},
	} {
		if out := tm.run(step.line); !strings.HasSuffix(out, step.prompt) {
			t.Errorf("after %q the screen shows %q, want the prompt %q", step.line, out, step.prompt)
		}
	}
	shown := tm.run("/todo show")
	for _, want := range []string{"Todo 1/2 done", "1. ✓ plan", "2. ○ write tests"} {
		if !strings.Contains(shown, want) {
			t.Errorf("/todo show printed %q, want %q in it", shown, want)
		}
	}
	if out := tm.run("/todo clear"); !strings.HasSuffix(out, "\ntodosh › ") {
		t.Errorf("after /todo clear the screen shows %q, want the plain prompt", out)
	}
	tm.quit()
	h.assertList(t, "work")
}

func TestTerminalErrorsKeepTheShell(t *testing.T) {
	h := newHome(t)
	tm := h.startTerm(t, "--session", "errs")
	tm.expect("todosh › ")
	if out := tm.run("/todo delete 7"); !strings.Contains(out, "/todo delete: ") {
		t.Errorf("/todo delete 7 printed %q, want an error naming the command", out)
	}
	if out := tm.run("/todi show"); !strings.Contains(out, "/todo") {
		t.Errorf("/todi printed %q, want a suggestion of /todo", out)
	}
	tm.typ("/quit" + enter)
	if code := tm.wait(); code != 0 {
		t.Errorf("exit status after /quit = %d, want 0", code)
	}
}

func TestTerminalTabCompletion(t *testing.T) {
	h := newHome(t)
	if r := h.script(t, h.dir, "", "--session", "tab", "-c", "/todo add alpha"); r.code != 0 {
		t.Fatalf("prepare: %+v", r)
	}
	tm := h.startTerm(t, "--session", "tab")
	tm.expect("todosh 0/1 › ")
	// "/to" Tab completes the command, "/todo a" Tab the subcommand.
	tm.typ("/to" + tab)
	tm.expect("/todo")
	tm.typ("show" + enter)
	tm.expect("○ alpha")
	tm.expect("todosh 0/1 › ")
	tm.typ("/todo a" + tab)
	tm.expect("/todo add")
	tm.typ("beta" + enter)
	tm.expect("todosh 0/2 › ")
	tm.quit()
	h.assertList(t, "tab", "alpha", "beta")
}

func TestTerminalCtrlC(t *testing.T) {
	h := newHome(t)
	tm := h.startTerm(t, "--session", "intr")
	tm.expect("todosh › ")
	// On a typed line Ctrl-C drops the line.
	tm.typ("/todo add discarded")
	tm.expect("discarded")
	tm.typ(ctrlC)
	tm.expect("todosh › ")
	// On an empty line it prints a hint and the shell stays.
	tm.typ(ctrlC)
	tm.expect("(Ctrl-D or /quit to exit)")
	tm.expect("todosh › ")
	tm.run("/todo add kept")
	tm.quit()
	h.assertList(t, "intr", "kept")
}

func TestTerminalCtrlDExits(t *testing.T) {
	h := newHome(t)
	tm := h.startTerm(t)
	tm.expect("todosh › ")
	tm.quit()
	// A session nothing was written to leaves no file behind.
	if entries, _ := h.store().List(); len(entries) != 0 {
		t.Errorf("sessions on disk after an empty run: %v", entries)
	}
}

func TestTerminalListThenChooseLoads(t *testing.T) {
	h := newHome(t)
	if r := h.script(t, h.dir, "", "--session", "older", "-c", "/todo add from older", "-c", "/todo add second"); r.code != 0 {
		t.Fatalf("prepare: %+v", r)
	}
	tm := h.startTerm(t, "--session", "current")
	tm.expect("todosh › ")
	tm.typ("/todo list" + enter)
	tm.expect("/todo list\n")
	listing := tm.expect("load which list?")
	m := regexp.MustCompile(`(?m)^\s*(\d+)\s.*from older`).FindStringSubmatch(listing)
	if m == nil {
		t.Fatalf("no row for the older session in:\n%s", listing)
	}
	tm.typ(m[1] + enter)
	tm.expect("todosh 0/2 › ")
	if out := tm.run("/todo show"); !strings.Contains(out, "○ from older") {
		t.Errorf("/todo show after loading printed %q", out)
	}
	tm.quit()
	h.assertList(t, "current", "from older", "second")
	// The answer to the chooser is not a command: it stays out of history.
	hist, err := os.ReadFile(h.store().HistoryPath())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(hist), "\n") {
		if l == m[1] {
			t.Errorf("history holds the chooser's answer %q:\n%s", m[1], hist)
		}
	}
}

func TestTerminalHistorySurvivesRestart(t *testing.T) {
	h := newHome(t)
	tm := h.startTerm(t, "--session", "hist")
	tm.expect("todosh › ")
	tm.run("/todo add remember me")
	tm.quit()

	tm = h.startTerm(t, "--session", "hist")
	tm.expect("todosh 0/1 › ")
	tm.typ(arrowUp)
	tm.expect("/todo add remember me")
	tm.typ(ctrlC)
	tm.expect("todosh 0/1 › ")
	// Ctrl-R searches the history; Enter runs what it found.
	tm.typ(ctrlR + "rememb")
	tm.expect("remember me")
	tm.typ(enter)
	tm.expect("todosh 0/2 › ")
	tm.quit()
	h.assertList(t, "hist", "remember me", "remember me")
}

func TestTerminalPromptWithoutAgent(t *testing.T) {
	h := newHome(t)
	tm := h.startTerm(t, "--session", "prompt", "--agent", "none")
	tm.expect("No agent: /todo commands only")
	tm.expect("todosh › ")
	if out := tm.run("please write the parser"); !strings.Contains(out, "no agent is connected") {
		t.Errorf("a prompt without an agent printed %q", out)
	}
	tm.quit()
}

// TestJSONLInTerminalSaysWhereInputComes: --output jsonl never starts the
// interactive shell, so in a terminal it reads commands from stdin; it says
// so at once instead of waiting in silence, and still works as a script.
func TestJSONLInTerminalSaysWhereInputComes(t *testing.T) {
	h := newHome(t)
	tm := h.startTerm(t, "--session", "j", "--output", "jsonl")
	tm.expect("--output jsonl reads commands from standard input")
	tm.typ("/todo add typed" + enter)
	tm.expect(`"type":"todo_list"`)
	tm.quit()
	h.assertList(t, "j", "typed")
}

// TestTerminalTypeAheadAtSwitch: keys typed while the shell opens the
// session picked in /todo list (here while the agent of the session it
// leaves takes its time to end) show once, at the new session's prompt,
// and Enter runs them. The terminal used to echo them in that moment, and
// readline drew them again at the prompt.
func TestTerminalTypeAheadAtSwitch(t *testing.T) {
	r := newACP(t)
	mirror := todostore.MirrorID("claude", "s1")
	if _, err := r.h.store().Update(mirror, func(s *todostore.Session) error {
		s.Todos, s.Cwd = []todolist.Todo{{Content: "from the agent", Status: todolist.Pending}}, r.h.dir
		s.Agent, s.Hooks = &todostore.AgentRef{Kind: "claude", Session: "s1"}, &todostore.HookState{}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ending := filepath.Join(r.h.dir, "agent-ending")
	tm := r.h.startProgram(t, binary, append(r.env, "FAKEACP_HOLD="+ending), r.args("--session", "current")...)
	tm.expect("todosh › ")
	// The agent's process starts with the first prompt.
	tm.typ("hello there" + enter)
	tm.expect("echo: hello there")
	tm.expect("todosh › ")
	tm.openFromList(mirror)
	// todosh now waits for the agent to end (up to its kill grace, 2s,
	// then SIGKILL): the keys are typed in that wait.
	waitFor(t, "the agent to be asked to end", func() bool {
		_, err := os.Stat(ending)
		return err == nil
	})
	tm.typ("/todo add typed ahead")
	os.Remove(ending)
	tm.expect("todosh 0/1 › /todo add typed ahead")
	tm.typ(enter)
	tm.expect("todosh 0/2 › ")
	tm.quit()
	if n := strings.Count(tm.vtScreen(), "/todo add typed ahead"); n != 1 {
		t.Errorf("the keys typed show %d times, want once:\n%s", n, tm.vtScreen())
	}
	r.h.assertList(t, mirror, "from the agent", "typed ahead")
}
