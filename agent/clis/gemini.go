package clis

import (
	"strings"

	"github.com/todosh/todosh/todolist"
)

// GeminiParser reads `gemini -p --output-format stream-json`. write_todos
// tool calls carry the whole list of {description, status}; statuses are
// pending, in_progress, completed, cancelled and blocked. todosh has no
// blocked state: a blocked item is open work nobody is doing, so it is
// pending (it stays open, and the continuation keeps counting it).
type GeminiParser struct {
	// message is the assistant message being streamed in delta pieces;
	// it ends at the next event that is not an assistant message, and
	// becomes last. The two buffers swap, so a message costs no allocation.
	message, last []byte
	calls         toolCalls // started and not ended, by tool_id
	usage         usageMeter
}

// Line handles one line of Gemini's stream.
func (p *GeminiParser) Line(line []byte, emit func(Update)) error {
	m, err := decodeLine(line)
	if err != nil {
		return err
	}
	typ := m.str("type")
	if typ != "message" && len(p.message) > 0 {
		p.endMessage()
	}
	switch typ {
	case "init":
		p.init(m, emit)
	case "message":
		p.messageLine(m, emit)
	case "tool_use":
		p.toolUse(m, emit)
	case "tool_result":
		p.toolResult(m, emit)
	case "error":
		if m.str("severity") == "warning" {
			emit(Update{Kind: UpdateNotice, Text: "gemini: " + todolist.ShortLine(m.str("message"), 200)})
		} else {
			emit(Update{Kind: UpdateError, Text: m.str("message")})
		}
	case "result":
		p.result(m, emit)
	}
	return nil
}

func (p *GeminiParser) endMessage() {
	p.last, p.message = p.message, p.last[:0]
}

func (p *GeminiParser) messageLine(m jsonObj, emit func(Update)) {
	if m.str("role") != "assistant" {
		return
	}
	text := m.str("content")
	if text == "" {
		return
	}
	if !jsonTrue(m["delta"]) && len(p.message) > 0 {
		// A whole message after pieces of another: end that one first.
		p.endMessage()
		emit(Update{Kind: UpdateText, Text: "\n"})
	}
	p.message = append(p.message, text...)
	emit(Update{Kind: UpdateText, Text: text})
}

// geminiTodos is write_todos' parameters.
type geminiTodos struct {
	Todos []struct {
		Description string `json:"description"`
		Status      string `json:"status"`
	} `json:"todos"`
}

func (p *GeminiParser) toolUse(m jsonObj, emit func(Update)) {
	name, params, id := m.str("tool_name"), m["parameters"], m.str("tool_id")
	if name != "write_todos" {
		emit(p.calls.startInput(id, name, params))
		return
	}
	var in geminiTodos
	if !decodePayload("gemini", "write_todos parameters", params, &in, emit) || !hasList("gemini", "write_todos", in.Todos != nil, emit) {
		return
	}
	todos, anyCut := agentTodos(len(in.Todos), func(i int) (string, todolist.Status, string) {
		return in.Todos[i].Description, mapStatus(in.Todos[i].Status), ""
	})
	emit(p.calls.start(id, "write_todos", "", "write_todos "+todolist.Plural(len(todos), "item")))
	emitTodos("gemini", todos, anyCut, emit)
}

func (p *GeminiParser) result(m jsonObj, emit func(Update)) {
	geminiUsage(&p.usage, m["stats"], emit)
	if m.str("status") == "success" {
		emit(Update{Kind: UpdateTurnEnd, Text: string(p.last)})
		return
	}
	text := m.errorMessage()
	if text == "" {
		text = "turn ended with status " + m.str("status")
	}
	emit(Update{Kind: UpdateError, Text: text})
}

// init reads the session id and the model. Gemini CLI offers write_todos
// only on gemini-2.x models (its 3.x previews were not offered it), and
// the stream never lists the tools: the model is all there is to go on.
func (p *GeminiParser) init(m jsonObj, emit func(Update)) {
	emitSession(m, "session_id", emit)
	if model := m.str("model"); model != "" && !strings.HasPrefix(model, "gemini-2") {
		emit(Update{Kind: UpdateNoTodoTool, Text: "model " + model + " is not offered write_todos"})
	}
}

// toolResult ends a call seen to start.
func (p *GeminiParser) toolResult(m jsonObj, emit func(Update)) {
	if len(p.calls) == 0 {
		return
	}
	if u := p.calls.end(m.str("tool_id"), m.str("status") == "success", nil); u != nil {
		emit(*u)
	}
}
