package clis

import (
	"encoding/json"
	"strings"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent"
)

// PiParser reads `pi --mode json` (pi's coding agent, badlogic/pi-mono,
// packages/coding-agent/docs/json.md): a first
// {"type":"session","id":...} line, then its AgentSessionEvents. The
// assistant's text is read from message_end (message_update lines are
// partial snapshots of the same message); tools show at
// tool_execution_start; the list comes from tool_execution_end of a tool
// named "todo" (pi has none built in: the todo extension of pi's
// examples/extensions/todo.ts), whose result.details.todos is the whole
// list of {id, text, done} after every action.
//
// done:false is both pending and in progress, as with Codex: an open item
// is pending unless it was in_progress in Prev (the list before the turn,
// then the last one reported), which it stays.
type PiParser struct {
	// Prev is the list before the turn; the runner sets it from the store.
	Prev []todolist.Todo

	lastText string
	lastErr  string // the last assistant message's errorMessage, if it failed
	sawTodo  bool   // a todo tool ran this turn
	calls    toolCalls
	usage    usageMeter
}

// piMessage is what the parser reads of message_end's message.
type piMessage struct {
	Role    string `json:"role"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StopReason   string          `json:"stopReason"`
	ErrorMessage string          `json:"errorMessage"`
	Usage        json.RawMessage `json:"usage"`
}

// piTodoResult is the part of the todo tool's result the parser reads.
type piTodoResult struct {
	Details *struct {
		Todos []struct {
			Text string `json:"text"`
			Done bool   `json:"done"`
		} `json:"todos"`
	} `json:"details"`
}

// Line handles one line of pi's stream.
func (p *PiParser) Line(line []byte, emit func(Update)) error {
	m, err := decodeLine(line)
	if err != nil {
		return err
	}
	switch m.str("type") {
	case "session":
		emitSession(m, "id", emit)
	case "message_end":
		p.messageEnd(m, emit)
	case "tool_execution_start":
		n := m.str("toolName")
		u := p.calls.startInput(m.str("toolCallId"), n, m["args"])
		if n == "todo" {
			u.Text = "" // shown with its list at its end
		}
		emit(u)
	case "tool_execution_end":
		p.toolEnd(m, emit)
	case "auto_retry_start":
		emit(Update{Kind: UpdateStatus, Text: retryStatus("API", jsonNumber(m["attempt"]), jsonNumber(m["maxAttempts"]), jsonNumber(m["delayMs"]), m.str("errorMessage"))})
	case "auto_retry_end":
		if !jsonTrue(m["success"]) {
			msg := m.str("finalError")
			if msg == "" {
				msg = "retries exhausted"
			}
			emit(Update{Kind: UpdateError, Text: msg})
		}
	case "agent_end":
		if p.lastErr != "" {
			emit(Update{Kind: UpdateError, Text: p.lastErr})
		} else {
			emit(Update{Kind: UpdateTurnEnd, Text: p.lastText})
		}
		if !p.sawTodo {
			emit(Update{Kind: UpdateNoTodoTool, Text: "no todo tool ran"})
		}
	}
	return nil
}

func (p *PiParser) messageEnd(line jsonObj, emit func(Update)) {
	raw := line["message"]
	var m piMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil || m.Role != "assistant" {
		return // user and tool result messages, or a shape pi may add
	}
	piUsage(&p.usage, m.Usage, emit)
	p.lastErr = ""
	if m.StopReason == "error" || m.StopReason == "aborted" {
		p.lastErr = m.ErrorMessage
		if p.lastErr == "" {
			p.lastErr = "the model request ended with " + m.StopReason
		}
	}
	var text strings.Builder
	for _, c := range m.Content {
		if c.Type == "text" {
			text.WriteString(c.Text)
		}
	}
	if t := strings.TrimRight(text.String(), "\n"); strings.TrimSpace(t) != "" {
		p.lastText = t
		emit(Update{Kind: UpdateText, Text: t + "\n"})
	}
}

func (p *PiParser) toolEnd(m jsonObj, emit func(Update)) {
	end := p.calls.end(m.str("toolCallId"), !jsonTrue(m["isError"]), nil)
	if m.str("toolName") != "todo" || jsonTrue(m["isError"]) {
		if end != nil {
			emit(*end)
		}
		return
	}
	p.sawTodo = true
	var res piTodoResult
	if !decodePayload("pi", "todo result", m["result"], &res, emit) {
		return
	}
	if !hasList("pi", "todo result", res.Details != nil && res.Details.Todos != nil, emit) {
		return
	}
	items := make([]doneItem, len(res.Details.Todos))
	for i, in := range res.Details.Todos {
		items[i] = doneItem(in)
	}
	todos, anyCut := doneList(p.Prev, items)
	p.Prev = todos
	if end == nil {
		end = &Update{Kind: UpdateToolCall, Tool: &agent.ToolCall{Name: "todo", State: agent.ToolSucceeded}}
	}
	end.Text = "todo " + todolist.Plural(len(todos), "item")
	emit(*end)
	emitTodos("pi", todos, anyCut, emit)
}
