package acpserve

import (
	"fmt"

	"github.com/todosh/todosh/todolist"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/agent"
)

// editorKinds is each agent.ToolKind as the editor's tool kind.
var editorKinds = [...]acp.ToolKind{agent.ToolOther: acp.ToolKindOther, agent.ToolEdit: acp.ToolKindEdit,
	agent.ToolExecute: acp.ToolKindExecute, agent.ToolRead: acp.ToolKindRead}

// toolEvent shows a backend's tool call (model API, wrapped CLIs): a
// call's start becomes an editor tool call in progress, its end the
// update that completes or fails it, so the editor shows each call once;
// a call known only as one line, or an end whose start the editor never
// got, is one completed tool call.
func (ss *session) toolEvent(ev agent.Event) {
	t := ev.Tool
	switch {
	case t != nil && t.ID != "" && t.State == agent.ToolStarted:
		ss.send(acp.StartToolCall(editorCallID(t.ID), ev.Text, acp.WithStartKind(editorKinds[t.Kind]),
			acp.WithStartStatus(acp.ToolCallStatusInProgress)))
	case t != nil && t.ID != "":
		status := acp.ToolCallStatusCompleted
		if t.State == agent.ToolFailed {
			status = acp.ToolCallStatusFailed
		}
		opts := []acp.ToolCallUpdateOpt{acp.WithUpdateStatus(status)}
		if t.Exit != nil {
			opts = append(opts, acp.WithUpdateRawOutput(map[string]any{"exit_code": *t.Exit}))
		}
		ss.send(acp.UpdateToolCall(editorCallID(t.ID), opts...))
	case ev.Text != "":
		ss.toolCall(ev.Text)
	}
}

// editorCallID is the editor's id of the backend's call id: prefixed, so
// it never meets the ids todosh numbers itself.
func editorCallID(id string) acp.ToolCallId { return acp.ToolCallId(fmt.Sprintf("todosh-call-%s", id)) }

// PlanReceipts marks the plan entries of completed items with what todosh
// saw of them, when the session shows the agent's work (issue 26): one
// without a receipt reads "(reported) TEXT", "done (reported)", and every
// completed one carries its receipt in _meta.todosh.receipt. entries are
// PlanEntries(todos); nil work changes nothing.
func PlanReceipts(entries []acp.PlanEntry, todos []todolist.Todo, work *todolist.Summary) []acp.PlanEntry {
	if work == nil || !work.Shows {
		return entries
	}
	for i, t := range todos {
		if i >= len(entries) || t.Status != todolist.Completed {
			continue
		}
		iw := work.Items[t.UID]
		if !iw.Seen {
			entries[i].Content = "(reported) " + entries[i].Content
		}
		entries[i].Meta = map[string]any{"todosh": map[string]any{"receipt": map[string]any{
			"seen": iw.Seen, "edits": iw.Edits, "commands": iw.Commands, "last": iw.Last}}}
	}
	return entries
}

// work is the session's work log summed; nil when unreadable.
func (ss *session) work() *todolist.Summary {
	r, err := ss.store.Receipts(ss.id, false)
	if err != nil {
		return nil
	}
	return &r.Sum
}
