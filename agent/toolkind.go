package agent

import (
	"strings"

	"github.com/todosh/todosh/todostore"
)

// toolKinds is the one table of the tools todosh knows what they do,
// across the agents, by the name each gives them: what edits files, what
// runs commands, what only reads. Any other tool is ToolOther, which a
// receipt never counts. Names compare without case, and MCP tools
// ("mcp__server__tool") by their last part.
var toolKinds = map[string]ToolKind{
	// Claude Code (its hooks use the same names), Qwen Code, pi.
	"bash": ToolExecute, "edit": ToolEdit, "multiedit": ToolEdit, "write": ToolEdit, "notebookedit": ToolEdit,
	"read": ToolRead, "grep": ToolRead, "glob": ToolRead, "ls": ToolRead, "webfetch": ToolRead, "websearch": ToolRead,
	"find": ToolRead,
	// Gemini CLI and Qwen Code.
	"run_shell_command": ToolExecute, "write_file": ToolEdit, "replace": ToolEdit, "edit_file": ToolEdit,
	"read_file": ToolRead, "read_many_files": ToolRead, "list_directory": ToolRead, "search_file_content": ToolRead,
	"google_web_search": ToolRead, "web_fetch": ToolRead, "grep_search": ToolRead,
	// Codex (its item types, its hook's tool names).
	"command_execution": ToolExecute, "file_change": ToolEdit, "shell": ToolExecute, "exec_command": ToolExecute,
	"local_shell": ToolExecute, "apply_patch": ToolEdit, "web_search": ToolRead,
}

// KindOf is the kind of the tool named name, from the table above.
func KindOf(name string) ToolKind {
	n := strings.ToLower(name)
	if strings.HasPrefix(n, "mcp__") {
		n = n[strings.LastIndex(n, "__")+2:]
	}
	return toolKinds[n]
}

// Ended is a ToolCall that ended, ok or not, with exit when known.
func Ended(id, name string, kind ToolKind, target string, ok bool, exit *int) *ToolCall {
	st := ToolSucceeded
	if !ok {
		st = ToolFailed
	}
	return &ToolCall{ID: id, Name: name, Kind: kind, Target: target, State: st, Exit: exit}
}

// WorkLine is what the work log keeps of ev (todostore.WorkLine): a tool
// call that ended, or tokens spent. ok is false for every other event,
// and for a call's start, which the end will record.
func WorkLine(ev Event) (todostore.WorkLine, bool) {
	switch {
	case ev.Kind == EventToolCall && ev.Tool != nil && ev.Tool.State != ToolStarted:
		t := ev.Tool
		return todostore.WorkLine{Tool: t.Name, Kind: t.Kind.String(), Target: t.Target, OK: t.State == ToolSucceeded, Exit: t.Exit}, true
	case ev.Kind == EventUsage && ev.Usage != nil:
		return todostore.WorkLine{In: ev.Usage.Input, Out: ev.Usage.Output}, true
	}
	return todostore.WorkLine{}, false
}

// WorkShower is an Agent whose tool calls reach todosh as Event.Tool (the
// wrapped CLIs' streams, ACP tool calls): its completions count only with
// a receipt (continuation.Turn.Receipt). An agent that is not one keeps the
// status rule.
type WorkShower interface {
	ShowsWork() bool
}

// ShowsWork reports whether a is a WorkShower that shows its work.
func ShowsWork(a Agent) bool {
	w, ok := a.(WorkShower)
	return ok && w.ShowsWork()
}
