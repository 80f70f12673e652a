package acpagent

import (
	"math"

	"github.com/todosh/todosh/todolist"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/agent"
)

// acpKinds is what each ACP tool kind is to a receipt (agent.ToolKind):
// deleting and moving files are edits, searching and fetching are reads.
var acpKinds = map[acp.ToolKind]agent.ToolKind{
	acp.ToolKindEdit: agent.ToolEdit, acp.ToolKindDelete: agent.ToolEdit, acp.ToolKindMove: agent.ToolEdit,
	acp.ToolKindExecute: agent.ToolExecute,
	acp.ToolKindRead:    agent.ToolRead, acp.ToolKindSearch: agent.ToolRead, acp.ToolKindFetch: agent.ToolRead,
}

// toolFacts follows the ACP tool calls of one turn, by id, from
// tool_call to the tool_call_update that ends them, into agent.ToolCall
// events: a call's start carries its line, its end none (a failed one
// says so), so nothing shows a call twice.
type toolFacts map[acp.ToolCallId]*agent.ToolCall

// begin records a tool_call and returns its start, and its end too when
// the call arrives finished.
func (f toolFacts) begin(c *acp.SessionUpdateToolCall, title string) (start *agent.ToolCall, end *agent.ToolCall) {
	call := &agent.ToolCall{ID: string(c.ToolCallId), Name: title, Kind: acpKinds[c.Kind], Target: toolTarget(c.RawInput, c.Locations, title)}
	if len(f) < 1000 {
		f[c.ToolCallId] = call
	}
	s := *call
	return &s, f.finish(c.ToolCallId, c.Status, c.RawOutput)
}

// update applies a tool_call_update and returns the call's end when it
// ended now; a call not seen to start begins here.
func (f toolFacts) update(u *acp.SessionToolCallUpdate, title string) (start *agent.ToolCall, end *agent.ToolCall) {
	call, ok := f[u.ToolCallId]
	if !ok {
		call = &agent.ToolCall{ID: string(u.ToolCallId), Name: title}
		if len(f) < 1000 {
			f[u.ToolCallId] = call
		}
		s := *call
		start = &s
	}
	if u.Kind != nil {
		call.Kind = acpKinds[*u.Kind]
	}
	if t := toolTarget(u.RawInput, u.Locations, ""); t != "" {
		call.Target = t
	}
	if start != nil {
		start.Kind, start.Target = call.Kind, call.Target
	}
	var st acp.ToolCallStatus
	if u.Status != nil {
		st = *u.Status
	}
	return start, f.finish(u.ToolCallId, st, u.RawOutput)
}

// finish is the end of the call with id when status ends it, nil
// otherwise or when it ended before.
func (f toolFacts) finish(id acp.ToolCallId, status acp.ToolCallStatus, raw any) *agent.ToolCall {
	call, ok := f[id]
	if !ok || call.State != agent.ToolStarted {
		return nil
	}
	switch status {
	case acp.ToolCallStatusCompleted:
		call.State = agent.ToolSucceeded
	case acp.ToolCallStatusFailed:
		call.State = agent.ToolFailed
	default:
		return nil
	}
	if code := exitCode(raw); code != nil {
		call.Exit = code
		if *code != 0 {
			call.State = agent.ToolFailed
		}
	}
	e := *call
	return &e
}

// toolTarget is the command or path of a call: the raw input's command
// (a string or its argv), else its first location, else fallback.
func toolTarget(raw any, locs []acp.ToolCallLocation, fallback string) string {
	if m, ok := raw.(map[string]any); ok {
		switch c := m["command"].(type) {
		case string:
			return todolist.ShortLine(c, 500)
		case []any:
			s := ""
			for i, a := range c {
				if w, ok := a.(string); ok {
					if i > 0 {
						s += " "
					}
					s += w
				}
			}
			return todolist.ShortLine(s, 500)
		}
		for _, k := range []string{"file_path", "path", "abs_path"} {
			if p, ok := m[k].(string); ok && p != "" {
				return todolist.ShortLine(p, 500)
			}
		}
	}
	if len(locs) > 0 {
		return todolist.ShortLine(locs[0].Path, 500)
	}
	return fallback
}

// exitCode reads an exit status from a call's raw output where the agent
// gives one (exit_code, exitCode, exit_status), nil otherwise.
func exitCode(raw any) *int {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil
	}
	for _, k := range []string{"exit_code", "exitCode", "exit_status", "exitStatus"} {
		if v, ok := m[k].(float64); ok && v == math.Trunc(v) && math.Abs(v) < 1<<20 {
			n := int(v)
			return &n
		}
	}
	return nil
}
