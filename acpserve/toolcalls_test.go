package acpserve

import (
	"testing"

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
