package clis

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/todostore"
)

// ClaudeTask links one of Claude's task ids to the item it became, by the
// item's text as todosh last applied it.
type ClaudeTask = todostore.AgentTask

// ClaudeTasks maps the task ids of one Claude Code session to items of
// the list. TaskUpdate names tasks by ids made in earlier turns, so the map
// outlives a turn: the runner keeps it in the session file's agent record,
// written in the same locked change as the list.
type ClaudeTasks struct {
	// Session is the Claude session id the tasks belong to.
	Session string       `json:"session"`
	Tasks   []ClaudeTask `json:"tasks"`
	// View is what the agent has seen of the list (agent.ViewOf): a task
	// deleted whose item stays by the merge rule (agent.View.Stays) keeps
	// its item.
	View agent.View `json:"-"`
}

// TaskOp is one Task tool call that succeeded, for ClaudeTasks.Apply:
// TaskCreate (Create), or TaskUpdate of one task, which Delete removes.
type TaskOp struct {
	Create, Delete bool
	// ID is Claude's task id; empty when a TaskCreate result named none.
	ID string
	// Subject, ActiveForm and Status are the new values, empty when the
	// call leaves them as they are.
	Subject, ActiveForm string
	Status              todostore.Status
}

// Apply applies one task operation to todos, the session's current list,
// and updates the id map. The Task tools change one item at a time, so
// only that item changes and the person's edits to the others stand:
//
//   - TaskCreate adds the item, unless an item with its text that no other
//     task claims is already there (the person's, say): that one becomes
//     the task's.
//   - TaskUpdate finds the task's item by the text last applied (tasks
//     with the same text pair with items in order) and changes its status,
//     text or activeForm; completing it ticks its subtasks. A task whose
//     item is gone (the person deleted or renamed it) is forgotten: it
//     stays deleted unless the agent creates it again.
//   - Deleting a task removes its item and returns it in archived, except
//     an item that stays by the merge rule (ct.View.Stays): the person's,
//     or one the person changed or gave a subtask since the agent's last
//     read.
//
// The returned list is normalized; todos is not changed.
func (ct *ClaudeTasks) Apply(todos []todostore.Todo, op TaskOp) (out, archived []todostore.Todo, err error) {
	out = todostore.CloneTodos(todos)
	todostore.Normalize(out)
	if op.Create {
		t, ok, _ := agentTodo(op.Subject, todostore.Pending, op.ActiveForm)
		if !ok {
			return out, nil, nil
		}
		if i := ct.find(op.ID); op.ID != "" && i >= 0 {
			ct.remove(i) // the id made again: it names the new task
		}
		ct.prune(out, t.Content)
		if ct.itemOf(out, len(ct.Tasks), t.Content) < 0 {
			if out, err = todostore.InsertTodo(out, len(out), t); err != nil {
				return todos, nil, err
			}
		}
		if op.ID != "" {
			ct.Tasks = append(ct.Tasks, ClaudeTask{ID: op.ID, Subject: t.Content})
		}
		return out, nil, nil
	}
	i := ct.find(op.ID)
	if i < 0 {
		return out, nil, nil // made before todosh knew the session
	}
	ct.prune(out, ct.Tasks[i].Subject)
	if i = ct.find(op.ID); i < 0 {
		return out, nil, nil
	}
	k := ct.itemOf(out, i, ct.Tasks[i].Subject)
	if op.Delete {
		ct.remove(i)
		if ct.View.Stays(out[k]) {
			return out, nil, nil // the person's, or changed since the agent's last read
		}
		return todostore.RemoveTodo(out, k), out[k : k+1], nil
	}
	it := &out[k]
	if op.Status != "" {
		it.Status = op.Status
		tickCompleted(out[k : k+1])
	}
	if t, ok, _ := agentTodo(op.Subject, it.Status, op.ActiveForm); ok {
		it.Content = t.Content
		ct.Tasks[i].Subject = t.Content
	}
	if af, _ := cutText(op.ActiveForm); strings.TrimSpace(af) != "" {
		it.ActiveForm = af
	}
	todostore.Normalize(out)
	return out, nil, nil
}

func (ct *ClaudeTasks) find(id string) int {
	for i, t := range ct.Tasks {
		if t.ID == id {
			return i
		}
	}
	return -1
}

func (ct *ClaudeTasks) remove(i int) {
	ct.Tasks = append(ct.Tasks[:i:i], ct.Tasks[i+1:]...)
}

// itemOf is the index in todos of the item of task i, whose text is
// subject: the n-th item with that text for the n-th task with it (n
// counted among the first i tasks), or -1.
func (ct *ClaudeTasks) itemOf(todos []todostore.Todo, i int, subject string) int {
	key := strings.TrimSpace(subject)
	n := 0
	for _, t := range ct.Tasks[:i] {
		if strings.TrimSpace(t.Subject) == key {
			n++
		}
	}
	for k, t := range todos {
		if strings.TrimSpace(t.Content) == key {
			if n == 0 {
				return k
			}
			n--
		}
	}
	return -1
}

// prune forgets the tasks with text subject beyond the number of items
// with that text: their items are gone.
func (ct *ClaudeTasks) prune(todos []todostore.Todo, subject string) {
	key := strings.TrimSpace(subject)
	items := 0
	for _, t := range todos {
		if strings.TrimSpace(t.Content) == key {
			items++
		}
	}
	kept := ct.Tasks[:0:0]
	for _, t := range ct.Tasks {
		if strings.TrimSpace(t.Subject) == key {
			if items == 0 {
				continue
			}
			items--
		}
		kept = append(kept, t)
	}
	ct.Tasks = kept
}

// tickCompleted ticks the subtasks of items the agent says are completed.
// The CLIs have no tool to tick a subtask; they see the subtasks in the todo
// context, and completing the item is their way of saying they did them.
func tickCompleted(todos []todostore.Todo) {
	for i := range todos {
		if todos[i].Status == todostore.Completed {
			todostore.OwnSubtasks(&todos[i]) // they may be the store's, shared (copy on write)
			for j := range todos[i].Subtasks {
				todos[i].Subtasks[j].Status = todostore.Completed
			}
		}
	}
}

// ClaudeParser reads `claude -p --output-format stream-json --verbose`.
// TodoWrite calls carry the whole list and are reported (UpdateTodos) when
// they are made; TaskCreate and TaskUpdate change one task each and are
// reported (UpdateTask) when their tool result arrives, because only the
// result of TaskCreate says which id the task got and Claude may issue
// several calls before any result.
type ClaudeParser struct {
	// UsesTasks is true once the session offered or used the Task tools
	// instead of TodoWrite; set it when an earlier turn did.
	UsesTasks bool

	// MCPTools are todosh's MCP tools as the CLI spells them, the
	// whole-list tool first (mcp__todosh__todo_write); empty when the CLI
	// was not given todosh's MCP server.
	MCPTools []string

	// cli names the CLI in notices and todoWrite its whole-list todo tool:
	// "claude" and "TodoWrite" when empty. Qwen Code writes the same
	// stream with its own names (NewQwenParser).
	cli, todoWrite string

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

// taskCreatedID is the id in the first "Task #ID created" of a
// TaskCreate result's text, ID being letters, digits, '.', '_' and '-';
// "" when there is none. Plain string code: a regular expression links
// the regexp package into todosh, whose start-up pays for it.
func taskCreatedID(text string) string {
	for rest := text; ; {
		_, after, found := strings.Cut(rest, "Task #")
		if !found {
			return ""
		}
		n := 0
		for n < len(after) && (after[n] == '.' || after[n] == '_' || after[n] == '-' || '0' <= after[n] && after[n] <= '9' || 'a' <= after[n]|0x20 && after[n]|0x20 <= 'z') {
			n++
		}
		if n > 0 && strings.HasPrefix(after[n:], " created") {
			return after[:n]
		}
		rest = after
	}
}

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
		switch {
		case bytes.Contains(line, []byte(`"api_retry"`)):
			return p.apiRetry(line, emit)
		case !bytes.Contains(line, []byte(`"init"`)):
			return nil
		}
		return p.init(line, emit)
	case "rate_limit_event":
		return p.rateLimit(line, emit)
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
		if id := jsonStr(raw); id != "" && id != p.session {
			p.session = id
			emit(Update{Kind: UpdateSession, Text: id})
		}
	}
}

// init reads the init line's session id and tools: which todo tools the
// session has (TodoWrite, the Task tools, todosh's MCP tools, each maybe
// deferred behind ToolSearch, which the line lists like any other tool),
// reported as UpdateTools, or UpdateNoTodoTool with the cause when it has
// none.
func (p *ClaudeParser) init(line []byte, emit func(Update)) error {
	var subtype, session, tools, servers []byte
	err := jsonPickLine(line, jsonField{"subtype", &subtype}, jsonField{"session_id", &session}, jsonField{"tools", &tools},
		jsonField{"mcp_servers", &servers})
	if err != nil || string(subtype) != `"init"` {
		return err
	}
	p.setSession(session, emit)
	if jsonIsNull(tools) {
		return nil
	}
	has := map[string]bool{}
	_ = jsonElements(tools, func(v []byte) { has[jsonStr(v)] = true })
	seen := Update{Kind: UpdateTools}
	if has["ToolSearch"] {
		seen.Load = "ToolSearch"
	}
	switch {
	case p.cli == "" && has["TaskCreate"] && has["TaskUpdate"] && !has[p.todoName()]:
		p.UsesTasks = true
		seen.Text = "TaskUpdate"
	case has[p.todoName()]:
		seen.Text = p.todoName()
	case len(p.MCPTools) > 0 && has[p.MCPTools[0]]:
		seen.Text = p.MCPTools[0]
	default:
		emit(Update{Kind: UpdateNoTodoTool, Text: p.noToolCause(servers)})
		return nil
	}
	emit(seen)
	return nil
}

// noToolCause says why a session has no todo tool: todosh's MCP server
// did not connect, or the tools were not offered.
func (p *ClaudeParser) noToolCause(servers []byte) string {
	if len(p.MCPTools) > 0 {
		status := "missing"
		_ = jsonElements(servers, func(v []byte) {
			var srv struct{ Name, Status string }
			if json.Unmarshal(v, &srv) == nil && strings.Contains(p.MCPTools[0], "__"+srv.Name+"__") {
				status = srv.Status
			}
		})
		if status != "connected" {
			return "its tools include no todo tool, and todosh's MCP server is " + todostore.ShortLine(status, 40)
		}
	}
	if p.cli == "" {
		return "its tools include neither TodoWrite nor the Task tools (TaskCreate, TaskUpdate)"
	}
	return "its tools do not include " + p.todoName()
}

// usesTasks implements taskParser.
func (p *ClaudeParser) usesTasks() bool { return p.UsesTasks }

// name is the CLI in notices.
func (p *ClaudeParser) name() string {
	if p.cli == "" {
		return "claude"
	}
	return p.cli
}

// todoName is the whole-list todo tool's name.
func (p *ClaudeParser) todoName() string {
	if p.todoWrite == "" {
		return "TodoWrite"
	}
	return p.todoWrite
}

// apiRetry reads {"type":"system","subtype":"api_retry","attempt":2,
// "max_retries":10,"retry_delay_ms":1500,"error_status":529,"error":"..."}:
// Claude Code retrying its API, which it otherwise does in silence.
func (p *ClaudeParser) apiRetry(line []byte, emit func(Update)) error {
	var subtype, attempt, maxRetries, delay, status, errName []byte
	if err := jsonPickLine(line, jsonField{"subtype", &subtype}, jsonField{"attempt", &attempt}, jsonField{"max_retries", &maxRetries},
		jsonField{"retry_delay_ms", &delay}, jsonField{"error_status", &status}, jsonField{"error", &errName}); err != nil || string(subtype) != `"api_retry"` {
		return err
	}
	emit(Update{Kind: UpdateStatus, Text: retryStatus("API", jsonNumber(attempt), jsonNumber(maxRetries), jsonNumber(delay),
		strings.TrimSpace(jsonScalar(errName)+" "+jsonScalar(status)))})
	return nil
}

// rateLimit reads a rate_limit_event; only a refusal is worth a status.
func (p *ClaudeParser) rateLimit(line []byte, emit func(Update)) error {
	var info []byte
	if err := jsonPickLine(line, jsonField{"rate_limit_info", &info}); err != nil {
		return err
	}
	var st struct {
		Status        string `json:"status"`
		RateLimitType string `json:"rateLimitType"`
	}
	if len(info) > 0 && info[0] == '{' {
		_ = json.Unmarshal(info, &st)
	}
	if st.Status == "rejected" {
		emit(Update{Kind: UpdateStatus, Text: strings.TrimSpace("rate limited " + st.RateLimitType)})
	}
	return nil
}

func (p *ClaudeParser) result(line []byte, emit func(Update)) error {
	var subtype, result, session, errs, isError, errMsg []byte
	// Qwen Code puts a failed turn's message in .error.message.
	err := jsonPickError(line, &errMsg, jsonField{"subtype", &subtype}, jsonField{"is_error", &isError}, jsonField{"result", &result},
		jsonField{"session_id", &session}, jsonField{"errors", &errs})
	if err != nil {
		return err
	}
	p.setSession(session, emit)
	sub := jsonStr(subtype)
	if jsonTrue(isError) || strings.HasPrefix(sub, "error") {
		msg := jsonStr(result)
		if msg == "" {
			msg = jsonStr(errMsg)
		}
		if msg == "" {
			var list []string
			_ = jsonElements(errs, func(v []byte) {
				if s := jsonStr(v); s != "" {
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
	final := jsonStr(result)
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
	return jsonLine(line, func(key []byte, v int) (int, error) {
		switch string(key) {
		case "message":
			return jsonObject(line, v, func(key []byte, v int) (int, error) {
				if string(key) != "content" {
					return -1, nil
				}
				return jsonArray(line, v, func(v int) (int, error) {
					cl.blocks = append(cl.blocks, claudeBlock{})
					return cl.blocks[len(cl.blocks)-1].scan(line, v)
				})
			})
		case "parent_tool_use_id":
			return jsonRaw(line, v, &cl.parent)
		case "tool_use_result":
			return jsonRaw(line, v, &cl.toolResult)
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
	return jsonPick(line, v, jsonField{"type", &b.typ}, jsonField{"text", &b.text}, jsonField{"name", &b.name}, jsonField{"id", &b.id},
		jsonField{"tool_use_id", &b.toolUseID}, jsonField{"input", &b.input}, jsonField{"content", &b.content}, jsonField{"is_error", &b.isError})
}

func (p *ClaudeParser) assistant(line []byte, emit func(Update)) error {
	defer p.cl.release()
	if err := p.cl.scan(line); err != nil {
		return err
	}
	if !jsonIsNull(p.cl.parent) {
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
	name := jsonStr(b.name)
	switch {
	case name == p.todoName():
		var in claudeTodoWriteInput
		if !decodePayload(p.name(), name+" input", b.input, &in, emit) || !hasList(p.name(), name, in.Todos != nil, emit) {
			return
		}
		todos, anyCut := agentTodos(len(in.Todos), func(i int) (string, todostore.Status, string) {
			return in.Todos[i].Content, mapStatus(in.Todos[i].Status), in.Todos[i].ActiveForm
		})
		emit(Update{Kind: UpdateToolCall, Text: name + " " + todostore.Plural(len(todos), "item")})
		emitTodos(p.name(), todos, anyCut, emit)
	case p.cli == "" && (name == "TaskCreate" || name == "TaskUpdate"):
		var in claudeTaskInput
		if !decodePayload("claude", name+" input", b.input, &in, emit) {
			return
		}
		p.UsesTasks = true
		call := claudeTaskCall{create: name == "TaskCreate", taskID: anyID(in.TaskID), subject: in.Subject, activeForm: in.ActiveForm, status: in.Status}
		if p.pending == nil {
			p.pending = map[string]claudeTaskCall{}
		}
		if id := jsonStr(b.id); id != "" {
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
	if !jsonIsNull(p.cl.parent) {
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
		id := jsonStr(b.toolUseID)
		call, ok := p.pending[id]
		if !ok {
			continue
		}
		delete(p.pending, id)
		if jsonTrue(b.isError) || (results == 1 && res.Success != nil && !*res.Success) {
			continue
		}
		op := TaskOp{Create: call.create, ID: call.taskID, Subject: call.subject, ActiveForm: call.activeForm}
		if call.create {
			if results == 1 && res.Task != nil {
				op.ID = anyID(res.Task.ID)
			}
			if op.ID == "" {
				op.ID = taskCreatedID(jsonStr(b.content))
			}
		} else if op.Delete = call.status == "deleted"; !op.Delete && call.status != "" {
			op.Status = mapStatus(call.status)
		}
		if _, cut := cutText(op.Subject); cut {
			emitCut("claude", emit)
		}
		emit(Update{Kind: UpdateTask, Task: &op})
	}
	return nil
}
