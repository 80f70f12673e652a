// Package agent defines the one interface every agent backend implements
// (model API, wrapped CLIs, ACP, scripted) and the list merge they share.
// Backends live in subpackages; the shell sees only this interface. The todo
// tools todosh serves (to a model, over MCP) are in agent/todotools.
package agent

import (
	"context"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/todostore"
)

// MCPName is todosh's MCP server's name, in MCP and in the names an agent
// gives its tools (Claude Code's mcp__todosh__todo_write).
const MCPName = "todosh"

// SessionEnv is the variable todosh sets for every agent it starts, so a
// `todosh mcp` started by that agent serves the same session.
const SessionEnv = "TODOSH_SESSION"

// MCPServer describes todosh's own MCP server as it is handed to an agent:
// a stdio command, in session/new for ACP agents and on the command line
// for the wrapped CLIs.
type MCPServer struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
}

// EventKind says what an Event carries.
type EventKind int

// The kinds of event a turn emits, in the order they happen.
const (
	// EventText is a piece of the agent's reply; pieces may split lines,
	// the renderer joins them and prints whole lines.
	EventText EventKind = iota
	// EventToolCall is one tool call, as one short line in Text
	// ("todo_write 3 items", "Bash ls -la").
	EventToolCall
	// EventTodos says the session's list changed on disk; Todos is the new
	// list. Emitted only for real changes.
	EventTodos
	// EventPause says the agent paused to ask the person; Text is the reason.
	EventPause
	// EventNotice is a one-line remark about the turn (a malformed stream
	// line skipped, the step cap reached) that is not the agent's text.
	EventNotice
	// EventUsage is tokens the agent reported spending (Usage), as it
	// reported them: the ledger of issue 26 attributes them to the item in
	// progress. Not shown as a line of its own.
	EventUsage
	// EventStatus is the agent's own word on its trouble as it happens (an
	// API retry with its count, a reconnect, a rate limit, waiting for
	// permission): Text is one
	// line that replaces the previous status; empty Text clears it. A
	// renderer shows one status at a time, not a line each.
	EventStatus
)

// Event is one thing that happened during a turn.
type Event struct {
	Kind  EventKind
	Text  string
	Todos []todolist.Todo
	// Tool is what is known of an EventToolCall beyond its line, when the
	// backend sees it: the facts receipts are made of. nil otherwise.
	Tool *ToolCall
	// Usage is an EventUsage's tokens.
	Usage *Usage
	// AtEnd is set on an EventUsage the agent gives only when the turn
	// ends (Codex's turn.completed, Gemini's result stats, an ACP prompt
	// response): the work log charges it to the items in progress during
	// the turn (todostore.ChargeTurns), not to the one it ended on.
	AtEnd bool
}

// ToolKind is what a tool call did, as far as receipts care.
type ToolKind uint8

// The kinds of tool call; an edit or an execute that succeeded is work a
// receipt can show, a read or another call is not.
const (
	ToolOther ToolKind = iota
	ToolEdit
	ToolExecute
	ToolRead
)

// toolKindNames is the one table of kinds' names, in events, files and the
// JSONL stream.
var toolKindNames = [...]string{ToolOther: "other", ToolEdit: "edit", ToolExecute: "execute", ToolRead: "read"}

// String is the kind's name: other, edit, execute or read.
func (k ToolKind) String() string {
	if int(k) < len(toolKindNames) {
		return toolKindNames[k]
	}
	return "other"
}

// ToolState is where a tool call is: started, or ended well or badly.
type ToolState uint8

// The states of a tool call, in the order they happen.
const (
	ToolStarted ToolState = iota
	ToolSucceeded
	ToolFailed
)

// ToolCall is one tool call as the agent's stream, hook or protocol showed
// it. A backend emits it when it starts (if it sees that) and again when it
// ends, with the same ID.
type ToolCall struct {
	// ID pairs a call's start with its end: the agent's own id where it
	// gives one.
	ID string
	// Name is the tool's name as the agent spells it (Bash, shell, edit_file).
	Name string
	// Kind is what the call did.
	Kind ToolKind
	// Target is the command run or the path touched, one line.
	Target string
	// State is whether it started, succeeded or failed.
	State ToolState
	// Exit is the command's exit status, when the agent gives one.
	Exit *int
}

// Usage is tokens spent, as the agent reported them for one request or
// step: counts since its previous report in the turn, never running totals
// (a backend whose agent reports totals sends the difference).
type Usage struct {
	Input, Output int64
}

// Turn is what the shell asks of the agent: one prompt, from the person or
// from the continuation policy.
type Turn struct {
	// Prompt is sent as the user message.
	Prompt string
	// Continuation is true when Prompt came from the continuation policy.
	Continuation bool
	// TodoContext is the list of open items rendered for the agent (empty
	// when nothing is open); backends send it as system context.
	TodoContext string
	// Ask asks the person one question during the turn (an ACP agent's
	// permission request) and returns the index of the chosen option; an
	// error means no answer (Ctrl-C, the terminal gone). nil when nobody
	// can be asked (a script): the backend then decides by its flags.
	Ask func(ctx context.Context, q Question) (int, error)
}

// PromptContext is the todo context a backend puts before the prompt in
// the user's message: none for a continuation, whose prompt shows the list
// in its own block already (continuation.Block), so the agent never reads
// it twice. Context sent apart from the prompt (a system message, a
// context file) is TodoContext whole.
func (t Turn) PromptContext() string {
	if t.Continuation {
		return ""
	}
	return t.TodoContext
}

// Question is what a backend asks the person: one line naming what the
// agent wants, and the answers, each chosen by its key (1, 2, ...).
type Question struct {
	Text    string
	Options []string
}

// Result is how a turn ended, for the continuation policy.
type Result struct {
	// FinalText is the agent's last reply text, used to see whether it
	// ended by asking the person a question.
	FinalText string
	// Paused is true when the agent successfully paused; PauseReason is why.
	Paused      bool
	PauseReason string
}

// Agent is one backend. RunTurn blocks until the turn ends, calls emit from
// the calling goroutine only, and returns ctx.Err() when cancelled. The list
// lives in the store; backends write it with Store.Update so other
// processes never lose updates.
type Agent interface {
	// Name is the backend's name as the person chose it ("openai", "claude").
	Name() string
	// TodoTool names the agent's own tool for updating the list, so the
	// continuation prompt can tell it what to call.
	TodoTool() string
	RunTurn(ctx context.Context, turn Turn, emit func(Event)) (Result, error)
}

// ToolLoader is an Agent whose todo tools may be deferred: LoadTool names
// the tool that loads them (Claude Code's ToolSearch), so prompts say to
// load them first; "" when they need no loading.
type ToolLoader interface {
	LoadTool() string
}

// Session is the todo list a backend works on: one session of one store.
type Session struct {
	Store *todostore.Store
	ID    string
	// Cwd, when set, is recorded by the first write that changes the list,
	// the pause or records the agent, in that same write.
	Cwd string
}

// Load reads the session's current state.
func (s Session) Load() (*todostore.Session, error) { return s.Store.LoadOrNew(s.ID) }

// Update changes the session under its lock as the agent's change; see
// todostore.Store.Commit.
func (s Session) Update(fn func(*todostore.Session) error) (*todostore.Session, error) {
	sess, _, err := s.Commit(todolist.ByAgent, fn)
	return sess, err
}

// Commit is todostore.Store.Commit on this session by author by, with
// the session's Cwd recorded in a first write.
func (s Session) Commit(by todolist.Author, fn func(*todostore.Session) error) (*todostore.Session, bool, error) {
	return s.Store.Commit(s.ID, by, func(sess *todostore.Session) error {
		// The list before fn is copied only when a cwd may be recorded:
		// once per session, not at every call.
		needCwd := sess.Cwd == "" && s.Cwd != ""
		var before []todolist.Todo
		if needCwd {
			before = todolist.CloneTodos(sess.Todos)
		}
		paused := sess.Paused
		if err := fn(sess); err != nil {
			return err
		}
		if needCwd && sess.Cwd == "" && (sess.Agent != nil || sess.Paused != paused || !todolist.SameTodos(before, sess.Todos)) {
			sess.Cwd = s.Cwd
		}
		return nil
	})
}
