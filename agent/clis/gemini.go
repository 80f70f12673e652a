package clis

import (
	"fmt"
	"strings"

	"github.com/todosh/todosh/todostore"
)

// GeminiParser reads `gemini -p --output-format stream-json`. write_todos
// tool calls carry the whole list of {description, status}; statuses are
// pending, in_progress, completed, cancelled and blocked. todosh has no
// blocked state: a blocked item is open work nobody is doing, so it is
// pending (it stays open, and the continuation keeps counting it).
type GeminiParser struct {
	// message is the assistant message being streamed in delta pieces;
	// it ends at the next event that is not an assistant message.
	message  strings.Builder
	lastText string
}

// Line handles one line of Gemini's stream.
func (p *GeminiParser) Line(line []byte, emit func(Update)) error {
	typ, err := lineType(line)
	if err != nil {
		return err
	}
	if string(typ) != "message" && p.message.Len() > 0 {
		p.lastText = p.message.String()
		p.message.Reset()
	}
	switch string(typ) {
	case "init":
		return emitSession(line, "session_id", emit)
	case "message":
		return p.messageLine(line, emit)
	case "tool_use":
		return p.toolUse(line, emit)
	case "error":
		var severity, msg []byte
		if err := jscanPickLine(line, jfield{"severity", &severity}, jfield{"message", &msg}); err != nil {
			return err
		}
		if string(severity) == `"warning"` {
			emit(Update{Kind: UpdateNotice, Text: "gemini: " + oneLineCut(jscanStr(msg), 200)})
		} else {
			emit(Update{Kind: UpdateError, Text: jscanStr(msg)})
		}
	case "result":
		return p.result(line, emit)
	}
	return nil
}

func (p *GeminiParser) messageLine(line []byte, emit func(Update)) error {
	var role, content, delta []byte
	if err := jscanPickLine(line, jfield{"role", &role}, jfield{"content", &content}, jfield{"delta", &delta}); err != nil {
		return err
	}
	if string(role) != `"assistant"` {
		return nil
	}
	text := jscanStr(content)
	if text == "" {
		return nil
	}
	if !jscanTrue(delta) && p.message.Len() > 0 {
		// A whole message after pieces of another: end that one first.
		p.lastText = p.message.String()
		p.message.Reset()
		emit(Update{Kind: UpdateText, Text: "\n"})
	}
	p.message.WriteString(text)
	emit(Update{Kind: UpdateText, Text: text})
	return nil
}

// geminiTodos is write_todos' parameters.
type geminiTodos struct {
	Todos []struct {
		Description string `json:"description"`
		Status      string `json:"status"`
	} `json:"todos"`
}

func (p *GeminiParser) toolUse(line []byte, emit func(Update)) error {
	var name, params []byte
	if err := jscanPickLine(line, jfield{"tool_name", &name}, jfield{"parameters", &params}); err != nil {
		return err
	}
	if string(name) != `"write_todos"` {
		emit(Update{Kind: UpdateToolCall, Text: toolLine(jscanStr(name), toolArg(params))})
		return nil
	}
	var in geminiTodos
	if !decodePayload("gemini", "write_todos parameters", params, &in, emit) || !hasList("gemini", "write_todos", in.Todos != nil, emit) {
		return nil
	}
	todos := make([]todostore.Todo, 0, len(in.Todos))
	anyCut := false
	for _, t := range in.Todos {
		if td, ok, cut := agentTodo(t.Description, mapStatus(t.Status), ""); ok {
			todos = append(todos, td)
			anyCut = anyCut || cut
		}
	}
	emit(Update{Kind: UpdateToolCall, Text: fmt.Sprintf("write_todos %d items", len(todos))})
	emitTodos("gemini", todos, anyCut, emit)
	return nil
}

func (p *GeminiParser) result(line []byte, emit func(Update)) error {
	var status, msg []byte
	if err := jscanPickError(line, &msg, jfield{"status", &status}); err != nil {
		return err
	}
	if string(status) == `"success"` {
		emit(Update{Kind: UpdateTurnEnd, Text: p.lastText})
		return nil
	}
	text := jscanStr(msg)
	if text == "" {
		text = "turn ended with status " + jscanStr(status)
	}
	emit(Update{Kind: UpdateError, Text: text})
	return nil
}
