package clis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/todosh/todosh/todostore"
)

// ClaudeTask is one item made with Claude Code's TaskCreate and changed
// with TaskUpdate, kept under the id Claude gave it.
type ClaudeTask struct {
	ID         string           `json:"id"`
	Subject    string           `json:"subject"`
	ActiveForm string           `json:"activeForm,omitempty"`
	Status     todostore.Status `json:"status"`
}

// ClaudeTasks is the task list of one Claude Code session. TaskUpdate names
// tasks by ids made in earlier turns, so the list outlives a turn: the
// runner saves it next to the session file (see tasksPath).
type ClaudeTasks struct {
	// Session is the Claude session id the tasks belong to.
	Session string       `json:"session"`
	Tasks   []ClaudeTask `json:"tasks"`
}

// Todos is the task list as todos, in creation order.
func (ct *ClaudeTasks) Todos() ([]todostore.Todo, bool) {
	out := make([]todostore.Todo, 0, len(ct.Tasks))
	anyCut := false
	for _, t := range ct.Tasks {
		if td, ok, cut := agentTodo(t.Subject, t.Status, t.ActiveForm); ok {
			out = append(out, td)
			anyCut = anyCut || cut
		}
	}
	return out, anyCut
}

func (ct *ClaudeTasks) find(id string) int {
	for i, t := range ct.Tasks {
		if t.ID == id {
			return i
		}
	}
	return -1
}

// ClaudeParser reads `claude -p --output-format stream-json --verbose`.
// TodoWrite calls carry the whole list and are applied when they are made;
// TaskCreate and TaskUpdate are applied when their tool result arrives,
// because only the result of TaskCreate says which id the task got and
// Claude may issue several calls before any result.
type ClaudeParser struct {
	// Tasks is the session's task list; set it from the saved one before
	// the turn and save it when TasksChanged.
	Tasks ClaudeTasks
	// TasksChanged is set when a task result changed Tasks.
	TasksChanged bool
	// UsesTasks is true once the session offered or used the Task tools
	// instead of TodoWrite.
	UsesTasks bool

	session  string
	lastText string
	pending  map[string]claudeTaskCall // by tool_use id
	cl       claudeLine                // reused for every line
	arena    textArena
}

// claudeTaskCall is a TaskCreate or TaskUpdate waiting for its result.
type claudeTaskCall struct {
	create     bool
	taskID     string
	subject    string
	activeForm string
	status     string
}

var (
	markTodoWrite    = []byte(`"TodoWrite"`)
	markTaskCreate   = []byte(`"TaskCreate"`)
	taskCreatedRegex = regexp.MustCompile(`Task #([A-Za-z0-9._-]+) created`)
)

// Line handles one line of Claude's stream.
func (p *ClaudeParser) Line(line []byte, emit func(Update)) error {
	typ, err := lineType(line)
	if err != nil {
		return err
	}
	switch string(typ) {
	case "assistant":
		return p.assistant(line, emit)
	case "user":
		if len(p.pending) == 0 || !p.mentionsPending(line) {
			return nil // tool results are most of the bytes; only task results matter
		}
		return p.user(line, emit)
	case "system":
		if !bytes.Contains(line, []byte(`"init"`)) {
			return nil
		}
		return p.init(line, emit)
	case "result":
		return p.result(line, emit)
	}
	return nil
}

func (p *ClaudeParser) mentionsPending(line []byte) bool {
	for id := range p.pending {
		if bytes.Contains(line, []byte(id)) {
			return true
		}
	}
	return false
}

func (p *ClaudeParser) setSession(raw []byte, emit func(Update)) {
	if len(raw) > 2 && string(raw[1:len(raw)-1]) != p.session {
		if id := jscanStr(raw); id != "" && id != p.session {
			p.session = id
			emit(Update{Kind: UpdateSession, Text: id})
		}
	}
}

func (p *ClaudeParser) init(line []byte, emit func(Update)) error {
	var subtype, session, tools []byte
	err := jscanPickLine(line, jfield{"subtype", &subtype}, jfield{"session_id", &session}, jfield{"tools", &tools})
	if err != nil || string(subtype) != `"init"` {
		return err
	}
	if bytes.Contains(tools, markTaskCreate) && !bytes.Contains(tools, markTodoWrite) {
		p.UsesTasks = true
	}
	p.setSession(session, emit)
	return nil
}

func (p *ClaudeParser) result(line []byte, emit func(Update)) error {
	var subtype, result, session, errs, isError []byte
	err := jscanPickLine(line, jfield{"subtype", &subtype}, jfield{"is_error", &isError}, jfield{"result", &result},
		jfield{"session_id", &session}, jfield{"errors", &errs})
	if err != nil {
		return err
	}
	p.setSession(session, emit)
	sub := jscanStr(subtype)
	if jscanTrue(isError) || strings.HasPrefix(sub, "error") {
		msg := jscanStr(result)
		if msg == "" {
			var list []string
			_ = jscanElements(errs, func(v []byte) {
				if s := jscanStr(v); s != "" {
					list = append(list, s)
				}
			})
			msg = strings.Join(list, "; ")
		}
		if msg == "" {
			msg = "turn ended with " + sub
		}
		emit(Update{Kind: UpdateError, Text: msg})
		return nil
	}
	final := jscanStr(result)
	if final == "" {
		final = p.lastText
	}
	emit(Update{Kind: UpdateTurnEnd, Text: final})
	return nil
}

// claudeBlock is the part of a content block the parser reads, as raw
// JSON values.
type claudeBlock struct {
	typ, text, name, id, toolUseID, input, content, isError []byte
}

// claudeLine is what the parser reads of an assistant or user line.
type claudeLine struct {
	parent, toolResult []byte
	blocks             []claudeBlock
}

// scan reads a line's members and content blocks in one pass. The blocks'
// slice is reused from line to line.
func (cl *claudeLine) scan(line []byte) error {
	cl.parent, cl.toolResult, cl.blocks = nil, nil, cl.blocks[:0]
	return jscanLine(line, func(key []byte, v int) (int, error) {
		switch string(key) {
		case "message":
			return jscanObject(line, v, func(key []byte, v int) (int, error) {
				if string(key) != "content" {
					return -1, nil
				}
				return jscanArray(line, v, func(v int) (int, error) {
					cl.blocks = append(cl.blocks, claudeBlock{})
					return cl.blocks[len(cl.blocks)-1].scan(line, v)
				})
			})
		case "parent_tool_use_id":
			return jscanRaw(line, v, &cl.parent)
		case "tool_use_result":
			return jscanRaw(line, v, &cl.toolResult)
		}
		return -1, nil
	})
}

// release drops the references into the line, which may be a large buffer.
func (cl *claudeLine) release() {
	clear(cl.blocks)
	cl.parent, cl.toolResult, cl.blocks = nil, nil, cl.blocks[:0]
}

func (b *claudeBlock) scan(line []byte, v int) (int, error) {
	return jscanPick(line, v, jfield{"type", &b.typ}, jfield{"text", &b.text}, jfield{"name", &b.name}, jfield{"id", &b.id},
		jfield{"tool_use_id", &b.toolUseID}, jfield{"input", &b.input}, jfield{"content", &b.content}, jfield{"is_error", &b.isError})
}

func (p *ClaudeParser) assistant(line []byte, emit func(Update)) error {
	defer p.cl.release()
	if err := p.cl.scan(line); err != nil {
		return err
	}
	if !jscanIsNull(p.cl.parent) {
		return nil // a sub-agent's line: its todos are not the main list
	}
	for _, b := range p.cl.blocks {
		switch string(b.typ) {
		case `"text"`:
			if text := p.arena.text(b.text); len(text) > 1 {
				p.lastText = strings.TrimSuffix(text, "\n")
				emit(Update{Kind: UpdateText, Text: text})
			}
		case `"tool_use"`:
			p.toolUse(b, emit)
		}
	}
	return nil
}

// claudeTodoWriteInput is TodoWrite's input.
type claudeTodoWriteInput struct {
	Todos []struct {
		Content    string `json:"content"`
		Status     string `json:"status"`
		ActiveForm string `json:"activeForm"`
	} `json:"todos"`
}

// claudeTaskInput is the input of TaskCreate and TaskUpdate.
type claudeTaskInput struct {
	Subject    string `json:"subject"`
	ActiveForm string `json:"activeForm"`
	TaskID     any    `json:"taskId"`
	Status     string `json:"status"`
}

func (p *ClaudeParser) toolUse(b claudeBlock, emit func(Update)) {
	name := jscanStr(b.name)
	switch name {
	case "TodoWrite":
		var in claudeTodoWriteInput
		if !decodePayload("claude", "TodoWrite input", b.input, &in, emit) || !hasList("claude", "TodoWrite", in.Todos != nil, emit) {
			return
		}
		todos := make([]todostore.Todo, 0, len(in.Todos))
		anyCut := false
		for _, t := range in.Todos {
			if td, ok, cut := agentTodo(t.Content, mapStatus(t.Status), t.ActiveForm); ok {
				todos = append(todos, td)
				anyCut = anyCut || cut
			}
		}
		emit(Update{Kind: UpdateToolCall, Text: fmt.Sprintf("TodoWrite %d items", len(todos))})
		emitTodos("claude", todos, anyCut, emit)
	case "TaskCreate", "TaskUpdate":
		var in claudeTaskInput
		if !decodePayload("claude", name+" input", b.input, &in, emit) {
			return
		}
		p.UsesTasks = true
		call := claudeTaskCall{create: name == "TaskCreate", taskID: anyID(in.TaskID), subject: in.Subject, activeForm: in.ActiveForm, status: in.Status}
		if p.pending == nil {
			p.pending = map[string]claudeTaskCall{}
		}
		if id := jscanStr(b.id); id != "" {
			p.pending[id] = call
		}
		if call.create {
			emit(Update{Kind: UpdateToolCall, Text: toolLine("TaskCreate", in.Subject)})
		} else {
			emit(Update{Kind: UpdateToolCall, Text: toolLine("TaskUpdate", strings.TrimSpace("#"+call.taskID+" "+in.Status))})
		}
	default:
		emit(Update{Kind: UpdateToolCall, Text: toolLine(name, toolArg(b.input))})
	}
}

// anyID reads a task id that may be written as a string or a number.
func anyID(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}

// claudeTaskResult is the part of .tool_use_result the Task tools fill.
type claudeTaskResult struct {
	Task *struct {
		ID any `json:"id"`
	} `json:"task"`
	Success *bool `json:"success"`
}

func (p *ClaudeParser) user(line []byte, emit func(Update)) error {
	defer p.cl.release()
	if err := p.cl.scan(line); err != nil {
		return err
	}
	if !jscanIsNull(p.cl.parent) {
		return nil
	}
	var res claudeTaskResult
	if len(p.cl.toolResult) > 0 && p.cl.toolResult[0] == '{' {
		// A result that does not fit is no result: the text fallback below
		// still finds created ids.
		_ = json.Unmarshal(p.cl.toolResult, &res)
	}
	results := 0
	for _, b := range p.cl.blocks {
		if string(b.typ) == `"tool_result"` {
			results++
		}
	}
	for _, b := range p.cl.blocks {
		if string(b.typ) != `"tool_result"` {
			continue
		}
		id := jscanStr(b.toolUseID)
		call, ok := p.pending[id]
		if !ok {
			continue
		}
		delete(p.pending, id)
		if jscanTrue(b.isError) || (results == 1 && res.Success != nil && !*res.Success) {
			continue
		}
		if call.create {
			taskID := ""
			if results == 1 && res.Task != nil {
				taskID = anyID(res.Task.ID)
			}
			if taskID == "" {
				if m := taskCreatedRegex.FindStringSubmatch(jscanStr(b.content)); m != nil {
					taskID = m[1]
				}
			}
			p.createTask(taskID, call)
		} else if !p.updateTask(call) {
			continue
		}
		p.TasksChanged = true
		todos, cut := p.Tasks.Todos()
		emitTodos("claude", todos, cut, emit)
	}
	return nil
}

func (p *ClaudeParser) createTask(id string, call claudeTaskCall) {
	t := ClaudeTask{ID: id, Subject: call.subject, ActiveForm: call.activeForm, Status: todostore.Pending}
	if i := p.Tasks.find(id); id != "" && i >= 0 {
		p.Tasks.Tasks[i] = t
		return
	}
	p.Tasks.Tasks = append(p.Tasks.Tasks, t)
}

// updateTask applies a TaskUpdate and reports whether a task changed.
func (p *ClaudeParser) updateTask(call claudeTaskCall) bool {
	i := p.Tasks.find(call.taskID)
	if i < 0 {
		return false // made before todosh knew the session: nothing to change
	}
	if call.status == "deleted" {
		p.Tasks.Tasks = append(p.Tasks.Tasks[:i], p.Tasks.Tasks[i+1:]...)
		return true
	}
	t := &p.Tasks.Tasks[i]
	if call.status != "" {
		t.Status = mapStatus(call.status)
	}
	if call.subject != "" {
		t.Subject = call.subject
	}
	if call.activeForm != "" {
		t.ActiveForm = call.activeForm
	}
	return true
}
