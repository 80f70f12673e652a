package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent/modelapi"
	"github.com/todosh/todosh/todostore"
)

// These tests run the built todosh with --agent demo, the embedded script
// (agent/modelapi/demo.json): the first prompt plans three items, makes
// progress and stops lazily, so the shell continues it; the continuation
// ticks the remaining subtasks of item 2 and pauses with a question; the
// second prompt answers it and the list is completed.

// Lines of the demo and of the shell that mark where the run is.
const (
	demoContinued  = "continuing 1/3"               // decision after the lazy stop
	demoCountdown  = "continuing in"                // the countdown before the continuation
	demoPickedUp   = "Picking up where I left off"  // first text of the continuation turn
	demoPaused     = "stopped: paused"              // decision after todo_pause
	demoCancelled  = "you took over: continuation"  // a key or Ctrl-C stopped the countdown
	demoAllDone    = "\nall done\n"                 // the decision line, not the reply "All done: ..."
	demoAfterFirst = "todosh 1/3 › "                // prompt after the first turn (skeleton done)
	demoLazyStop   = "That is a good place to stop" // the lazy reply that ends the first turn
)

// demoPrompts are the person's two prompts the demo script was written for.
func demoPrompts(t *testing.T) (first, second string) {
	t.Helper()
	p := modelapi.DemoPrompts()
	if len(p) < 2 {
		t.Fatalf("modelapi.DemoPrompts() = %q, want two prompts", p)
	}
	return p[0], p[1]
}

// startDemo starts todosh --agent demo in a terminal with the countdown
// delay, types the demo's first prompt and waits for the countdown before
// the first continuation.
func startDemo(t *testing.T, delay string) (home, *term) {
	t.Helper()
	h := newHome(t)
	tm := h.startTerm(t, "--agent", "demo", "--continue-delay", delay)
	tm.expect("todosh › ")
	first, _ := demoPrompts(t)
	tm.typ(first + enter)
	tm.expect(first + "\n")
	tm.expect(demoLazyStop)
	tm.expect(demoContinued)
	tm.expect(demoCountdown)
	return h, tm
}

// demoSession reads the one session file the run wrote under
// $TODOSH_HOME/todos straight from disk.
func (h home) demoSession(t *testing.T) *todostore.Session {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(h.root, "todos", "todo-*.json"))
	if err != nil || len(files) != 1 {
		t.Fatalf("session files under %s: %q (%v), want exactly one", h.root, files, err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	sess, err := todostore.Decode(data)
	if err != nil {
		t.Fatalf("decode %s: %v", files[0], err)
	}
	return sess
}

// assertDemoFinished fails unless the session on disk holds the demo's three
// items with every item and subtask completed.
func (h home) assertDemoFinished(t *testing.T) {
	t.Helper()
	sess := h.demoSession(t)
	if len(sess.Todos) != 3 {
		t.Fatalf("session on disk has %d items, want the demo's 3: %+v", len(sess.Todos), sess.Todos)
	}
	for _, td := range sess.Todos {
		if td.Status != todolist.Completed {
			t.Errorf("item %s %q is %s, want completed", td.ID, td.Content, td.Status)
		}
		for _, st := range td.Subtasks {
			if st.Status != todolist.Completed {
				t.Errorf("subtask %s %q is %s, want completed", st.ID, st.Content, st.Status)
			}
		}
	}
	if sess.Paused || sess.PauseReason != "" {
		t.Errorf("session on disk is still paused (%q) after the person's answer", sess.PauseReason)
	}
}

// assertNotContinued fails unless the session on disk is as the first turn
// left it: the continuation, which ticks subtasks 2.2 and 2.3, never ran.
func (h home) assertNotContinued(t *testing.T) {
	t.Helper()
	sess := h.demoSession(t)
	if len(sess.Todos) != 3 || len(sess.Todos[1].Subtasks) != 3 {
		t.Fatalf("session on disk is not the demo's first plan: %+v", sess.Todos)
	}
	for i, want := range []todolist.Status{todolist.Completed, todolist.Pending, todolist.Pending} {
		if st := sess.Todos[1].Subtasks[i]; st.Status != want {
			t.Errorf("subtask %s %q is %s, want %s (the continuation must not have run)", st.ID, st.Content, st.Status, want)
		}
	}
}

// assertNoContinuation fails if the screen shown since the countdown was
// cancelled holds anything of the continuation turn.
func assertNoContinuation(t *testing.T, shown string) {
	t.Helper()
	for _, bad := range []string{demoPickedUp, "todo_tick 2.2", demoPaused} {
		if strings.Contains(shown, bad) {
			t.Errorf("the cancelled continuation ran anyway (%q on screen):\n%s", bad, shown)
		}
	}
}

// assertShows fails unless every one of want is in shown, what the
// command named what printed.
func assertShows(t *testing.T, what, shown string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(shown, w) {
			t.Errorf("%s printed:\n%s\nwant %q in it", what, shown, w)
		}
	}
}

// endCancelled ends a run whose first continuation was cancelled: nothing
// of it was shown before or after Ctrl-D, and the list on disk is as the
// first turn left it.
func endCancelled(t *testing.T, h home, tm *term, shown string) {
	t.Helper()
	assertNoContinuation(t, shown)
	tm.quit()
	assertNoContinuation(t, tm.screen())
	h.assertNotContinued(t)
}

func TestDemoRunsToCompletion(t *testing.T) {
	h, tm := startDemo(t, "1s")
	// The countdown runs out and the continuation goes ahead by itself.
	tm.expect(demoPickedUp)
	tm.expect(demoPaused)
	tm.expect("todosh 2/3 › ")
	_, second := demoPrompts(t)
	tm.typ(second + enter)
	tm.expect(second + "\n")
	if out := tm.expect(demoAllDone); strings.Contains(out, demoCountdown) {
		t.Errorf("a countdown was shown after the person's answer, with nothing left to continue:\n%s", out)
	}
	tm.expect("todosh 3/3 › ")
	shown := tm.run("/todo show")
	assertShows(t, "/todo show", shown, "Todo 3/3 done", "1. ✓ Create the project skeleton", "2. ✓ Implement the CSV parser", "2.3 [x] embedded newlines", "3. ✓ Write unit tests for the parser")
	if !strings.HasSuffix(shown, "todosh 3/3 › ") {
		t.Errorf("/todo show ends with %q, want the prompt todosh 3/3 › ", shown)
	}
	h.assertDemoFinished(t)
	// The demo runs again in the same shell: the finished list is archived
	// at the prompt and the demo plans it anew.
	first, _ := demoPrompts(t)
	tm.typ(first + enter)
	tm.expect("I'll plan the work as a todo list first.")
	tm.expect(demoLazyStop)
	tm.expect(demoCountdown)
	tm.typ(ctrlC)
	tm.expect(demoAfterFirst)
	tm.quit()
}

func TestDemoTypingDuringCountdownTakesOver(t *testing.T) {
	h, tm := startDemo(t, "10s")
	// The first key cancels the countdown and is kept as the start of the
	// person's line: "/" then "todo show" runs the slash command. Had the
	// "/" been lost, "todo show" would be a prompt and the agent would
	// answer it with the continuation's reply.
	tm.typ("/")
	tm.expect(demoCancelled)
	tm.expect(demoAfterFirst + "/")
	tm.typ("todo show" + enter)
	shown := tm.expect("todo show\n")
	shown += tm.expect(demoAfterFirst)
	assertShows(t, "/todo show", shown, "Todo 1/3 done", "2.1 [x] quoted fields", "2.2 [ ] CRLF line endings")
	endCancelled(t, h, tm, shown)
}

// Fast typing (or a paste the terminal does not mark) arrives in one
// read: every line ended by Enter runs in order, and the rest starts the
// person's next line. A bracketed paste is one prompt instead
// (TestPasteIsOnePrompt).
func TestDemoPasteDuringCountdownRunsEveryLine(t *testing.T) {
	h, tm := startDemo(t, "10s")
	tm.typ("/todo show" + enter + "/todo add 4 from the paste" + enter + "/todo sh")
	tm.expect(demoCancelled)
	shown := tm.expect("/todo show\n")
	shown += tm.expect(`+ 4 "from the paste" — 1/4 done`)
	assertShows(t, "the pasted /todo show", shown, "Todo 1/3 done", "2.2 [ ] CRLF line endings")
	tm.expect("todosh 1/4 › /todo sh")
	tm.typ("ow" + enter)
	shown = tm.expect("/todo show\n")
	shown += tm.expect("todosh 1/4 › ")
	assertShows(t, "the completed /todo show", shown, "4. ○ from the paste")
	tm.quit()
	if todos := h.demoSession(t).Todos; len(todos) != 4 || todos[3].Content != "from the paste" {
		t.Errorf("list on disk = %+v, want the pasted item as item 4", todos)
	}
}

// Keys typed while the agent prints are not echoed into its output; they
// wait, cancel the countdown and start the person's next line.
func TestDemoTypeAheadDuringTurn(t *testing.T) {
	h := newHome(t)
	tm := h.startTerm(t, "--agent", "demo", "--continue-delay", "10s")
	tm.expect("todosh › ")
	first, _ := demoPrompts(t)
	tm.typ(first + enter)
	tm.expect(first + "\n")
	tm.expect("todo_write") // the turn is under way
	tm.typ("/todo")
	shown := tm.expect(demoCancelled)
	if strings.Contains(shown, "/todo") {
		t.Errorf("keys typed during the turn were echoed into its output:\n%s", shown)
	}
	tm.expect(demoAfterFirst + "/todo")
	tm.typ(" show" + enter)
	shown = tm.expect("/todo show\n")
	shown += tm.expect(demoAfterFirst)
	assertShows(t, "the type-ahead /todo show", shown, "Todo 1/3 done")
	endCancelled(t, h, tm, shown)
}

func TestDemoCtrlCDuringCountdown(t *testing.T) {
	h, tm := startDemo(t, "10s")
	tm.typ(ctrlC)
	tm.expect(demoCancelled)
	tm.expect(demoAfterFirst)
	// Had Ctrl-C left anything typed, the line would not be the command
	// but a prompt, and the agent would answer it.
	shown := tm.run("/todo show")
	assertShows(t, "/todo show after Ctrl-C", shown, "Todo 1/3 done", "2.2 [ ] CRLF line endings")
	endCancelled(t, h, tm, shown)
}

func TestDemoScriptMode(t *testing.T) {
	h := newHome(t)
	first, second := demoPrompts(t)
	r := h.script(t, h.dir, "", "--agent", "demo", "-c", first, "-c", second)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing\nstdout:\n%s", r.code, r.stderr, r.stdout)
	}
	// In order: the continuation, the pause, the person's answer, the end.
	rest := r.stdout
	for _, want := range []string{demoLazyStop, demoContinued, demoPickedUp, demoPaused, demoAllDone} {
		i := strings.Index(rest, want)
		if i < 0 {
			t.Fatalf("stdout lacks %q after the previous step:\n%s", want, r.stdout)
		}
		rest = rest[i+len(want):]
	}
	// Without a terminal nobody can take over, so there is no countdown.
	if strings.Contains(r.stdout, demoCountdown) {
		t.Errorf("script mode showed a countdown:\n%s", r.stdout)
	}
	h.assertDemoFinished(t)
}
