package clis

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/todostore"
)

// CodexParser reads `codex exec --json`. Its plan arrives as a todo_list
// item (item.started, then item.updated after each update_plan call, and
// item.completed when the turn ends), each time the whole list of
// {text, completed}.
//
// Codex reports in-progress items as completed:false, the same as pending.
// An open item is therefore pending, except that an item which was
// in_progress in the previous list (Prev: the list before the turn, then
// the last one this parser reported) stays in_progress: todosh does not
// invent a state Codex did not report, and does not forget one it knew.
type CodexParser struct {
	// Prev is the list before the turn; the runner sets it from the store.
	Prev []todostore.Todo
	// MCPTools are todosh's MCP tools as Codex spells them, the first
	// todo_write (Config.MCPTools); a call of it is reported as the
	// session's todo tool (UpdateTools), so continuations name it.
	MCPTools []string
	mcpSeen  bool // UpdateTools was sent for it
	// UsageBefore is the thread's usage total before the turn: Codex's
	// turn.completed reports the thread's, so the turn's is what it adds.
	UsageBefore agent.Usage

	lastText string
	started  map[string]bool // raw item ids whose tool line was shown
	it       codexItem       // reused for every line
	arena    textArena
	usage    usageMeter
}

// Line handles one line of Codex's stream.
func (p *CodexParser) Line(line []byte, emit func(Update)) error {
	if text, ok := codexMessage(line); ok {
		p.message(p.arena.scanned(text, true), emit)
		return nil
	}
	typ, err := lineType(line)
	if err != nil {
		return err
	}
	switch string(typ) {
	case "thread.started":
		return emitSession(line, "thread_id", emit)
	case "item.started":
		return p.item(line, codexStarted, emit)
	case "item.updated":
		return p.item(line, codexUpdated, emit)
	case "item.completed":
		return p.item(line, codexCompleted, emit)
	case "turn.completed":
		if err := codexUsage(&p.usage, p.UsageBefore, line, emit); err != nil {
			return err
		}
		emit(Update{Kind: UpdateTurnEnd, Text: p.lastText})
	case "turn.failed", "error":
		msg, err := codexErrorMessage(line)
		if err != nil {
			return err
		}
		if string(typ) == "error" && strings.HasPrefix(msg, "Reconnecting") {
			// "Reconnecting... 2/5 (stream disconnected ...)": Codex
			// retrying, which may go on forever; a status, not the turn's
			// error (the runner's retry limit ends it).
			emit(Update{Kind: UpdateStatus, Text: msg})
			return nil
		}
		emit(Update{Kind: UpdateError, Text: msg})
	}
	return nil
}

// codexPhase is which of an item's events a line is.
type codexPhase int

const (
	codexStarted codexPhase = iota
	codexUpdated
	codexCompleted
)

// codexErrorMessage reads .message (error) or .error.message (turn.failed).
func codexErrorMessage(line []byte) (string, error) {
	var msg []byte
	err := jsonPickError(line, &msg, jsonField{"message", &msg})
	s := jsonStr(msg)
	if s == "" {
		s = "codex reported an error"
	}
	return s, err
}

// codexItem is the part of .item the parser reads, as raw JSON values.
type codexItem struct {
	id, typ, text, command, server, tool, query, message, items, changes []byte
}

// scan reads .item of line. After each member it asks p.enough whether
// the rest can go unread, so a tool's output the parser has no use for is
// not scanned at all.
func (it *codexItem) scan(line []byte, p *CodexParser, phase codexPhase) error {
	*it = codexItem{}
	fields := [...]jsonField{{"id", &it.id}, {"type", &it.typ}, {"text", &it.text}, {"command", &it.command},
		{"server", &it.server}, {"tool", &it.tool}, {"query", &it.query}, {"message", &it.message},
		{"items", &it.items}, {"changes", &it.changes}}
	err := jsonLine(line, func(key []byte, v int) (int, error) {
		if string(key) != "item" {
			return -1, nil
		}
		return jsonObject(line, v, func(key []byte, v int) (int, error) {
			end, err := jsonPickMember(line, key, v, fields[:])
			if err == nil && p.enough(it, phase) {
				return end, errStopScan
			}
			return end, err
		})
	})
	if err == errStopScan {
		return nil
	}
	return err
}

// codexMessageHead and codexMessageMid frame Codex's agent_message line,
// the commonest line of its streams, as Codex writes it (serde, fields in
// declaration order, no spaces): head, id, mid, text, "}}".
const (
	codexMessageHead = `{"type":"item.completed","item":{"id":"`
	codexMessageMid  = `,"type":"agent_message","text":"`
)

// codexMessage reads the text of a completed agent_message line written
// exactly as Codex writes it; for any other line ok is false and the
// general path reads it.
func codexMessage(line []byte) (text scannedText, ok bool) {
	_, i, ok := jsonFixed(line, 0, codexMessageHead)
	if !ok || !bytes.HasPrefix(line[i:], []byte(codexMessageMid)) {
		return text, false
	}
	end, text, err := jsonText(line, i+len(codexMessageMid)-1)
	return text, err == nil && string(line[end:]) == "}}"
}

func (p *CodexParser) item(line []byte, phase codexPhase, emit func(Update)) error {
	it := &p.it
	defer func() { *it = codexItem{} }() // drop references into the line
	if err := it.scan(line, p, phase); err != nil {
		return err
	}
	if p.ignored(it, phase) {
		return nil
	}
	id := it.id
	switch string(it.typ) {
	case `"agent_message"`:
		if phase == codexCompleted {
			p.message(p.arena.text(it.text), emit)
		}
	case `"todo_list"`:
		p.todoList(it.items, phase, emit)
	case `"command_execution"`:
		p.toolOnce(id, phase, func() string { return toolLine("exec", jsonStr(it.command)) }, emit)
	case `"mcp_tool_call"`:
		p.toolOnce(id, phase, func() string { return jsonStr(it.server) + "." + jsonStr(it.tool) }, emit)
		// Codex names an MCP tool mcp__SERVER__TOOL, as the model sees it.
		if !p.mcpSeen && len(p.MCPTools) > 0 && "mcp__"+jsonStr(it.server)+"__"+jsonStr(it.tool) == p.MCPTools[0] {
			p.mcpSeen = true
			emit(Update{Kind: UpdateTools, Text: p.MCPTools[0]})
		}
	case `"web_search"`:
		p.toolOnce(id, phase, func() string { return toolLine("web_search", jsonStr(it.query)) }, emit)
	case `"file_change"`:
		p.toolOnce(id, phase, func() string {
			var changes []struct {
				Path string `json:"path"`
			}
			_ = json.Unmarshal(it.changes, &changes)
			paths := make([]string, 0, len(changes))
			for _, c := range changes {
				paths = append(paths, c.Path)
			}
			return toolLine("edit", strings.Join(paths, ", "))
		}, emit)
	case `"error"`:
		// An error item is a warning inside a turn that goes on.
		if msg := jsonStr(it.message); phase == codexCompleted && msg != "" {
			emit(Update{Kind: UpdateNotice, Text: "codex: " + todostore.ShortLine(msg, 200)})
		}
	}
	return nil
}

// message shows an agent message.
func (p *CodexParser) message(text string, emit func(Update)) {
	if len(text) > 1 {
		p.lastText = strings.TrimSuffix(text, "\n")
		emit(Update{Kind: UpdateText, Text: text})
	}
}

// ignored reports whether an item, as far as it has been read, can have
// no effect: a tool item whose line was already shown.
func (p *CodexParser) ignored(it *codexItem, phase codexPhase) bool {
	switch string(it.typ) {
	case `"command_execution"`, `"mcp_tool_call"`, `"web_search"`, `"file_change"`:
		return phase == codexUpdated || (phase == codexCompleted && it.id != nil && p.started[string(it.id)])
	}
	return false
}

// enough reports whether the members read so far are all the item can
// need: then the rest of the line is not scanned.
func (p *CodexParser) enough(it *codexItem, phase codexPhase) bool {
	if it.typ == nil || (it.id == nil && phase != codexStarted) {
		return false
	}
	if p.ignored(it, phase) {
		return true
	}
	switch string(it.typ) {
	case `"agent_message"`:
		return phase != codexCompleted || it.text != nil
	case `"todo_list"`:
		return it.items != nil
	case `"command_execution"`:
		return it.command != nil
	case `"mcp_tool_call"`:
		return it.server != nil && it.tool != nil
	case `"web_search"`:
		return it.query != nil
	case `"file_change"`:
		return it.changes != nil
	case `"error"`:
		return it.message != nil
	}
	return true // reasoning and kinds todosh does not know
}

// toolOnce shows a tool line when the item starts, or when it completes
// without having been seen to start (file changes arrive that way).
func (p *CodexParser) toolOnce(id []byte, phase codexPhase, text func() string, emit func(Update)) {
	if phase == codexUpdated || (phase == codexCompleted && p.started[string(id)]) {
		return
	}
	if phase == codexStarted {
		if p.started == nil {
			p.started = map[string]bool{}
		}
		p.started[string(id)] = true
	}
	emit(Update{Kind: UpdateToolCall, Text: text()})
}

func (p *CodexParser) todoList(raw []byte, phase codexPhase, emit func(Update)) {
	var items []doneItem
	if !decodePayload("codex", "todo_list items", raw, &items, emit) || !hasList("codex", "todo_list", items != nil, emit) {
		return
	}
	todos, anyCut := doneList(p.Prev, items)
	p.Prev = todos
	// item.completed repeats the last plan when the turn ends; it is no call.
	if phase != codexCompleted {
		emit(Update{Kind: UpdateToolCall, Text: "update_plan " + todostore.Plural(len(todos), "item")})
	}
	emitTodos("codex", todos, anyCut, emit)
}
