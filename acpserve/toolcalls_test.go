package acpserve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/todosh/todosh/agent"

	"github.com/todosh/todosh/todolist"

	acp "github.com/coder/acp-go-sdk"
)

// The editor's plan says which completed items have a receipt: one
// without reads "(reported)", and every completed one carries its receipt
// in _meta; a session whose work todosh does not see is left as it was.
func TestPlanReceipts(t *testing.T) {
	todos := []todolist.Todo{
		{UID: "t1", Content: "parser", Status: todolist.Completed},
		{UID: "t2", Content: "tests", Status: todolist.Completed},
		{UID: "t3", Content: "docs", Status: todolist.InProgress},
	}
	work := &todolist.Summary{Shows: true, Items: map[string]todolist.ItemWork{"t1": {Seen: true, Commands: 2, Last: "go test ./..."}}}
	got := PlanReceipts(PlanEntries(todos), todos, work)
	if got[0].Content != "parser" || got[1].Content != "(reported) tests" || got[2].Content != "docs" {
		t.Fatalf("contents %q %q %q", got[0].Content, got[1].Content, got[2].Content)
	}
	rc := got[0].Meta["todosh"].(map[string]any)["receipt"].(map[string]any)
	if rc["seen"] != true || rc["commands"] != 2 || got[2].Meta != nil {
		t.Fatalf("meta %v / %v", got[0].Meta, got[2].Meta)
	}
	if got[1].Status != acp.PlanEntryStatusCompleted {
		t.Fatalf("a reported item is still completed for the editor: %v", got[1].Status)
	}
	plain := PlanReceipts(PlanEntries(todos), todos, &todolist.Summary{})
	if plain[1].Content != "tests" || plain[0].Meta != nil {
		t.Fatalf("a session without work shown with receipts: %+v", plain)
	}
}

// TestToolEvent: a backend call's start with an id is an editor tool call
// in progress and its end the update that completes or fails it; a call
// known only by its line, or with no id, is one completed tool call; a
// call without a line or an id shows nothing.
func TestToolEvent(t *testing.T) {
	exit := 2
	tests := []struct {
		name string
		ev   agent.Event
		want string // "start ID STATUS", "update ID STATUS", "" for nothing
	}{
		{"a line alone", agent.Event{Text: "ran ls"}, "start todosh- completed"},
		{"nothing", agent.Event{}, ""},
		{"start with an id", agent.Event{Text: "ran ls", Tool: &agent.ToolCall{ID: "c1", Kind: agent.ToolExecute}}, "start todosh-call-c1 in_progress"},
		{"start without an id", agent.Event{Text: "ran ls", Tool: &agent.ToolCall{Kind: agent.ToolExecute}}, "start todosh- completed"},
		{"start without an id or a line", agent.Event{Tool: &agent.ToolCall{}}, ""},
		{"success with an id", agent.Event{Tool: &agent.ToolCall{ID: "c1", State: agent.ToolSucceeded}}, "update todosh-call-c1 completed"},
		{"failure with an id", agent.Event{Tool: &agent.ToolCall{ID: "c1", State: agent.ToolFailed, Exit: &exit}}, "update todosh-call-c1 failed"},
		{"end without an id, with a line", agent.Event{Text: "ran ls", Tool: &agent.ToolCall{State: agent.ToolSucceeded}}, "start todosh- completed"},
		{"end without an id or a line", agent.Event{Tool: &agent.ToolCall{State: agent.ToolFailed}}, ""},
	}
	for _, tt := range tests {
		ss := &session{gated: true} // held updates are what was sent
		ss.toolEvent(tt.ev)
		got := ""
		if len(ss.held) > 1 {
			t.Errorf("%s: %d updates, want at most 1", tt.name, len(ss.held))
		}
		if len(ss.held) == 1 {
			switch u := ss.held[0]; {
			case u.ToolCall != nil:
				id := string(u.ToolCall.ToolCallId)
				if !strings.HasPrefix(id, "todosh-call-") {
					id = strings.TrimRight(id, "0123456789")
				}
				got = "start " + id + " " + string(u.ToolCall.Status)
			case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
				got = "update " + string(u.ToolCallUpdate.ToolCallId) + " " + string(*u.ToolCallUpdate.Status)
			default:
				got = fmt.Sprintf("%+v", u)
			}
		}
		if got != tt.want {
			t.Errorf("%s: sent %q, want %q", tt.name, got, tt.want)
		}
	}
}
