package clis

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent"
)

// UpdateKind says what an Update carries.
type UpdateKind int

// The kinds of update a stream parser reports.
const (
	// UpdateSession: Text is the CLI's own session (thread) id.
	UpdateSession UpdateKind = iota
	// UpdateText: Text is a piece of assistant text; whole messages end
	// with a newline, Gemini's streamed deltas are passed on as they come.
	UpdateText
	// UpdateToolCall: Text is a one-line summary of a tool call, and Tool
	// what is known of it. A call's start carries the line; its end
	// (Tool.State succeeded or failed) carries none, so nothing shows a
	// call twice.
	UpdateToolCall
	// UpdateTodos: Todos is the agent's whole list after a todo event
	// (TodoWrite, update_plan, write_todos).
	UpdateTodos
	// UpdateError: Text is an error the CLI reported for the turn.
	UpdateError
	// UpdateTurnEnd: the CLI ended its turn successfully; Text is its final
	// assistant text.
	UpdateTurnEnd
	// UpdateNotice: Text is a one-line remark (a malformed line skipped,
	// a warning event).
	UpdateNotice
	// UpdateTask: Task is one Claude Task tool call that succeeded, to
	// apply to its one item (ClaudeTasks.Apply).
	UpdateTask
	// UpdateStatus: Text is the CLI's own word on its trouble (an API
	// retry with its count, a reconnect, a rate limit), which replaces
	// the previous one; the turn goes on.
	UpdateStatus
	// UpdateNoTodoTool: the stream shows the CLI has no todo tool this
	// session (Text says how it shows), so its list cannot be kept.
	UpdateNoTodoTool
	// UpdateTools: the stream shows which todo tool the session has: Text
	// is the one the continuation prompt names, as the CLI spells it;
	// Load is the tool that loads deferred tools ("ToolSearch"), "" when
	// there is none.
	UpdateTools
	// UpdateUsage: Usage is tokens spent since the previous UpdateUsage
	// of the turn (usage.go).
	UpdateUsage
)

// Update is one thing a stream said that todosh acts on.
type Update struct {
	Kind  UpdateKind
	Text  string
	Todos []todolist.Todo
	Task  *TaskOp
	Load  string
	Tool  *agent.ToolCall
	Usage *agent.Usage
	// AtEnd is set on an UpdateUsage the CLI gives only when the turn
	// ends (agent.Event.AtEnd).
	AtEnd bool
	// Meter is set on an UpdateNotice of the usage meter: a report it
	// kept out (agent.UsageMeter), which a reader of usage alone keeps.
	Meter bool
}

// toolCalls are the calls a parser saw start and not yet end, by the
// CLI's id, so an end names the call its start did.
type toolCalls map[string]agent.ToolCall

// start records a call's start and returns the update that shows it.
func (c *toolCalls) start(id, name, target, line string) Update {
	call := agent.ToolCall{ID: id, Name: name, Kind: agent.KindOf(name), Target: todolist.ShortLine(target, 500)}
	if id != "" {
		if *c == nil {
			*c = toolCalls{}
		}
		if len(*c) < 1000 { // a stream that never ends its calls is not kept without end
			(*c)[id] = call
		}
	}
	return Update{Kind: UpdateToolCall, Text: line, Tool: &call}
}

// startInput is start for a call whose input is a JSON object: its
// target and its line are its most telling argument (toolArg).
func (c *toolCalls) startInput(id, name string, input []byte) Update {
	arg := toolArg(input)
	return c.start(id, name, arg, toolLine(name, arg))
}

// end is the update for the end of the call with id, nil when its start
// was not seen (a sub-agent's call, a result without its call).
func (c toolCalls) end(id string, ok bool, exit *int) *Update {
	call, found := c[id]
	if !found || id == "" {
		return nil
	}
	delete(c, id)
	return &Update{Kind: UpdateToolCall, Tool: agent.Ended(call.ID, call.Name, call.Kind, call.Target, ok, exit)}
}

// Parser turns the lines of one CLI's JSON stream into updates. It keeps
// state between lines (task ids, the previous list), so use one Parser per
// turn. Line gets the line without its newline and returns an error only
// for a malformed line; the caller reports it and goes on.
type Parser interface {
	Line(line []byte, emit func(Update)) error
}

// MaxLineBytes bounds one stream line. A real transcript line can be many
// megabytes (a tool result holding a file); a line beyond this is skipped
// and reported like a malformed one. The skip reads on through a buffer of
// streamBufSize, so a line of any length costs at most this much memory and
// time linear in its length: a runaway CLI cannot exhaust memory.
const MaxLineBytes = 16 << 20

// ParseStream reads r line by line (lines of any length up to MaxLineBytes)
// and feeds each to p. name prefixes notices ("claude"). The first
// malformed line is reported as soon as it is seen; if there are more, one
// notice at the end gives their number. The error is a read error of r.
func ParseStream(r io.Reader, name string, p Parser, emit func(Update)) error {
	lr := lineReader{r: r, max: MaxLineBytes}
	var (
		lineNo  int
		bad     int
		lastErr error
	)
	report := func(err error) {
		bad++
		lastErr = err
		if bad == 1 {
			emit(Update{Kind: UpdateNotice, Text: fmt.Sprintf("%s: skipped malformed output line %d: %s", name, lineNo, todolist.ShortLine(err.Error(), 160))})
		}
	}
	for {
		line, tooLong, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		lineNo++
		if tooLong {
			report(fmt.Errorf("line longer than %d MiB", lr.max>>20))
		} else if perr := parseLine(p, line, emit); perr != nil {
			report(perr)
		}
	}
	if bad > 1 {
		emit(Update{Kind: UpdateNotice, Text: fmt.Sprintf("%s: skipped %d malformed output lines in all (last: %s)", name, bad, todolist.ShortLine(lastErr.Error(), 120))})
	}
	return nil
}

// streamBufSize is the read buffer of a lineReader. Lines are found in it
// with bytes.IndexByte and handed out in place, so a line costs no copy
// and no call into a buffered reader; a longer line grows the buffer for
// as long as it lasts.
const streamBufSize = 256 << 10

// lineReader splits what r gives into lines. It reads only when the
// buffer holds no whole line, and then once, so a line the CLI has written
// is handled at once rather than when more output arrives.
type lineReader struct {
	r   io.Reader
	max int // longest line handed out; longer ones are skipped

	buf        []byte
	start, end int   // buf[start:end] is read and not yet handed out
	scanned    int   // buf[start:start+scanned] holds no newline
	skipping   bool  // the line being read is over max: its bytes are dropped
	err        error // the read error to return once the buffer is drained
	empty      int   // reads in a row that gave nothing
}

// next returns the next line without its newline; the bytes are valid
// until the next call. A line over max comes back as tooLong, without its
// bytes. After the last line (which may lack a newline) err is io.EOF or
// the read error.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	for {
		from := lr.start + lr.scanned
		if k := bytes.IndexByte(lr.buf[from:lr.end], '\n'); k >= 0 {
			line, tooLong = lr.take(from+k, 1)
			return line, tooLong, nil
		}
		lr.scanned = lr.end - lr.start
		if lr.err != nil {
			if lr.scanned > 0 || lr.skipping {
				line, tooLong = lr.take(lr.end, 0)
				return line, tooLong, nil
			}
			return nil, false, lr.err
		}
		lr.fill()
	}
}

// take hands out buf[start:end] as a line and goes on sep bytes after it.
func (lr *lineReader) take(end, sep int) (line []byte, tooLong bool) {
	line, tooLong = lr.buf[lr.start:end], lr.skipping || end-lr.start > lr.max
	lr.start, lr.scanned, lr.skipping = end+sep, 0, false
	if tooLong {
		return nil, true
	}
	return line, false
}

// fill makes room after the unread bytes and reads once.
func (lr *lineReader) fill() {
	switch unread := lr.end - lr.start; {
	case lr.skipping || unread > lr.max:
		// Over the limit and still no newline: drop what is there.
		lr.skipping = true
		lr.start, lr.end, lr.scanned = 0, 0, 0
		if len(lr.buf) > streamBufSize {
			lr.buf = nil
		}
	case lr.buf == nil || (unread <= streamBufSize/2 && len(lr.buf) > streamBufSize):
		// First read, or back to normal lines after a long one.
		buf := make([]byte, streamBufSize)
		lr.buf, lr.start, lr.end = buf, 0, copy(buf, lr.buf[lr.start:lr.end])
	case lr.end == len(lr.buf) && lr.start > 0:
		lr.end = copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.start = 0
	case lr.end == len(lr.buf):
		// One line fills the buffer: make it larger, up to one byte over
		// the limit, which is how a line over it shows.
		n := min(2*len(lr.buf), lr.max+1)
		buf := make([]byte, n)
		lr.end = copy(buf, lr.buf[lr.start:lr.end])
		lr.buf, lr.start = buf, 0
	}
	if lr.buf == nil {
		lr.buf = make([]byte, streamBufSize)
	}
	n, err := lr.r.Read(lr.buf[lr.end:])
	lr.end += n
	if n > 0 || err != nil {
		lr.empty = 0
		lr.err = err
		return
	}
	if lr.empty++; lr.empty >= 100 {
		lr.err = io.ErrNoProgress
	}
}

// parseLine trims the line ending and blank lines, refuses what cannot be a
// JSON object at a glance, and hands the rest to p.
func parseLine(p Parser, line []byte, emit func(Update)) error {
	if len(line) == 0 || line[0] != '{' || line[len(line)-1] != '}' {
		line = bytes.TrimSpace(line)
	}
	if len(line) == 0 {
		return nil
	}
	if line[0] != '{' || line[len(line)-1] != '}' {
		return fmt.Errorf("not a JSON object: %q", cutBytes(line, 40))
	}
	return p.Line(line, emit)
}

// emitSession emits the string member key of m as the CLI's session id.
func emitSession(m jsonObj, key string, emit func(Update)) {
	if s := m.str(key); s != "" {
		emit(Update{Kind: UpdateSession, Text: s})
	}
}

// cutBytes shortens b for an error message.
func cutBytes(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// toolLine is the one-line summary of a tool call: the tool's name and,
// when there is one, its most telling argument.
func toolLine(name, arg string) string {
	if arg == "" {
		return name
	}
	return name + " " + todolist.ShortLine(arg, 100)
}

// toolArgKeys are the argument names worth showing in a tool call's line,
// in order of preference, across the three CLIs' tools.
var toolArgKeys = [...]string{"command", "file_path", "absolute_path", "notebook_path", "path", "pattern", "url", "query", "description", "subject", "prompt", "dir_path", "paths"}

// toolArg picks the most telling string argument of a tool call's input
// object.
func toolArg(input []byte) string {
	in := jsonObject(input)
	for _, k := range toolArgKeys {
		if s := in.str(k); s != "" {
			return s
		}
	}
	return ""
}

// agentTodo builds one todo from what a CLI reported. Empty text is no
// item (ok false); text over the model's limit is cut, and cut is true so
// the parser can say so.
func agentTodo(content string, status todolist.Status, activeForm string) (t todolist.Todo, ok, cut bool) {
	if strings.TrimSpace(content) == "" {
		return t, false, false
	}
	content, cut = cutText(content)
	activeForm, _ = cutText(activeForm)
	if strings.TrimSpace(activeForm) == "" {
		activeForm = ""
	}
	return todolist.Todo{Content: content, Status: status, ActiveForm: activeForm}, true, cut
}

// agentTodos maps an agent's list of n items, item(i) giving each one's
// text, status and active form, to todos as agentTodo does, leaving out the
// empty ones; anyCut says a text was cut.
func agentTodos(n int, item func(i int) (content string, status todolist.Status, activeForm string)) (todos []todolist.Todo, anyCut bool) {
	todos = make([]todolist.Todo, 0, n)
	for i := 0; i < n; i++ {
		if td, ok, cut := agentTodo(item(i)); ok {
			todos = append(todos, td)
			anyCut = anyCut || cut
		}
	}
	return todos, anyCut
}

// cutText keeps s within todolist.MaxTextLen characters.
func cutText(s string) (string, bool) {
	if utf8.RuneCountInString(s) <= todolist.MaxTextLen {
		return s, false
	}
	r := []rune(s)
	return string(r[:todolist.MaxTextLen-1]) + "…", true
}

// emitTodos emits the UpdateTodos for a list, preceded by a notice when
// a text had to be cut.
func emitTodos(name string, todos []todolist.Todo, cut bool, emit func(Update)) {
	if cut {
		emitCut(name, emit)
	}
	emit(Update{Kind: UpdateTodos, Todos: todos})
}

// emitCut says that a todo text was cut to the limit.
func emitCut(name string, emit func(Update)) {
	emit(Update{Kind: UpdateNotice, Text: fmt.Sprintf("%s: a todo text over %d characters was cut", name, todolist.MaxTextLen)})
}

// decodePayload decodes a todo tool's input into v. A payload of a shape
// todosh does not know is valid JSON, not a malformed line: it is reported
// as such and the list stays as it is.
func decodePayload(cli, what string, raw []byte, v any, emit func(Update)) bool {
	err := errors.New("missing")
	if !jsonIsNull(raw) {
		err = json.Unmarshal(raw, v)
	}
	if err != nil {
		emit(Update{Kind: UpdateNotice, Text: fmt.Sprintf("%s: %s not understood, list unchanged: %s", cli, what, todolist.ShortLine(err.Error(), 120))})
		return false
	}
	return true
}

// hasList refuses a todo payload without a list (absent or null): only an
// explicit empty list empties the agent's list.
func hasList(cli, what string, ok bool, emit func(Update)) bool {
	if !ok {
		emit(Update{Kind: UpdateNotice, Text: fmt.Sprintf("%s: %s without a list, list unchanged", cli, what)})
	}
	return ok
}

// mapStatus reads a status as the CLIs write it. Gemini's "blocked" is
// open work nobody is doing, so it is pending; anything unknown is pending
// too, so an item is never lost for its status.
func mapStatus(s string) todolist.Status {
	if st, err := todolist.ParseStatus(s); err == nil {
		return st
	}
	return todolist.Pending
}

// retryStatus is the one status line of a retry: "API retry 2/10 in 1.5s:
// overloaded_error 529". Parts the CLI did not give are left out.
func retryStatus(what, attempt, limit, delayMs, cause string) string {
	var b strings.Builder
	b.WriteString(what + " retry")
	if attempt != "" {
		b.WriteString(" " + attempt)
		if limit != "" {
			b.WriteString("/" + limit)
		}
	}
	if ms, err := strconv.ParseFloat(delayMs, 64); err == nil && ms > 0 {
		// CLIs give the delay with jitter to the nanosecond; a person
		// reads tenths.
		d := time.Duration(ms * float64(time.Millisecond)).Round(100 * time.Millisecond)
		b.WriteString(" in " + strconv.FormatFloat(max(d, 100*time.Millisecond).Seconds(), 'f', -1, 64) + "s")
	}
	if cause = strings.TrimSpace(cause); cause != "" {
		b.WriteString(": " + todolist.ShortLine(cause, 160))
	}
	return b.String()
}

// jsonNumber is a raw JSON number as written, "" for anything else.
func jsonNumber(raw []byte) string {
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return ""
	}
	return string(raw)
}

// jsonScalar is a raw JSON string's text or a number as written, "" for
// anything else.
func jsonScalar(raw []byte) string {
	if n := jsonNumber(raw); n != "" {
		return n
	}
	return jsonStr(raw)
}

// doneItem is one item of a list that says only done or not done (Codex's
// todo_list, pi's todo tool). The tags are Codex's; pi's items convert.
type doneItem struct {
	Text string `json:"text"`
	Done bool   `json:"completed"`
}

// doneList maps a done/not-done list onto todos. Such a list reports items
// in progress as not done, the same as pending: an open item is therefore
// pending, except that one which was in_progress in prev stays so. todosh
// does not invent a state the CLI did not report, and does not forget one
// it knew.
func doneList(prev []todolist.Todo, items []doneItem) (todos []todolist.Todo, anyCut bool) {
	wasInProgress := map[string]bool{}
	for _, t := range prev {
		if t.Status == todolist.InProgress {
			wasInProgress[strings.TrimSpace(t.Content)] = true
		}
	}
	todos = make([]todolist.Todo, 0, len(items))
	for _, in := range items {
		st := todolist.Pending
		if in.Done {
			st = todolist.Completed
		}
		td, ok, cut := agentTodo(in.Text, st, "")
		if !ok {
			continue
		}
		if st == todolist.Pending && wasInProgress[strings.TrimSpace(td.Content)] {
			td.Status = todolist.InProgress
		}
		todos = append(todos, td)
		anyCut = anyCut || cut
	}
	return todos, anyCut
}
