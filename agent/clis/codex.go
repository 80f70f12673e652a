package clis

import (
	"strconv"
	"strings"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent"
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
	Prev []todolist.Todo
	// MCPTools are todosh's MCP tools as Codex spells them, the first
	// todo_write (Config.MCPTools); a call of it is reported as the
	// session's todo tool (UpdateTools), so continuations name it.
	MCPTools []string
	mcpSeen  bool // UpdateTools was sent for it
	// UsageBefore is the thread's usage total before the turn: Codex's
	// turn.completed reports the thread's, so the turn's is what it adds.
	UsageBefore agent.Usage

	lastText string
	calls    toolCalls // tool items started and not ended, by id
	usage    usageMeter
}

// Line handles one line of Codex's stream.
func (p *CodexParser) Line(line []byte, emit func(Update)) error {
	m, err := decodeLine(line)
	if err != nil {
		return err
	}
	switch typ := m.str("type"); typ {
	case "thread.started":
		emitSession(m, "thread_id", emit)
	case "item.started":
		p.item(m.obj("item"), codexStarted, emit)
	case "item.updated":
		p.item(m.obj("item"), codexUpdated, emit)
	case "item.completed":
		p.item(m.obj("item"), codexCompleted, emit)
	case "turn.completed":
		codexUsage(&p.usage, p.UsageBefore, m["usage"], emit)
		emit(Update{Kind: UpdateTurnEnd, Text: p.lastText})
	case "turn.failed", "error":
		msg := codexErrorMessage(m)
		if typ == "error" && strings.HasPrefix(msg, "Reconnecting") {
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
func codexErrorMessage(m jsonObj) string {
	s := m.str("message")
	if s == "" {
		s = m.errorMessage()
	}
	if s == "" {
		s = "codex reported an error"
	}
	return s
}

// item handles one event of an item, it (.item).
func (p *CodexParser) item(it jsonObj, phase codexPhase, emit func(Update)) {
	if p.ignored(it, phase) {
		return
	}
	switch it.str("type") {
	case "agent_message":
		if phase == codexCompleted {
			p.message(jsonText(it["text"]), emit)
		}
	case "todo_list":
		p.todoList(it["items"], phase, emit)
	case "command_execution":
		cmd := it.str("command")
		p.tool(it, phase, "command_execution", cmd, func() string { return toolLine("exec", cmd) }, emit)
	case "mcp_tool_call":
		server, tool := it.str("server"), it.str("tool")
		name := "mcp__" + server + "__" + tool
		p.tool(it, phase, name, "", func() string { return server + "." + tool }, emit)
		// Codex names an MCP tool mcp__SERVER__TOOL, as the model sees it.
		if !p.mcpSeen && len(p.MCPTools) > 0 && name == p.MCPTools[0] {
			p.mcpSeen = true
			emit(Update{Kind: UpdateTools, Text: p.MCPTools[0]})
		}
	case "web_search":
		q := it.str("query")
		p.tool(it, phase, "web_search", q, func() string { return toolLine("web_search", q) }, emit)
	case "file_change":
		var paths []string
		for _, c := range jsonArray(it["changes"]) {
			paths = append(paths, jsonObject(c).str("path"))
		}
		target := strings.Join(paths, ", ")
		p.tool(it, phase, "file_change", target, func() string { return toolLine("edit", target) }, emit)
	case "error":
		// An error item is a warning inside a turn that goes on.
		if msg := it.str("message"); phase == codexCompleted && msg != "" {
			emit(Update{Kind: UpdateNotice, Text: "codex: " + todolist.ShortLine(msg, 200)})
		}
	}
}

// message shows an agent message.
func (p *CodexParser) message(text string, emit func(Update)) {
	if len(text) > 1 {
		p.lastText = strings.TrimSuffix(text, "\n")
		emit(Update{Kind: UpdateText, Text: text})
	}
}

// ignored reports whether an item can have no effect: a tool item's
// update (its start and its end are what count).
func (p *CodexParser) ignored(it jsonObj, phase codexPhase) bool {
	switch it.str("type") {
	case "command_execution", "mcp_tool_call", "web_search", "file_change":
		return phase == codexUpdated
	}
	return false
}

// tool shows a tool item: its line when it starts, its end (status and
// exit code) when it completes; an item that completes without having
// been seen to start (file changes arrive that way) is both at once.
func (p *CodexParser) tool(it jsonObj, phase codexPhase, name, target string, line func() string, emit func(Update)) {
	id := it.str("id")
	if phase == codexStarted || p.calls[id].Name == "" {
		emit(p.calls.start(id, name, target, line()))
	}
	if phase != codexCompleted {
		return
	}
	var exit *int
	if n, err := strconv.Atoi(string(it["exit_code"])); err == nil {
		exit = &n
	}
	ok := it.str("status") == "completed" && (exit == nil || *exit == 0)
	if u := p.calls.end(id, ok, exit); u != nil {
		emit(*u)
	}
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
		emit(Update{Kind: UpdateToolCall, Text: "update_plan " + todolist.Plural(len(todos), "item")})
	}
	emitTodos("codex", todos, anyCut, emit)
}
