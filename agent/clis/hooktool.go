package clis

import (
	"encoding/json"
	"fmt"

	"github.com/todosh/todosh/todolist"
)

// HookCall is one call of a CLI's own todo tool as the CLI's hook reports
// it after the tool ran (Claude Code's PostToolUse, Gemini CLI's
// AfterTool): the tool's name, its input and its response, as raw JSON.
type HookCall struct {
	Tool            string
	Input, Response json.RawMessage
}

// HookResult is what a HookCall means for the list.
type HookResult struct {
	// Todos is the agent's whole list when HasList (TodoWrite,
	// write_todos, todo_write, update_plan carry the whole list).
	Todos   []todolist.Todo
	HasList bool
	// Task is one of Claude's Task tool calls that succeeded, for
	// ClaudeTasks.Apply.
	Task *TaskOp
	// Notices are one-line remarks: a payload not understood, a text cut.
	Notices []string
}

// HookTodoTools returns the names of the CLI's own todo tools, from its
// row of the table.
func HookTodoTools(kind string) ([]string, error) {
	c, err := lookup(kind)
	if err != nil {
		return nil, err
	}
	return c.todoTools, nil
}

// hookLiner is a parser that can turn a hook's tool call into the lines of
// its own stream, so that a call is read by the same code whether it came
// in the stream of `todosh --agent` or from a hook in the CLI's own
// interface.
type hookLiner interface {
	hookLines(call HookCall) ([][]byte, error)
}

// hookLister is a parser that reads a hook's tool call directly: the
// tool's input never appears in its CLI's stream.
type hookLister interface {
	hookList(call HookCall, prev []todolist.Todo, emit func(Update))
}

// MapHookCall maps one todo tool call of the CLI kind onto todosh's model
// with that CLI's own parser; prev is the session's list before the call.
// A call of a tool that is not a todo tool gives an empty result.
func MapHookCall(kind string, call HookCall, prev []todolist.Todo) (HookResult, error) {
	var res HookResult
	c, err := lookup(kind)
	if err != nil {
		return res, err
	}
	p := c.parser(parserIn{prev: prev})
	var lines [][]byte
	if pm, ok := p.(hookLister); ok {
		pm.hookList(call, prev, func(u Update) { res.add(u) })
		return res, nil
	}
	hl, ok := p.(hookLiner)
	if !ok {
		return res, fmt.Errorf("%s: todo tool calls from hooks are not read", kind)
	}
	if lines, err = hl.hookLines(call); err != nil {
		return res, err
	}
	for _, line := range lines {
		if err := parseLine(p, line, res.add); err != nil {
			return res, fmt.Errorf("%s: %s call: %w", kind, call.Tool, err)
		}
	}
	return res, nil
}

func (r *HookResult) add(u Update) {
	switch u.Kind {
	case UpdateTodos:
		r.Todos, r.HasList = u.Todos, true
	case UpdateTask:
		r.Task = u.Task
	case UpdateNotice:
		r.Notices = append(r.Notices, u.Text)
	}
}

// rawOrNull is raw, or JSON null when it is empty.
func rawOrNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

// hookLines writes a Claude Code (or Qwen Code) tool call as the stream
// shows it: an assistant line with the tool_use block, then a user line
// with its tool_result and .tool_use_result, where TaskCreate's new id is.
func (p *ClaudeParser) hookLines(call HookCall) ([][]byte, error) {
	const id = "toolu_hook"
	use, err := json.Marshal(map[string]any{
		"type":               "assistant",
		"parent_tool_use_id": nil,
		"message": map[string]any{"content": []any{map[string]any{
			"type": "tool_use", "id": id, "name": call.Tool, "input": rawOrNull(call.Input),
		}}},
	})
	if err != nil {
		return nil, fmt.Errorf("%s input: %w", call.Tool, err)
	}
	text := ""
	if len(call.Response) > 0 && call.Response[0] == '"' {
		_ = json.Unmarshal(call.Response, &text)
	}
	result, err := json.Marshal(map[string]any{
		"type":               "user",
		"parent_tool_use_id": nil,
		"message": map[string]any{"content": []any{map[string]any{
			"type": "tool_result", "tool_use_id": id, "content": text,
		}}},
		"tool_use_result": rawOrNull(call.Response),
	})
	if err != nil {
		return nil, fmt.Errorf("%s response: %w", call.Tool, err)
	}
	return [][]byte{use, result}, nil
}

// hookLines writes a Gemini CLI tool call as its stream's tool_use line.
func (p *GeminiParser) hookLines(call HookCall) ([][]byte, error) {
	line, err := json.Marshal(map[string]any{"type": "tool_use", "tool_name": call.Tool, "parameters": rawOrNull(call.Input)})
	if err != nil {
		return nil, fmt.Errorf("%s input: %w", call.Tool, err)
	}
	return [][]byte{line}, nil
}

// codexPlanInput is update_plan's input: the whole plan, each step with
// pending, in_progress or completed.
type codexPlanInput struct {
	Plan []struct {
		Step   string `json:"step"`
		Status string `json:"status"`
	} `json:"plan"`
}

// hookList reads Codex's update_plan input, which its exec stream never
// shows (it reports the plan as a todo_list item instead); unlike the
// stream's done/not-done items, the input says which step is in progress.
func (p *CodexParser) hookList(call HookCall, _ []todolist.Todo, emit func(Update)) {
	if call.Tool != "update_plan" {
		return
	}
	var in codexPlanInput
	if !decodePayload("codex", "update_plan input", call.Input, &in, emit) || !hasList("codex", "update_plan", in.Plan != nil, emit) {
		return
	}
	todos, anyCut := agentTodos(len(in.Plan), func(i int) (string, todolist.Status, string) {
		return in.Plan[i].Step, mapStatus(in.Plan[i].Status), ""
	})
	emitTodos("codex", todos, anyCut, emit)
}
