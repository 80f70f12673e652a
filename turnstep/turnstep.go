// Package turnstep is one agent turn carried out against the session and
// the continuation policy (ARCHITECTURE.md §7), shared by every front end
// that runs prompts: the shell (repl) and the ACP server (acpserve). It
// reads and writes the store around the turn and asks the policy what comes
// next; what is shown, the countdown and how a continuation is announced
// stay with the caller, so each front end keeps its own I/O.
package turnstep

import (
	"context"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/continuation"
	"github.com/todosh/todosh/todostore"
)

// Begin applies ARCHITECTURE.md §7 for a prompt from the person: the
// policy's counters start again, a list whose items are all done is
// archived (archived says how many items) and a pause is lifted. The file
// is written only when something changes, so a prompt to a session
// without a file creates none.
func Begin(s agent.Session, p *continuation.Policy) (sess *todostore.Session, archived int, err error) {
	p.PersonPrompt()
	// Most prompts find nothing to archive and no pause: a Load (a stat
	// while the file is unchanged), no Commit.
	if sess, err = s.Load(); err != nil || !todolist.AllDone(sess.Todos) && !sess.Paused && sess.PauseReason == "" {
		if err == nil {
			p.SetMark(changeN(sess))
		}
		return sess, 0, err
	}
	sess, _, err = s.Commit(todolist.ByYou, func(cur *todostore.Session) error {
		archived = 0 // fn may run twice
		if todolist.AllDone(cur.Todos) {
			archived = len(cur.Todos)
			cur.ArchiveTodos("all done")
		}
		cur.Paused, cur.PauseReason = false, ""
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	// The archive is a change before the prompt: the finished items it
	// took are known texts an agent may re-send (continuation.Turn.Known).
	p.SetMark(changeN(sess))
	return sess, archived, nil
}

// Step is what one turn needs: the agent, its session, the policy and
// the tools the continuation prompt may name.
type Step struct {
	Agent   agent.Agent
	Session agent.Session
	Policy  *continuation.Policy
	// Tools are asked after the turn: an agent learns which todo tools it
	// has from its own stream (Claude Code's init line).
	Tools func() continuation.Tools
	// Cwd is recorded by a successful turn in a session that has none, so
	// --resume finds a conversation that never touched the list.
	Cwd string
	// Ask is agent.Turn.Ask: who answers the agent's questions.
	Ask func(ctx context.Context, q agent.Question) (int, error)
	// Context, when not nil, keeps the todo context across the turns of
	// one caller; nil encodes it at every turn.
	Context *ContextCache
}

// ContextCache is the todo context last sent and the list it was made
// from, so a turn on an unchanged list does not format and encode it
// again (docs/performance.md: an unchanged turn).
type ContextCache struct {
	text  string
	todos []todolist.Todo
	known bool
}

// For returns continuation.TodoContext(todos), from the cache when todos
// is the list it was last made from. todos is kept: the caller must not
// change it afterwards.
func (c *ContextCache) For(todos []todolist.Todo) string {
	if c == nil {
		return continuation.TodoContext(todos)
	}
	if !c.known || !todolist.SameTodos(todos, c.todos) {
		c.text, c.todos, c.known = continuation.TodoContext(todos), todos, true
	}
	return c.text
}

// Outcome is how one turn ended.
type Outcome struct {
	// Decision is the policy's word on what comes next; zero when the
	// turn was aborted or failed, or the store failed.
	Decision continuation.Decision
	// After is the list after the turn; Listed says it was read. It is
	// the store's own (todostore.Store.ReadShared): read it, never change
	// it.
	After  []todolist.Todo
	Listed bool
	// Aborted: the turn's context ended (Ctrl-C, session/cancel).
	Aborted bool
	// Err is the agent's own error; the backends' errors name the agent.
	Err error
}

// StoreError is a failure of the store around the turn; Stage says, in
// the words the person reads, what did not happen ("prompt not sent").
type StoreError struct {
	Stage string
	Err   error
}

// Error is the stage, then the store's cause.
func (e *StoreError) Error() string { return e.Stage + ": " + e.Err.Error() }

// Unwrap gives errors.Is and errors.As the cause.
func (e *StoreError) Unwrap() error { return e.Err }

// Run runs one turn in ctx, which is the turn's own context (cancelled
// by the person), streams its events to emit, records a pause the agent
// made (also one made through todosh's MCP server, found only in the
// session file) and the cwd, and asks the policy. err is a *StoreError;
// the turn's own failure or cancellation is in the Outcome.
func (s Step) Run(ctx context.Context, turn agent.Turn, emit func(agent.Event)) (Outcome, error) {
	// The list the turn's prompt shows is the agent's read, marked in the
	// same locked change it is taken from (ARCHITECTURE.md §6), so the
	// merge of the agent's next list knows what it saw.
	// Most turns find the read marked already (nothing changed since the
	// last one): a read, no Commit. The lists before and after the turn
	// are only read, so they are the store's own (ReadShared), not copies.
	sess, err := s.Session.Store.ReadShared(s.Session.ID)
	if err == nil && todolist.CountTodos(sess.Todos).Open() > 0 && sess.AgentRead != sess.Rev {
		sess, _, err = s.Session.Commit(todolist.ByAgent, func(cur *todostore.Session) error {
			if todolist.CountTodos(cur.Todos).Open() > 0 { // the prompt shows the list only then
				cur.MarkAgentRead()
			}
			return nil
		})
	}
	if err != nil {
		return Outcome{}, &StoreError{"prompt not sent", err}
	}
	before := sess.Todos
	beforeN := changeN(sess)
	wasPaused := sess.Paused
	// Sent with continuations too, although their prompt repeats the
	// block: backends state in their system context whether items are
	// open, and must not say "none" while the prompt lists them.
	turn.TodoContext = s.Context.For(before)
	turn.Ask = s.Ask

	// The first list the agent writes, so finishing an item of a list
	// written in the same turn counts as progress (continuation.Turn.First).
	var first []todolist.Todo
	work := s.workRecorder(before, emit)
	// What the turn spent, for the prompt's budget (continuation.Budget).
	var tokens int64
	record := func(ev agent.Event) {
		switch {
		case ev.Kind == agent.EventTodos && first == nil:
			first = todolist.CloneTodos(ev.Todos)
			if first == nil {
				first = []todolist.Todo{}
			}
		case ev.Kind == agent.EventUsage && ev.Usage != nil:
			tokens += ev.Usage.Total()
		}
		work(ev)
		emit(ev)
	}
	start := time.Now()
	res, turnErr := s.Agent.RunTurn(ctx, turn, record)
	took := time.Since(start)
	out := Outcome{Aborted: ctx.Err() != nil, Err: turnErr}

	sess, err = s.Session.Store.ReadShared(s.Session.ID)
	if err != nil {
		return out, &StoreError{"todo list unreadable after the turn", err}
	}
	out.After, out.Listed = sess.Todos, true
	hist := s.history()
	if first == nil && !todolist.SameTodos(before, out.After) {
		first = firstWritten(hist(), beforeN, before)
	}

	if !res.Paused && sess.Paused && !wasPaused {
		res.Paused, res.PauseReason = true, sess.PauseReason
	}
	ok := turnErr == nil && !out.Aborted
	paused := res.Paused && ok
	// One write with the pause; a failed turn leaves a session without a
	// file as it was.
	needCwd := ok && s.Cwd != "" && sess.Cwd == ""
	if paused || needCwd {
		if _, err := s.Session.Update(func(cur *todostore.Session) error {
			if paused {
				cur.Paused, cur.PauseReason = true, res.PauseReason
			}
			if cur.Cwd == "" && needCwd {
				cur.Cwd = s.Cwd
			}
			return nil
		}); err != nil {
			return out, &StoreError{"pause not saved", err}
		}
	}
	receipt, err := s.receipts()
	if err != nil {
		emit(agent.Event{Kind: agent.EventNotice, Text: "receipts unreadable, completions count by status: " + err.Error()})
	}
	dec := s.Policy.Decide(continuation.Turn{
		Receipt:     receipt,
		Known:       s.known(receipt != nil, hist),
		Aborted:     out.Aborted,
		Err:         turnErr,
		Paused:      paused,
		PauseReason: res.PauseReason,
		Before:      before,
		After:       out.After,
		First:       first,
		FinalText:   res.FinalText,
		Tokens:      tokens,
		Took:        took,
	}, s.Tools())
	if ok {
		out.Decision = dec
	}
	return out, nil
}

// changeN is the number of the change that wrote sess's list, 0 for
// none yet.
func changeN(sess *todostore.Session) int {
	if sess.Change == nil {
		return 0
	}
	return sess.Change.N
}

// firstWritten is the first list other than before that the agent wrote
// after change since (a change of its record alone, such as its session
// id, keeps the list), found in the session's history lines, for a turn
// whose agent wrote its list where no event of the turn shows it: through todosh's MCP server, another
// process (an ACP agent such as Gemini CLI, a CLI told to use it). Without
// it the policy would see only the list after the turn, where an item
// created and completed in the turn is new, and would not count it done
// without a receipt although every list shows it so. nil when the
// history has no such line or cannot be read: the policy then has Before
// and After, as before. The history is read (Step.history) only in such
// a turn, and once for this and Known.
func firstWritten(lines []todostore.HistoryLine, since int, before []todolist.Todo) []todolist.Todo {
	for _, l := range lines {
		if l.N > since && l.By == todolist.ByAgent && !todolist.SameTodos(l.Todos, before) {
			todos := todolist.CloneTodos(l.Todos)
			if todos == nil {
				todos = []todolist.Todo{}
			}
			return todos
		}
	}
	return nil
}

// known is continuation.Turn.Known for this step: whether an item text
// was an item of the session's history up to the person's prompt
// (Policy.Mark), which keeps every list archived. The history is read
// once, and only when the policy asks, which it does only for an item
// the agent wrote completed, never seen open, without a receipt. nil
// when receipts are not kept (the policy then counts no such item).
func (s Step) known(receipts bool, hist func() []todostore.HistoryLine) func(key string) bool {
	if !receipts {
		return nil
	}
	mark := s.Policy.Mark()
	return continuation.KnownFrom(func() map[string]bool {
		return todostore.ItemTextsIn(hist(), mark, continuation.TextKey)
	})
}

// history is the session's history for the questions asked after a turn
// (firstWritten, known): read once, when first asked, and lines read
// despite damage still count.
func (s Step) history() func() []todostore.HistoryLine {
	var lines []todostore.HistoryLine
	read := false
	return func() []todostore.HistoryLine {
		if !read {
			lines, _ = s.Session.Store.History(s.Session.ID)
			read = true
		}
		return lines
	}
}

// workRecorder returns what records each event of a turn that the work
// log keeps (a tool call that ended, tokens spent) in the session's work
// log, attributed to the item in progress then (todostore.RecordWork).
// A usage report given only at the turn's end carries when the turn began
// and the item in progress then (before, the list the turn started
// with), so the ledger charges it to the items the turn worked on
// (todostore.ChargeTurns). What cannot be recorded is said once per turn,
// never a failure of the turn.
func (s Step) workRecorder(before []todolist.Todo, emit func(agent.Event)) func(agent.Event) {
	said := false
	began := todostore.WorkLine{}
	todostore.AttributeTo(&began, before)
	since := s.Session.Store.Now()
	sees := agent.ShowsWork(s.Agent)
	return func(ev agent.Event) {
		w, ok := agent.WorkLine(ev)
		if !ok {
			return
		}
		if ev.AtEnd {
			w.Since, w.Began = since, began.Item
		}
		w.Sees = sees
		if _, err := s.Session.Store.RecordWork(s.Session.ID, w); err != nil && !said {
			said = true
			emit(agent.Event{Kind: agent.EventNotice, Text: "work log: " + todolist.ShortLine(err.Error(), 160)})
		}
	}
}

// receipts is the policy's receipt rule for this step's agent: nil (the
// status rule) for a backend that shows no work, else whether the work
// log holds a receipt for the item.
func (s Step) receipts() (func(item string) bool, error) {
	if !agent.ShowsWork(s.Agent) {
		return nil, nil
	}
	r, err := s.Session.Store.Receipts(s.Session.ID, true)
	if err != nil {
		return nil, err
	}
	return r.Sum.Receipt, nil
}
