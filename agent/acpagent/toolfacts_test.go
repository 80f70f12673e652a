package acpagent

import (
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/agent"
)

// ACP tool calls become receipts' facts: kind from ACP's kinds, the
// command or path, the end from status and rawOutput's exit code.
func TestToolFacts(t *testing.T) {
	completed, failed := acp.ToolCallStatusCompleted, acp.ToolCallStatusFailed
	execute := acp.ToolKindExecute
	f := toolFacts{}
	start, end := f.begin(&acp.SessionUpdateToolCall{ToolCallId: "a", Title: "`go test`", Kind: acp.ToolKindExecute,
		Status: acp.ToolCallStatusPending, RawInput: map[string]any{"command": "go test"}}, "go test")
	if start == nil || end != nil || start.Kind != agent.ToolExecute || start.Target != "go test" || start.State != agent.ToolStarted {
		t.Fatalf("begin: %+v %+v", start, end)
	}
	// An exit code that is not 0 fails a call the agent says completed.
	if s, e := f.update(&acp.SessionToolCallUpdate{ToolCallId: "a", Status: &completed, RawOutput: map[string]any{"exit_code": 3.0}}, "go test"); s != nil || e == nil ||
		e.State != agent.ToolFailed || e.Exit == nil || *e.Exit != 3 {
		t.Fatalf("update: %+v %+v", s, e)
	}
	// Ended once: a later update says nothing more.
	if _, e := f.update(&acp.SessionToolCallUpdate{ToolCallId: "a", Status: &completed}, "go test"); e != nil {
		t.Fatalf("ended twice: %+v", e)
	}
	// An edit that arrives finished, with its path in locations.
	s, e := f.begin(&acp.SessionUpdateToolCall{ToolCallId: "b", Title: "Write a.go", Kind: acp.ToolKindEdit, Status: completed,
		Locations: []acp.ToolCallLocation{{Path: "/w/a.go"}}}, "Write a.go")
	if s == nil || e == nil || e.Kind != agent.ToolEdit || e.Target != "/w/a.go" || e.State != agent.ToolSucceeded {
		t.Fatalf("finished edit: %+v %+v", s, e)
	}
	// An update for a call never seen starts it.
	s, e = f.update(&acp.SessionToolCallUpdate{ToolCallId: "c", Kind: &execute, Status: &failed, RawInput: map[string]any{"command": []any{"make", "all"}}}, "make")
	if s == nil || e == nil || s.Target != "make all" || e.State != agent.ToolFailed || e.Kind != agent.ToolExecute {
		t.Fatalf("unseen call: %+v %+v", s, e)
	}
	if exitCode(map[string]any{"exit_code": 1.5}) != nil || exitCode("x") != nil || exitCode(map[string]any{"exitCode": 0.0}) == nil {
		t.Fatal("exitCode reads what is no exit code")
	}
}
