package repl

import (
	"encoding/json"
	"io"
	"strings"
	"sync"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/continuation"
	"github.com/todosh/todosh/todostore"
)

// JSONLVersion is the "v" of every event of --output jsonl. It rises when
// a field changes meaning or goes away; new fields and new event types do
// not raise it, so readers must ignore what they do not know.
const JSONLVersion = 1

// jsonlView is --output jsonl: every event of a script as one JSON object
// on its own line (docs/events.md). It is the turnView of
// the runner and also reports the list after slash commands and their
// output.
type jsonlView struct {
	mu      sync.Mutex
	out     io.Writer
	enc     *json.Encoder
	session string
	source  string // of the next todo_list event: "agent" in a turn

	shown string // FormatList of the last list sent
	work  func() *todolist.Summary
	known bool

	// pending is reply text after its last newline: text events are whole
	// lines (the newline kept), so the stream does not depend on how the
	// agent split its reply.
	pending strings.Builder
}

func newJSONLView(out io.Writer) *jsonlView {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	return &jsonlView{out: out, enc: enc, source: "agent"}
}

// jsonlItem is one item of a todo_list event: the unified todo item of the
// agent-chatter design, with todosh's positions as ids and subtasks.
type jsonlItem struct {
	ID       string      `json:"id"`
	Content  string      `json:"content"`
	Status   string      `json:"status"`
	Evidence string      `json:"evidence,omitempty"`
	Subtasks []jsonlItem `json:"subtasks,omitempty"`
	// Receipt is, for a completed item of a session whose work todosh
	// sees, what it saw: seen false is "done (reported)".
	Receipt *jsonlReceipt `json:"receipt,omitempty"`
}

// jsonlReceipt is an item's receipt (todolist.ItemWork).
type jsonlReceipt struct {
	Seen     bool   `json:"seen"`
	Edits    int    `json:"edits,omitempty"`
	Commands int    `json:"commands,omitempty"`
	Last     string `json:"last,omitempty"`
}

// jsonlEvent is one line of the stream; fields not used by a type are
// left out.
type jsonlEvent struct {
	V       int         `json:"v"`
	Type    string      `json:"type"`
	Session string      `json:"session,omitempty"`
	Source  string      `json:"source,omitempty"`
	Items   []jsonlItem `json:"items,omitempty"`
	Done    *int        `json:"done,omitempty"`
	Total   *int        `json:"total,omitempty"`
	Text    string      `json:"text,omitempty"`
	Reason  string      `json:"reason,omitempty"`
	// continuation
	Continue *bool `json:"continue,omitempty"`
	Attempt  int   `json:"attempt,omitempty"`
	Progress *bool `json:"progress,omitempty"`
	// tool_call, tool_result
	Tool *jsonlTool `json:"tool,omitempty"`
	// cost
	Ledger *jsonlLedger `json:"ledger,omitempty"`
	// end
	Exit *int `json:"exit,omitempty"`
	// error
	Message string `json:"message,omitempty"`
}

func (j *jsonlView) emit(ev jsonlEvent) {
	ev.V, ev.Session = JSONLVersion, j.session
	j.mu.Lock()
	defer j.mu.Unlock()
	// A closed stdout cannot be told so.
	_ = j.enc.Encode(ev)
}

// items converts a list to the unified shape.
func items(todos []todolist.Todo) []jsonlItem {
	out := make([]jsonlItem, 0, len(todos))
	for i, t := range todos {
		it := jsonlItem{ID: itoa(i + 1), Content: t.Content, Status: string(t.Status), Evidence: t.Evidence}
		for k, s := range t.Subtasks {
			it.Subtasks = append(it.Subtasks, jsonlItem{ID: itoa(i+1) + "." + itoa(k+1), Content: s.Content, Status: string(s.Status), Evidence: s.Evidence})
		}
		out = append(out, it)
	}
	return out
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// Event sends one event of a turn.
func (j *jsonlView) Event(ev agent.Event) {
	switch ev.Kind {
	case agent.EventText:
		j.text(ev.Text)
		return
	case agent.EventUsage:
		return // not a line: it must not cut the text being streamed in two
	}
	j.Flush()
	switch ev.Kind {
	case agent.EventToolCall:
		j.toolCall(ev)
	case agent.EventTodos:
		j.Todos(ev.Todos)
	case agent.EventPause:
		j.emit(jsonlEvent{Type: "pause", Reason: ev.Text})
	case agent.EventNotice:
		j.emit(jsonlEvent{Type: "notice", Text: ev.Text})
	case agent.EventStatus:
		j.emit(jsonlEvent{Type: "status", Text: ev.Text})
	}
}

// text sends every line s completes.
func (j *jsonlView) text(s string) {
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			j.pending.WriteString(s)
			return
		}
		j.pending.WriteString(s[:i+1])
		j.emit(jsonlEvent{Type: "text", Text: j.pending.String()})
		j.pending.Reset()
		s = s[i+1:]
	}
}

// Flush sends reply text that has no newline yet.
func (j *jsonlView) Flush() {
	if j.pending.Len() > 0 {
		j.emit(jsonlEvent{Type: "text", Text: j.pending.String()})
		j.pending.Reset()
	}
}

// Line sends one of todosh's own lines ("turn cancelled") as a notice.
func (j *jsonlView) Line(s string) {
	j.Flush()
	j.emit(jsonlEvent{Type: "notice", Text: s})
}

// Todos sends a todo_list event unless the list equals the last one sent.
func (j *jsonlView) Todos(todos []todolist.Todo) bool {
	text := todoview.FormatList(todos)
	j.mu.Lock()
	same := j.known && text == j.shown
	j.shown, j.known = text, true
	src := j.source
	j.mu.Unlock()
	if same {
		return false
	}
	j.Flush()
	c := todolist.CountTodos(todos)
	done, total := c.Done(), c.Total
	its := items(todos)
	if j.work != nil {
		if w := j.work(); w != nil && w.Shows {
			for i, t := range todos {
				if t.Status == todolist.Completed {
					iw := w.Items[t.UID]
					its[i].Receipt = &jsonlReceipt{Seen: iw.Seen, Edits: iw.Edits, Commands: iw.Commands, Last: iw.Last}
				}
			}
		}
	}
	j.emit(jsonlEvent{Type: "todo_list", Source: src, Items: its, Done: &done, Total: &total})
	return true
}

// SetWork gives the stream the session's work log, so each completed
// item of a todo_list says what todosh saw of it (its receipt).
func (j *jsonlView) SetWork(work func() *todolist.Summary) { j.work = work }

// Seen records the list as sent.
func (j *jsonlView) Seen(todos []todolist.Todo) {
	j.mu.Lock()
	j.shown, j.known = todoview.FormatList(todos), todos != nil
	j.mu.Unlock()
}

// Decision sends the continuation policy's decision after a turn.
func (j *jsonlView) Decision(dec continuation.Decision) {
	j.Flush()
	cont, prog := dec.Continue, dec.Progress
	ev := jsonlEvent{Type: "continuation", Continue: &cont, Progress: &prog, Text: dec.Line}
	if dec.Continue {
		ev.Attempt = dec.Attempt
	} else {
		ev.Reason = string(dec.Reason)
	}
	j.emit(ev)
}

// Error sends an error event.
func (j *jsonlView) Error(msg string) {
	j.Flush()
	j.emit(jsonlEvent{Type: "error", Message: msg})
}

// End sends the end event of a prompt with its reason and the exit status
// it gives a script that ends there.
func (j *jsonlView) End(reason string) {
	j.Flush()
	code := ExitFor(reason)
	j.emit(jsonlEvent{Type: "end", Reason: reason, Exit: &code})
}

// endSignal sends the last event of a stream an exit signal ended: reason
// EndSignal, the process's exit status and the line naming the signal.
func (j *jsonlView) endSignal(c signalCause) {
	j.Flush()
	code := c.exitStatus()
	j.emit(jsonlEvent{Type: "end", Reason: EndSignal, Exit: &code, Text: c.Error()})
}

// loadList is the list before a slash command; nil if unreadable.
func (j *jsonlView) loadList(store *todostore.Store, id string) []todolist.Todo {
	sess, err := store.LoadOrNew(id)
	if err != nil {
		return nil
	}
	return sess.Todos
}

// commandDone reports a slash command: its error, and the list when it
// changed.
func (j *jsonlView) commandDone(store *todostore.Store, id string, before []todolist.Todo, err error) {
	if err != nil {
		j.emit(jsonlEvent{Type: "error", Message: err.Error()})
	}
	sess, lerr := store.LoadOrNew(id)
	if lerr != nil {
		return
	}
	if todoview.FormatList(sess.Todos) == todoview.FormatList(before) {
		return
	}
	j.listFrom("command", sess.Todos)
}

// listFrom sends a todo_list event with another source than the agent's.
func (j *jsonlView) listFrom(source string, todos []todolist.Todo) {
	j.mu.Lock()
	j.source = source
	j.mu.Unlock()
	j.Todos(todos)
	j.mu.Lock()
	j.source = "agent"
	j.mu.Unlock()
}

// commandOutput is where slash commands print: each write one output
// event.
func (j *jsonlView) commandOutput() io.Writer { return jsonlOutput{j} }

type jsonlOutput struct{ j *jsonlView }

func (o jsonlOutput) Write(p []byte) (int, error) {
	o.j.emit(jsonlEvent{Type: "output", Text: string(p)})
	return len(p), nil
}

// jsonlTool is what is known of a tool call (agent.ToolCall).
type jsonlTool struct {
	ID     string `json:"id,omitempty"`
	Name   string `json:"name,omitempty"`
	Kind   string `json:"kind"`
	Target string `json:"target,omitempty"`
	State  string `json:"state"`
	Exit   *int   `json:"exit,omitempty"`
}

// toolStates names agent.ToolState in the stream.
var toolStates = [...]string{agent.ToolStarted: "started", agent.ToolSucceeded: "succeeded", agent.ToolFailed: "failed"}

// toolCall sends an event with a line (a call's start, or a call shown
// once when it ended) as tool_call, and a call's end without one as
// tool_result, so each call is one tool_call.
func (j *jsonlView) toolCall(ev agent.Event) {
	var t *jsonlTool
	if c := ev.Tool; c != nil {
		t = &jsonlTool{ID: c.ID, Name: c.Name, Kind: c.Kind.String(), Target: c.Target, State: toolStates[c.State], Exit: c.Exit}
	}
	switch {
	case ev.Text != "":
		j.emit(jsonlEvent{Type: "tool_call", Text: ev.Text, Tool: t})
	case t != nil && ev.Tool.State != agent.ToolStarted:
		j.emit(jsonlEvent{Type: "tool_result", Tool: t})
	}
}

// jsonlLedger is a cost event's ledger: each item's row, what no item was
// in progress for, and the total they add up to.
type jsonlLedger struct {
	Items        []jsonlCost `json:"items"`
	Unattributed jsonlCost   `json:"unattributed"`
	Total        jsonlCost   `json:"total"`
}

// jsonlCost is one row of a cost event (todostore.Cost).
type jsonlCost struct {
	ID      string  `json:"id,omitempty"`  // the position now, "" when no longer on the list
	UID     string  `json:"uid,omitempty"` // the stable id
	Content string  `json:"content,omitempty"`
	Seconds float64 `json:"seconds"` // time in progress
	Input   int64   `json:"input"`
	Output  int64   `json:"output"`
	Calls   int     `json:"tool_calls"`
}

func jsonlCostOf(c todostore.Cost) jsonlCost {
	out := jsonlCost{UID: c.UID, Content: c.Content, Seconds: c.InProgress.Seconds(), Input: c.In, Output: c.Out, Calls: c.Calls}
	if c.Pos > 0 {
		out.ID = itoa(c.Pos)
	}
	return out
}

// Cost sends the session's ledger: each item's cost, what no item was in
// progress for, and the total they add up to.
func (j *jsonlView) Cost(l todostore.Ledger) {
	j.Flush()
	rows := make([]jsonlCost, 0, len(l.Items))
	for _, c := range l.Items {
		rows = append(rows, jsonlCostOf(c))
	}
	j.emit(jsonlEvent{Type: "cost", Ledger: &jsonlLedger{Items: rows, Unattributed: jsonlCostOf(l.Unattributed), Total: jsonlCostOf(l.Total)}})
}
