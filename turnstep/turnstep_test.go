package turnstep

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/continuation"
	"github.com/todosh/todosh/todostore"
)

// fakeAgent writes list (when set) and pauses through the session file
// (as todosh's MCP server would), then ends with err.
type fakeAgent struct {
	sess  agent.Session
	list  []todolist.Todo
	pause string
	err   error
	ctx   bool // return ctx.Err() (a cancelled turn)
	usage []agent.Usage
}

func (f *fakeAgent) Name() string     { return "fake" }
func (f *fakeAgent) TodoTool() string { return "todo_write" }
func (f *fakeAgent) RunTurn(ctx context.Context, _ agent.Turn, emit func(agent.Event)) (agent.Result, error) {
	if f.list != nil || f.pause != "" {
		if _, err := f.sess.Update(func(s *todostore.Session) error {
			if f.list != nil {
				s.Todos = todolist.CloneTodos(f.list)
			}
			if f.pause != "" {
				s.Paused, s.PauseReason = true, f.pause
			}
			return nil
		}); err != nil {
			return agent.Result{}, err
		}
	}
	for _, u := range f.usage {
		emit(agent.Event{Kind: agent.EventUsage, Usage: &u})
	}
	if f.ctx {
		return agent.Result{}, ctx.Err()
	}
	return agent.Result{FinalText: "ok"}, f.err
}

func todos(st ...todolist.Status) []todolist.Todo {
	var out []todolist.Todo
	for i, s := range st {
		out = append(out, todolist.Todo{ID: string(rune('1' + i)), Content: "item " + string(rune('a'+i)), Status: s})
	}
	return out
}

func TestRun(t *testing.T) {
	p, c := todolist.Pending, todolist.Completed
	cancelled, stop := context.WithCancel(context.Background())
	stop()
	for _, tc := range []struct {
		name     string
		ag       fakeAgent
		ctx      context.Context
		cont     bool
		reason   continuation.StopReason
		aborted  bool
		failed   bool
		paused   bool
		wantCwd  bool
		startErr bool
	}{
		{name: "progress, open items: continue", ag: fakeAgent{list: todos(c, p)}, cont: true, wantCwd: true},
		{name: "all done: stop", ag: fakeAgent{list: todos(c, c)}, reason: continuation.NoOpenItems, wantCwd: true},
		{name: "paused in the file: stop, kept", ag: fakeAgent{list: todos(p), pause: "which dialect?"}, reason: continuation.Paused, paused: true, wantCwd: true},
		{name: "agent error: no decision, no cwd", ag: fakeAgent{list: todos(p), err: errors.New("claude: died")}, failed: true},
		{name: "cancelled: the agent returns ctx.Err()", ag: fakeAgent{ctx: true}, ctx: cancelled, aborted: true, failed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := todostore.Open(t.TempDir())
			sess := agent.Session{Store: st, ID: "s1"}
			tc.ag.sess = sess
			pol := continuation.New()
			if _, _, err := Begin(sess, pol); err != nil {
				t.Fatal(err)
			}
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			step := Step{Agent: &tc.ag, Session: sess, Policy: pol, Tools: func() continuation.Tools { return continuation.Tools{Todo: "todo_write"} }, Cwd: "/src/x"}
			out, err := step.Run(ctx, agent.Turn{Prompt: "go"}, func(agent.Event) {})
			if err != nil {
				t.Fatal(err)
			}
			if out.Decision.Continue != tc.cont || (!tc.cont && out.Decision.Reason != tc.reason) {
				t.Errorf("decision %+v, want continue %v reason %q", out.Decision, tc.cont, tc.reason)
			}
			if out.Aborted != tc.aborted || (out.Err != nil) != tc.failed || !out.Listed {
				t.Errorf("outcome %+v", out)
			}
			got, _ := st.LoadOrNew("s1")
			if got.Paused != tc.paused || (got.Cwd == "/src/x") != tc.wantCwd {
				t.Errorf("session paused %v cwd %q, want paused %v cwd recorded %v", got.Paused, got.Cwd, tc.paused, tc.wantCwd)
			}
		})
	}
}

func TestBegin(t *testing.T) {
	st := todostore.Open(t.TempDir())
	sess := agent.Session{Store: st, ID: "s1"}
	pol := continuation.New()
	// No file: a prompt writes nothing.
	if _, n, err := Begin(sess, pol); err != nil || n != 0 {
		t.Fatalf("Begin on nothing: %d %v", n, err)
	}
	if _, err := st.Load("s1"); err == nil {
		t.Fatal("Begin created a session file for nothing")
	}
	if _, err := sess.Update(func(s *todostore.Session) error {
		s.Todos, s.Paused, s.PauseReason = todos(todolist.Completed, todolist.Completed), true, "why"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got, n, err := Begin(sess, pol)
	if err != nil || n != 2 || len(got.Todos) != 0 || got.Paused {
		t.Errorf("Begin on a done, paused list: archived %d, list %v, paused %v, err %v; want 2 archived, empty, not paused", n, got.Todos, got.Paused, err)
	}
}

// workingAgent shows its work (agent.WorkShower): each turn it may run a
// command (an execute call that ends well) while the list's first item is
// in progress, then completes that item.
type workingAgent struct {
	sess agent.Session
	work bool
	// atEnd reports the turn's usage only when it ends, after putting the
	// next item in progress (Codex, Gemini, an ACP agent).
	atEnd bool
}

func (w *workingAgent) Name() string     { return "working" }
func (w *workingAgent) TodoTool() string { return "TodoWrite" }
func (w *workingAgent) ShowsWork() bool  { return true }
func (w *workingAgent) RunTurn(_ context.Context, _ agent.Turn, emit func(agent.Event)) (agent.Result, error) {
	if w.work {
		emit(agent.Event{Kind: agent.EventToolCall, Text: "Bash go test", Tool: &agent.ToolCall{ID: "1", Name: "Bash", Kind: agent.ToolExecute, Target: "go test"}})
		emit(agent.Event{Kind: agent.EventToolCall, Tool: agent.Ended("1", "Bash", agent.ToolExecute, "go test", true, nil)})
		if !w.atEnd {
			emit(agent.Event{Kind: agent.EventUsage, Usage: &agent.Usage{Input: 100, Output: 7}})
		}
	}
	_, err := w.sess.Update(func(s *todostore.Session) error {
		s.Todos[0].Status = todolist.Completed
		if w.atEnd {
			s.Todos[1].Status = todolist.InProgress
		}
		return nil
	})
	if w.atEnd {
		emit(agent.Event{Kind: agent.EventUsage, Usage: &agent.Usage{Input: 100, Output: 7}, AtEnd: true})
	}
	return agent.Result{FinalText: "ok"}, err
}

// workingSession is a store holding session s1 with an item in progress
// and one pending, as a turn of workingAgent starts.
func workingSession(t *testing.T) (*todostore.Store, agent.Session) {
	t.Helper()
	st := todostore.Open(t.TempDir())
	sess := agent.Session{Store: st, ID: "s1"}
	if _, err := sess.Update(func(s *todostore.Session) error {
		s.Todos = todos(todolist.InProgress, todolist.Pending)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return st, sess
}

// A backend that shows its work: a completion counts only with a receipt,
// recorded from the turn's own events, and its tokens go to the item.
func TestRunReceipts(t *testing.T) {
	for _, work := range []bool{true, false} {
		st, sess := workingSession(t)
		pol := continuation.New()
		step := Step{Agent: &workingAgent{sess: sess, work: work}, Session: sess, Policy: pol,
			Tools: func() continuation.Tools { return continuation.Tools{Todo: "TodoWrite"} }}
		out, err := step.Run(context.Background(), agent.Turn{Prompt: "go"}, func(agent.Event) {})
		if err != nil {
			t.Fatal(err)
		}
		if out.Decision.Progress != work || (len(out.Decision.Unverified) == 1) == work {
			t.Errorf("work %v: decision %+v", work, out.Decision)
		}
		l, err := st.Ledger("s1", st.Now())
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int64{true: 100, false: 0}[work]; l.Items[0].In != want || l.Total.In != want {
			t.Errorf("work %v: ledger %+v", work, l)
		}
	}
}

// TestRunSpendsBudget: the tokens a turn's usage events report, input and
// output, are what the policy's token budget counts.
func TestRunSpendsBudget(t *testing.T) {
	st := todostore.Open(t.TempDir())
	sess := agent.Session{Store: st, ID: "s1"}
	pol := continuation.New()
	pol.SetBudget(continuation.Budget{Tokens: 1000})
	if _, _, err := Begin(sess, pol); err != nil {
		t.Fatal(err)
	}
	ag := &fakeAgent{sess: sess, list: todos(todolist.InProgress, todolist.Pending), usage: []agent.Usage{{Input: 400, Output: 20}, {Input: 500, Output: 30}}}
	step := Step{Agent: ag, Session: sess, Policy: pol, Tools: func() continuation.Tools { return continuation.Tools{Todo: "todo_write"} }}
	out, err := step.Run(context.Background(), agent.Turn{Prompt: "go"}, func(agent.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Decision.Continue { // 950 of 1,000
		t.Errorf("decision %+v", out.Decision)
	}
	if pol.Spent().Tokens != 950 {
		t.Errorf("spent %+v, want 950 tokens", pol.Spent())
	}
	ag.usage = []agent.Usage{{Input: 50, Output: 1}}
	out, err = step.Run(context.Background(), agent.Turn{Prompt: "go on", Continuation: true}, func(agent.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if d := out.Decision; d.Continue || d.Reason != continuation.TokenBudget || d.Line != "stopped: token budget reached: 1,001 of 1,000" {
		t.Errorf("decision %+v", d)
	}
}

// TestRunChargesTurnEndUsage: a usage report given only at the turn's end
// is charged to the item the turn worked on, not to the one in progress
// when it ended (issue 26's by-hand check: Gemini's item 1 showed 0
// tokens, item 2 took turn 1's).
func TestRunChargesTurnEndUsage(t *testing.T) {
	st, sess := workingSession(t)
	step := Step{Agent: &workingAgent{sess: sess, work: true, atEnd: true}, Session: sess, Policy: continuation.New(),
		Tools: func() continuation.Tools { return continuation.Tools{Todo: "TodoWrite"} }}
	if _, err := step.Run(context.Background(), agent.Turn{Prompt: "go"}, func(agent.Event) {}); err != nil {
		t.Fatal(err)
	}
	l, err := st.Ledger("s1", st.Now())
	if err != nil {
		t.Fatal(err)
	}
	if l.Items[0].In != 100 || l.Items[0].Out != 7 || l.Items[1].In != 0 || l.Total.In != 100 {
		t.Errorf("ledger: item 1 %+v, item 2 %+v, total %+v; want the turn's 100 on item 1", l.Items[0], l.Items[1], l.Total)
	}
}

// elsewhereAgent writes its lists as todosh's MCP server does for an ACP
// agent (Gemini CLI): through the store, as another process, with no
// event of the turn carrying them. It shows its work but does none.
type elsewhereAgent struct {
	sess  agent.Session
	lists [][]todolist.Todo // written in order, one change each
}

func (e *elsewhereAgent) Name() string     { return "elsewhere" }
func (e *elsewhereAgent) TodoTool() string { return "todo_write" }
func (e *elsewhereAgent) ShowsWork() bool  { return true }
func (e *elsewhereAgent) RunTurn(context.Context, agent.Turn, func(agent.Event)) (agent.Result, error) {
	// The backend records the agent's session first, as an ACP backend
	// does when it opens one: a change of the file that keeps the list.
	if _, err := e.sess.Update(func(s *todostore.Session) error {
		s.Agent = &todostore.AgentRef{Kind: "elsewhere", Session: "e1"}
		return nil
	}); err != nil {
		return agent.Result{}, err
	}
	other := agent.Session{Store: todostore.Open(e.sess.Store.Root), ID: e.sess.ID} // another process's store
	for _, l := range e.lists {
		if _, _, err := other.Commit(todolist.ByAgent, func(s *todostore.Session) error {
			if len(s.Todos) != len(l) {
				s.Todos = todolist.CloneTodos(l)
				return nil
			}
			for i := range l { // the same items (their uids kept), as the merge rule keeps them
				s.Todos[i].Status = l[i].Status
			}
			return nil
		}); err != nil {
			return agent.Result{}, err
		}
	}
	return agent.Result{FinalText: "I'll stop here for now."}, nil
}

// A list the agent writes and finishes through another process in one
// turn: the items it marked done without a receipt are the ones every
// list shows as "reported, no receipt", though no event showed the list
// it wrote first (the lazy scenario through acp:gemini said "2 items
// done without a receipt" while /todo show listed 3).
func TestRunCountsItemsDoneElsewhere(t *testing.T) {
	p, c := todolist.Pending, todolist.Completed
	texts := func(st ...todolist.Status) []todolist.Todo {
		out := todos(st...)
		for i := range out {
			out[i].ID = ""
		}
		return out
	}
	st := todostore.Open(t.TempDir())
	sess := agent.Session{Store: st, ID: "s1"}
	pol := continuation.New()
	ag := &elsewhereAgent{sess: sess}
	step := Step{Agent: ag, Session: sess, Policy: pol, Tools: func() continuation.Tools { return continuation.Tools{Todo: "todo_write"} }}
	turns := []struct {
		lists [][]todolist.Todo
		want  []int
		line  string
	}{
		{[][]todolist.Todo{texts(p, p, p), texts(c, p, p)}, []int{1}, "continuing 1/3 — 2 open items, 1 item done without a receipt"},
		{[][]todolist.Todo{texts(c, c, p)}, []int{1, 2}, "continuing 2/3 — 1 open item, 2 items done without a receipt"},
		{[][]todolist.Todo{texts(c, c, c)}, []int{1, 2, 3}, "continuing 3/3 — 3 items done without a receipt"},
	}
	for i, turn := range turns {
		ag.lists = turn.lists
		out, err := step.Run(context.Background(), agent.Turn{Prompt: "go"}, func(agent.Event) {})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(out.Decision.Unverified) != fmt.Sprint(turn.want) || out.Decision.Line != turn.line {
			t.Errorf("turn %d: unverified %v, %q; want %v, %q", i+1, out.Decision.Unverified, out.Decision.Line, turn.want, turn.line)
		}
		r, err := st.Receipts("s1", false)
		if err != nil {
			t.Fatal(err)
		}
		var marked []int
		for j, td := range out.After {
			if r.Sum.Note(td) == "reported, no receipt" {
				marked = append(marked, j+1)
			}
		}
		if fmt.Sprint(marked) != fmt.Sprint(out.Decision.Unverified) {
			t.Errorf("turn %d: the list marks %v reported without a receipt, the policy counts %v", i+1, marked, out.Decision.Unverified)
		}
	}
}

// BenchmarkFirstWritten: what a turn whose agent wrote its list through
// another process pays to find the first list it wrote, the history read
// whole, at 1,000 changes of a 20-item list (the history keeps up to
// 2,000).
func BenchmarkFirstWritten(b *testing.B) {
	st := todostore.Open(b.TempDir())
	sess := agent.Session{Store: st, ID: "b1"}
	list := make([]todolist.Status, 20)
	for i := range list {
		list[i] = todolist.Pending
	}
	if _, err := sess.Update(func(s *todostore.Session) error { s.Todos = todos(list...); return nil }); err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		if _, _, err := sess.Commit(todolist.ByAgent, func(s *todostore.Session) error {
			s.Todos[i%20].Status = map[bool]todolist.Status{true: todolist.Completed, false: todolist.Pending}[s.Todos[i%20].Status != todolist.Completed]
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	cur, err := st.Load("b1")
	if err != nil {
		b.Fatal(err)
	}
	step := Step{Session: sess}
	since := cur.Change.N - 2
	for b.Loop() {
		lines, _ := step.Session.Store.History(step.Session.ID)
		if firstWritten(lines, since, nil) == nil {
			b.Fatal("no list found")
		}
	}
}

// showingAgent is fakeAgent shown to todosh as showing its work, so its
// completions need receipts; it does no work.
type showingAgent struct{ *fakeAgent }

func (showingAgent) ShowsWork() bool { return true }

// A list written done in one go, with no work: new items are done without
// a receipt and the policy goes on; the finished items re-sent after the
// person's prompt archived them are known to the session's history
// (Policy.Mark, Store.ItemTexts) and are all done.
func TestRunListWrittenDone(t *testing.T) {
	st := todostore.Open(t.TempDir())
	sess := agent.Session{Store: st, ID: "s1"}
	pol := continuation.New()
	ag := &fakeAgent{sess: sess}
	step := Step{Agent: showingAgent{ag}, Session: sess, Policy: pol,
		Tools: func() continuation.Tools { return continuation.Tools{Todo: "TodoWrite"} }}
	done := todos(todolist.Completed, todolist.Completed, todolist.Completed)
	for i, tc := range []struct {
		list []todolist.Todo
		line string
	}{
		{done, "continuing 1/3 — 3 items done without a receipt"},
		{done, "all done"}, // re-sent after the archive
		{append(todolist.CloneTodos(done[:1]), todolist.Todo{Content: "item x", Status: todolist.Completed}), "continuing 1/3 — 1 item done without a receipt"},
	} {
		if _, archived, err := Begin(sess, pol); err != nil || (i > 0) != (archived > 0) {
			t.Fatalf("turn %d: Begin archived %d, %v", i+1, archived, err)
		}
		ag.list = tc.list
		out, err := step.Run(context.Background(), agent.Turn{Prompt: "go"}, func(agent.Event) {})
		if err != nil {
			t.Fatal(err)
		}
		if out.Decision.Line != tc.line || out.Decision.Progress {
			t.Errorf("turn %d: %+v, want %q", i+1, out.Decision, tc.line)
		}
	}
}
