package hooks

import (
	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/clis"
	"github.com/todosh/todosh/continuation"
	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todostore"
)

// work records one tool call the agent's post-tool hook reported in the
// session's work log (issue 26), against the item in progress then: the
// receipts the stop gate checks. A session the agent's todo tool never
// made is left alone, at the cost of a stat.
func (h *hook) work(call clis.HookCall) ([]byte, []string, error) {
	if ok, err := h.exists(); !ok {
		return nil, nil, err
	}
	tc := clis.HookWork(call)
	line, _ := agent.WorkLine(agent.Event{Kind: agent.EventToolCall, Tool: &tc})
	line.Sees = true
	if _, err := h.cfg.Store.RecordWork(h.id, line); err != nil {
		return nil, nil, err
	}
	return nil, nil, nil
}

// receipts is the gate's receipt rule for the session: whether the work
// log holds a receipt for an item. The hooks see every tool call of the
// agent, so a completion counts only with one. nil (the status rule)
// when the log cannot be read, with the cause.
func (h *hook) receipts() (func(string) bool, error) {
	r, err := h.cfg.Store.Receipts(h.id, true)
	if err != nil {
		return nil, err
	}
	return r.Sum.Receipt, nil
}

// known is continuation.Turn.Known for a stop: the item texts of the
// session's history up to change mark (continuation.KnownFrom).
func (h *hook) known(mark int) func(key string) bool {
	return continuation.KnownFrom(func() map[string]bool {
		return h.cfg.Store.ItemTexts(h.id, mark, continuation.TextKey)
	})
}

// keepFirst records in next the list the agent just wrote when it is its
// first since the last stop or the person's prompt (prev has none), so
// the gate measures a list made and finished between two stops from it.
func keepFirst(next, prev *todostore.HookState, todos []todolist.Todo) {
	if prev != nil && prev.First != nil {
		next.First = todolist.CloneTodos(prev.First)
		return
	}
	next.First = snapshot(todos)
	if next.First == nil {
		next.First = []todolist.Todo{}
	}
}
