package clis

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/todosh/todosh/todolist"

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
	Status              todolist.Status
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
func (ct *ClaudeTasks) Apply(todos []todolist.Todo, op TaskOp) (out, archived []todolist.Todo, err error) {
	out = todolist.CloneTodos(todos)
	todolist.Normalize(out)
	if op.Create {
		t, ok, _ := agentTodo(op.Subject, todolist.Pending, op.ActiveForm)
		if !ok {
			return out, nil, nil
		}
		if i := ct.find(op.ID); op.ID != "" && i >= 0 {
			ct.remove(i) // the id made again: it names the new task
		}
		ct.prune(out, t.Content)
		if ct.itemOf(out, len(ct.Tasks), t.Content) < 0 {
			if out, err = todolist.InsertTodo(out, len(out), t); err != nil {
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
		return todolist.RemoveTodo(out, k), out[k : k+1], nil
	}
	it := &out[k]
	if op.Status != "" {
		it.Status = op.Status
		agent.TickCompleted(out[k : k+1])
	}
	if t, ok, _ := agentTodo(op.Subject, it.Status, op.ActiveForm); ok {
		it.Content = t.Content
		ct.Tasks[i].Subject = t.Content
	}
	if af, _ := cutText(op.ActiveForm); strings.TrimSpace(af) != "" {
		it.ActiveForm = af
	}
	todolist.Normalize(out)
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
func (ct *ClaudeTasks) itemOf(todos []todolist.Todo, i int, subject string) int {
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
func (ct *ClaudeTasks) prune(todos []todolist.Todo, subject string) {
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
	calls    toolCalls                 // every call started, by tool_use id
	usage    claudeUsage
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
	m, err := decodeLine(line)
	if err != nil {
		return err
	}
	switch m.str("type") {
	case "assistant":
		p.assistant(m, emit)
	case "user":
		if len(p.calls) > 0 && p.mentionsPending(line) { // only results of calls seen to start matter
			p.user(m, emit)
		}
	case "system":
		switch m.str("subtype") {
		case "api_retry":
			p.apiRetry(m, emit)
		case "init":
			p.init(m, emit)
		}
	case "rate_limit_event":
		p.rateLimit(m, emit)
	case "result":
		p.result(m, emit)
	}
	return nil
}

func (p *ClaudeParser) mentionsPending(line []byte) bool {
	for id := range p.calls {
		if bytes.Contains(line, []byte(id)) {
			return true
		}
	}
	return false
}

func (p *ClaudeParser) setSession(id string, emit func(Update)) {
	if id != "" && id != p.session {
		p.session = id
		emit(Update{Kind: UpdateSession, Text: id})
	}
}

// init reads the init line's session id and tools: which todo tools the
// session has (TodoWrite, the Task tools, todosh's MCP tools, each maybe
// deferred behind ToolSearch, which the line lists like any other tool),
// reported as UpdateTools, or UpdateNoTodoTool with the cause when it has
// none.
func (p *ClaudeParser) init(m jsonObj, emit func(Update)) {
	p.setSession(m.str("session_id"), emit)
	if jsonIsNull(m["tools"]) {
		return
	}
	has := map[string]bool{}
	for _, v := range jsonArray(m["tools"]) {
		has[jsonStr(v)] = true
	}
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
		emit(Update{Kind: UpdateNoTodoTool, Text: p.noToolCause(m["mcp_servers"])})
		return
	}
	emit(seen)
}

// noToolCause says why a session has no todo tool: todosh's MCP server
// did not connect, or the tools were not offered.
func (p *ClaudeParser) noToolCause(servers []byte) string {
	if len(p.MCPTools) > 0 {
		status := "missing"
		for _, v := range jsonArray(servers) {
			if srv := jsonObject(v); strings.Contains(p.MCPTools[0], "__"+srv.str("name")+"__") {
				status = srv.str("status")
			}
		}
		if status != "connected" {
			return "its tools include no todo tool, and todosh's MCP server is " + todolist.ShortLine(status, 40)
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
func (p *ClaudeParser) apiRetry(m jsonObj, emit func(Update)) {
	emit(Update{Kind: UpdateStatus, Text: retryStatus("API", jsonNumber(m["attempt"]), jsonNumber(m["max_retries"]), jsonNumber(m["retry_delay_ms"]),
		strings.TrimSpace(jsonScalar(m["error"])+" "+jsonScalar(m["error_status"])))})
}

// rateLimit reads a rate_limit_event; only a refusal is worth a status.
func (p *ClaudeParser) rateLimit(m jsonObj, emit func(Update)) {
	if info := m.obj("rate_limit_info"); info.str("status") == "rejected" {
		emit(Update{Kind: UpdateStatus, Text: strings.TrimSpace("rate limited " + info.str("rateLimitType"))})
	}
}

func (p *ClaudeParser) result(m jsonObj, emit func(Update)) {
	p.setSession(m.str("session_id"), emit)
	p.usage.result(p.name(), m["usage"], emit)
	sub := m.str("subtype")
	if jsonTrue(m["is_error"]) || strings.HasPrefix(sub, "error") {
		msg := m.str("result")
		if msg == "" {
			msg = m.errorMessage() // Qwen Code puts a failed turn's message there
		}
		if msg == "" {
			var list []string
			for _, v := range jsonArray(m["errors"]) {
				if s := jsonStr(v); s != "" {
					list = append(list, s)
				}
			}
			msg = strings.Join(list, "; ")
		}
		if msg == "" {
			msg = "turn ended with " + sub
		}
		emit(Update{Kind: UpdateError, Text: msg})
		return
	}
	final := m.str("result")
	if final == "" {
		final = p.lastText
	}
	emit(Update{Kind: UpdateTurnEnd, Text: final})
}

// claudeLine is what the parser reads of an assistant or user line: its
// content blocks, whether it is a sub-agent's, and .tool_use_result.
type claudeLine struct {
	blocks     []jsonObj
	subAgent   bool
	toolResult json.RawMessage
	// id and usage are the message's, as written (usage.go).
	id, usage json.RawMessage
}

// readClaudeLine reads an assistant or user line's parts.
func readClaudeLine(m jsonObj) claudeLine {
	msg := m.obj("message")
	cl := claudeLine{subAgent: !jsonIsNull(m["parent_tool_use_id"]), toolResult: m["tool_use_result"], id: msg["id"], usage: msg["usage"]}
	for _, raw := range jsonArray(msg["content"]) {
		cl.blocks = append(cl.blocks, jsonObject(raw))
	}
	return cl
}

func (p *ClaudeParser) assistant(m jsonObj, emit func(Update)) {
	cl := readClaudeLine(m)
	// A sub-agent's tokens are spent too.
	p.usage.message(p.name(), cl.id, cl.usage, emit)
	if cl.subAgent {
		return // a sub-agent's line: its todos are not the main list
	}
	for _, b := range cl.blocks {
		switch b.str("type") {
		case "text":
			if text := jsonText(b["text"]); len(text) > 1 {
				p.lastText = strings.TrimSuffix(text, "\n")
				emit(Update{Kind: UpdateText, Text: text})
			}
		case "tool_use":
			p.toolUse(b, emit)
		}
	}
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

func (p *ClaudeParser) toolUse(b jsonObj, emit func(Update)) {
	name := b.str("name")
	switch {
	case name == p.todoName():
		var in claudeTodoWriteInput
		if !decodePayload(p.name(), name+" input", b["input"], &in, emit) || !hasList(p.name(), name, in.Todos != nil, emit) {
			return
		}
		todos, anyCut := agentTodos(len(in.Todos), func(i int) (string, todolist.Status, string) {
			return in.Todos[i].Content, mapStatus(in.Todos[i].Status), in.Todos[i].ActiveForm
		})
		emit(p.calls.start(b.str("id"), name, "", name+" "+todolist.Plural(len(todos), "item")))
		emitTodos(p.name(), todos, anyCut, emit)
	case p.cli == "" && (name == "TaskCreate" || name == "TaskUpdate"):
		var in claudeTaskInput
		if !decodePayload("claude", name+" input", b["input"], &in, emit) {
			return
		}
		p.UsesTasks = true
		call := claudeTaskCall{create: name == "TaskCreate", taskID: anyID(in.TaskID), subject: in.Subject, activeForm: in.ActiveForm, status: in.Status}
		if p.pending == nil {
			p.pending = map[string]claudeTaskCall{}
		}
		if id := b.str("id"); id != "" {
			p.pending[id] = call
		}
		if call.create {
			emit(p.calls.start(b.str("id"), name, "", toolLine("TaskCreate", in.Subject)))
		} else {
			emit(p.calls.start(b.str("id"), name, "", toolLine("TaskUpdate", strings.TrimSpace("#"+call.taskID+" "+in.Status))))
		}
	default:
		emit(p.calls.startInput(b.str("id"), name, b["input"]))
	}
}

// exitPrefix reads an exit status from a tool result's text that starts
// "Exit code N" (Claude Code's failed Bash call); nil when it does not.
func exitPrefix(text string) *int {
	const p = "Exit code "
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, p) {
		return nil
	}
	t = t[len(p):]
	end := 0
	for end < len(t) && end < 4 && (t[end] >= '0' && t[end] <= '9' || end == 0 && t[end] == '-') {
		end++
	}
	n, err := strconv.Atoi(t[:end])
	if err != nil {
		return nil
	}
	return &n
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

func (p *ClaudeParser) user(m jsonObj, emit func(Update)) {
	cl := readClaudeLine(m)
	if cl.subAgent {
		return
	}
	var res claudeTaskResult
	if len(cl.toolResult) > 0 && cl.toolResult[0] == '{' {
		// A result that does not fit is no result: the text fallback below
		// still finds created ids.
		_ = json.Unmarshal(cl.toolResult, &res)
	}
	results := 0
	for _, b := range cl.blocks {
		if b.str("type") == "tool_result" {
			results++
		}
	}
	for _, b := range cl.blocks {
		if b.str("type") != "tool_result" {
			continue
		}
		id := b.str("tool_use_id")
		failed := jsonTrue(b["is_error"])
		var exit *int
		if failed {
			exit = exitPrefix(b.str("content"))
		}
		if u := p.calls.end(id, !failed, exit); u != nil {
			emit(*u)
		}
		call, ok := p.pending[id]
		if !ok {
			continue
		}
		delete(p.pending, id)
		if failed || (results == 1 && res.Success != nil && !*res.Success) {
			continue
		}
		op := TaskOp{Create: call.create, ID: call.taskID, Subject: call.subject, ActiveForm: call.activeForm}
		if call.create {
			if results == 1 && res.Task != nil {
				op.ID = anyID(res.Task.ID)
			}
			if op.ID == "" {
				op.ID = taskCreatedID(b.str("content"))
			}
		} else if op.Delete = call.status == "deleted"; !op.Delete && call.status != "" {
			op.Status = mapStatus(call.status)
		}
		if _, cut := cutText(op.Subject); cut {
			emitCut("claude", emit)
		}
		emit(Update{Kind: UpdateTask, Task: &op})
	}
}
