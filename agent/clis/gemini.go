package clis

import (
	"bytes"
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
	// it ends at the next event that is not an assistant message, and
	// becomes last. The two buffers swap, so a message costs no allocation.
	message, last []byte
	arena         textArena
	usage         usageMeter
}

// Line handles one line of Gemini's stream.
func (p *GeminiParser) Line(line []byte, emit func(Update)) error {
	typ, err := lineType(line)
	if err != nil {
		return err
	}
	if string(typ) != "message" && len(p.message) > 0 {
		p.endMessage()
	}
	switch string(typ) {
	case "init":
		return p.init(line, emit)
	case "message":
		return p.messageLine(line, emit)
	case "tool_use":
		return p.toolUse(line, emit)
	case "error":
		var severity, msg []byte
		if err := jsonPickLine(line, jsonField{"severity", &severity}, jsonField{"message", &msg}); err != nil {
			return err
		}
		if string(severity) == `"warning"` {
			emit(Update{Kind: UpdateNotice, Text: "gemini: " + todostore.ShortLine(jsonStr(msg), 200)})
		} else {
			emit(Update{Kind: UpdateError, Text: jsonStr(msg)})
		}
	case "result":
		return p.result(line, emit)
	}
	return nil
}

func (p *GeminiParser) endMessage() {
	p.last, p.message = p.message, p.last[:0]
}

// geminiMessage is what the parser reads of a message line.
type geminiMessage struct {
	role    []byte
	content scannedText
	delta   bool
}

// geminiMessageHead and the keys after it frame a message line as Gemini
// CLI writes it (JSON.stringify, fields in the order it sets them).
const (
	geminiMessageHead = `{"type":"message","timestamp":"`
	geminiRoleKey     = `,"role":"`
	geminiContentKey  = `,"content":"`
	geminiDeltaTrue   = `,"delta":true}`
)

// scanGeminiMessage reads a message line written exactly as Gemini CLI
// writes it; for any other line ok is false and jsonPickLine reads it.
func scanGeminiMessage(line []byte) (m geminiMessage, ok bool) {
	_, i, ok := jsonFixed(line, 0, geminiMessageHead)
	if !ok {
		return m, false
	}
	r, i, ok := jsonFixed(line, i, geminiRoleKey)
	if !ok || !bytes.HasPrefix(line[i:], []byte(geminiContentKey)) {
		return m, false
	}
	m.role = line[r:i]
	var err error
	if i, m.content, err = jsonText(line, i+len(geminiContentKey)-1); err != nil {
		return m, false
	}
	switch string(line[i:]) {
	case "}":
	case geminiDeltaTrue:
		m.delta = true
	default:
		return m, false
	}
	return m, true
}

func (p *GeminiParser) messageLine(line []byte, emit func(Update)) error {
	m, ok := scanGeminiMessage(line)
	if !ok {
		var delta []byte
		if err := jsonPickLine(line, jsonField{"role", &m.role}, jsonField{"content", &m.content.raw}, jsonField{"delta", &delta}); err != nil {
			return err
		}
		m.delta = jsonTrue(delta)
	}
	if string(m.role) != `"assistant"` {
		return nil
	}
	text := p.arena.scanned(m.content, false)
	if text == "" {
		return nil
	}
	if !m.delta && len(p.message) > 0 {
		// A whole message after pieces of another: end that one first.
		p.endMessage()
		emit(Update{Kind: UpdateText, Text: "\n"})
	}
	p.message = append(p.message, text...)
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
	if err := jsonPickLine(line, jsonField{"tool_name", &name}, jsonField{"parameters", &params}); err != nil {
		return err
	}
	if string(name) != `"write_todos"` {
		emit(Update{Kind: UpdateToolCall, Text: toolLine(jsonStr(name), toolArg(params))})
		return nil
	}
	var in geminiTodos
	if !decodePayload("gemini", "write_todos parameters", params, &in, emit) || !hasList("gemini", "write_todos", in.Todos != nil, emit) {
		return nil
	}
	todos, anyCut := agentTodos(len(in.Todos), func(i int) (string, todostore.Status, string) {
		return in.Todos[i].Description, mapStatus(in.Todos[i].Status), ""
	})
	emit(Update{Kind: UpdateToolCall, Text: "write_todos " + todostore.Plural(len(todos), "item")})
	emitTodos("gemini", todos, anyCut, emit)
	return nil
}

func (p *GeminiParser) result(line []byte, emit func(Update)) error {
	var status, msg, stats []byte
	if err := jsonPickError(line, &msg, jsonField{"status", &status}, jsonField{"stats", &stats}); err != nil {
		return err
	}
	geminiUsage(&p.usage, stats, emit)
	if string(status) == `"success"` {
		emit(Update{Kind: UpdateTurnEnd, Text: string(p.last)})
		return nil
	}
	text := jsonStr(msg)
	if text == "" {
		text = "turn ended with status " + jsonStr(status)
	}
	emit(Update{Kind: UpdateError, Text: text})
	return nil
}

// init reads the session id and the model. Gemini CLI offers write_todos
// only on gemini-2.x models (its 3.x previews were not offered it), and
// the stream never lists the tools: the model is all there is to go on.
func (p *GeminiParser) init(line []byte, emit func(Update)) error {
	var model []byte
	if err := jsonPickLine(line, jsonField{"model", &model}); err != nil {
		return err
	}
	if err := emitSession(line, "session_id", emit); err != nil {
		return err
	}
	if m := jsonStr(model); m != "" && !strings.HasPrefix(m, "gemini-2") {
		emit(Update{Kind: UpdateNoTodoTool, Text: "model " + m + " is not offered write_todos"})
	}
	return nil
}
