// Package todotools runs todosh's own todo tools (todo_write, todo_read,
// todo_tick, todo_pause) against a session: their names, schemas, rules and
// results. One implementation serves every caller: the model-API backend
// offers them as functions, `todosh mcp` serves them over MCP (to ACP agents
// and to any MCP client).
package todotools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/todostore"
)

// The names of the todo tools todosh gives a model (ARCHITECTURE.md §4).
const (
	Write = "todo_write"
	Read  = "todo_read"
	Tick  = "todo_tick"
	Pause = "todo_pause"
	// The board's tools (docs/board.md), offered when Tools.Board is set.
	BoardReady = "board_ready"
	BoardClaim = "board_claim"
	BoardDone  = "board_done"
)

// Names are the names of todosh's todo tools in Specs' order: the one list
// the ACP allow-list, the wrapped CLIs' MCP configuration and every prompt
// that names a tool read (ARCHITECTURE.md §4).
func Names() []string {
	specs := (&Tools{Board: noBoard{}}).Specs()
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	return names
}

// Spelling is how an agent names a tool of todosh's MCP server: the
// separator around the server's name ("__" for mcp__todosh__todo_write),
// or "" for the bare name.
type Spelling string

// The spellings of the agents todosh knows.
const (
	// SpellBare is todo_write: todosh's own model backends, and an agent
	// whose spelling is unknown.
	SpellBare Spelling = ""
	// SpellClaude is mcp__todosh__todo_write: Claude Code, and Codex,
	// whose namespace for the server is mcp__todosh.
	SpellClaude Spelling = "__"
	// SpellGemini is mcp_todosh_todo_write: Gemini CLI.
	SpellGemini Spelling = "_"
)

// Of spells one tool of todosh's server as the agent sees it.
func (s Spelling) Of(tool string) string {
	if s == SpellBare {
		return tool
	}
	return "mcp" + string(s) + agent.MCPName + string(s) + tool
}

// All spells every todo tool, in Names' order.
func (s Spelling) All() []string {
	names := Names()
	for i, n := range names {
		names[i] = s.Of(n)
	}
	return names
}

// MaxPauseReason is the longest todo_pause reason, in characters; the reason
// is shown to the person in one line.
const MaxPauseReason = 500

// MaxArgs bounds the arguments of one tool call in bytes; no valid list
// is larger than a session file.
const MaxArgs = todolist.MaxFileSize

// Spec is one tool offered to a model: its name, what it does, and the
// JSON schema of its arguments, as OpenAI-style "function" tools expect.
type Spec struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// Outcome is the result of one tool call. Result goes back to the model
// as the tool's output, also when IsError; the other fields tell the backend
// what to emit.
type Outcome struct {
	Result  string
	IsError bool
	// Changed is true when the list on disk changed (emit EventTodos).
	Changed bool
	// Todos is the list after the call; nil when the call failed.
	Todos []todolist.Todo
	// Paused is true after a successful todo_pause; PauseReason is why.
	Paused      bool
	PauseReason string
}

// Tools runs the todo tools against one session. Every change goes through
// Session.Update with the same rules as the slash commands, so a call that
// breaks a rule changes nothing.
type Tools struct {
	Session agent.Session
	// RequireEvidence refuses completing an item or ticking a subtask
	// without evidence (--require-evidence).
	RequireEvidence bool

	// shown is the list these tools last showed the agent (a todo_read
	// or todo_write reply), against which its positions resolve: the
	// session's agentRead is shared by every agent of the session (an
	// agent's hooks mark it too), so it cannot say what this one saw.
	// shownRead is the session's agentRead just after that show: when it
	// has moved on, the agent (or another agent of the session) was shown
	// a newer list, so the positions are refused rather than guessed.
	mu        sync.Mutex
	shown     []todolist.Todo
	shownRead int
	shownOK   bool
	// Board runs the board tools for the session; nil offers none
	// (boardcmd.Tools is the one implementation).
	Board Board
}

// saw records todos as the list the agent was last shown, at the
// session's agentRead read.
func (t *Tools) saw(todos []todolist.Todo, read int) {
	t.mu.Lock()
	t.shown, t.shownRead, t.shownOK = todolist.CloneTodos(todos), read, true
	t.mu.Unlock()
}

// SawPrompt records that the agent is shown the session's list in a
// turn's prompt (the backends that run these tools in process call it at
// a turn's start): the list on disk, when it is the one the agent's last
// read marked.
func (t *Tools) SawPrompt() {
	s, err := t.Session.Load()
	if err == nil && s.AgentRead == s.Rev {
		t.saw(s.Todos, s.AgentRead)
	}
}

// seen is the list the agent was last shown by these tools, for a
// session whose agentRead is read; ok false before any, and stale when
// the session's agentRead moved on since.
func (t *Tools) seen(read int) (todos []todolist.Todo, ok, stale bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.shown, t.shownOK, t.shownOK && read != t.shownRead
}

// Board is the project's shared board as the board tools reach it: each
// call returns the text the model reads, and claims and finishes as the
// session s, putting a claimed item on s's list (docs/board.md).
type Board interface {
	Ready(s agent.Session) (string, error)
	Claim(s agent.Session, id string, next bool, lease string) (string, error)
	Done(s agent.Session, id, evidence string) (string, error)
}

// noBoard makes Names list the board tools, which every allow-list
// includes whether or not a board is there.
type noBoard struct{}

func (noBoard) Ready(agent.Session) (string, error) { return "", errors.New("no board") }
func (noBoard) Claim(agent.Session, string, bool, string) (string, error) {
	return "", errors.New("no board")
}
func (noBoard) Done(agent.Session, string, string) (string, error) { return "", errors.New("no board") }

// Specs returns the tool definitions to send to the model, in a fixed order.
func (t *Tools) Specs() []Spec {
	evidence := "What you ran or saw that shows it is done (for completed items)."
	if t.RequireEvidence {
		evidence = "Required when completed: what you ran or saw that shows it is done."
	}
	subtask := toolObject(map[string]any{
		"id":       toolString("Its stable id as the replies show it, such as \"s4\" (optional; left out, it matches by text)."),
		"content":  toolString("What to do."),
		"status":   toolEnum("Subtasks are pending or completed.", "pending", "completed"),
		"evidence": toolString(evidence),
	}, "content", "status")
	item := toolObject(map[string]any{
		"id":         toolString("Its stable id as the replies show it, such as \"t3\" (optional; left out, it matches by text; a position such as \"2\" is refused if the list changed since your last read). With new content it renames that item, which keeps its subtasks and evidence."),
		"content":    toolString("What to do, in the imperative (at most 1000 characters)."),
		"status":     toolEnum("An item with subtasks completes when all its subtasks are completed.", "pending", "in_progress", "completed", "cancelled"),
		"activeForm": toolString("The present-continuous form shown while it is in progress (optional)."),
		"evidence":   toolString(evidence),
		"subtasks":   map[string]any{"type": "array", "description": "A checklist to tick one by one with todo_tick (optional; left out, the item keeps the subtasks it has; subtasks the person added always stay).", "items": subtask},
	}, "content", "status")
	specs := []Spec{
		{
			Name: Write,
			Description: "Replace the whole todo list. Plan multi-step work with it before you start and update " +
				"statuses as you go. Items you leave out are removed: to drop an item on purpose, mark it cancelled. " +
				"The person edits the same list: items and subtasks the person added, and any the person added, edited, " +
				"completed or reopened since your last read (your last todo tool reply that showed the list), stay as the " +
				"person left them whatever your list says; the reply names what was kept. Give items their ids (\"t3\") " +
				"so each change lands on the item you mean.",
			Parameters: toolSchema(toolObject(map[string]any{
				"todos": map[string]any{"type": "array", "description": "The whole list, in order.", "items": item},
			}, "todos")),
		},
		{
			Name:        Read,
			Description: "Show the todo list as the person sees it, with the stable id of every item and subtask (\"t3\", \"s4\"), which never changes when items move.",
			Parameters:  toolSchema(toolObject(map[string]any{})),
		},
		{
			Name: Tick,
			Description: "Tick one subtask by its stable id (such as \"s4\"), or untick it if it is ticked. A position " +
				"(such as \"2.1\") works only while the list is as your last read showed it, else it is refused. " +
				"Returns the subtask's and its item's text, and the subtasks still open.",
			Parameters: toolSchema(toolObject(map[string]any{
				"id":       toolString("The subtask's stable id, such as \"s4\" (or its position, such as \"2.1\")."),
				"evidence": toolString(strings.Replace(evidence, " (for completed items)", "", 1)),
			}, "id")),
		},
		{
			Name: Pause,
			Description: "Stop and ask the person when you cannot go on without them. The list stays; todosh " +
				"will not continue you until the person replies.",
			Parameters: toolSchema(toolObject(map[string]any{
				"reason": map[string]any{"type": "string", "minLength": 1, "maxLength": MaxPauseReason,
					"description": "What you need from the person, shown to them (1-500 characters)."},
			}, "reason")),
		},
	}
	if t.Board == nil {
		return specs
	}
	return append(specs,
		Spec{
			Name: BoardReady,
			Description: "List the project's shared board's items that are ready to take (open, not blocked, " +
				"nobody's lease running), with their ids. Other agents and people take work from the same board.",
			Parameters: toolSchema(toolObject(map[string]any{})),
		},
		Spec{
			Name: BoardClaim,
			Description: "Take one item of the shared board, by its id or the next ready one, so nobody else " +
				"works on it; it joins your todo list in progress, linked to the board. A claim lost to someone " +
				"else is an error naming them: take another.",
			Parameters: toolSchema(toolObject(map[string]any{
				"id":    toolString("The board item's id from board_ready (leave out with next)."),
				"next":  map[string]any{"type": "boolean", "description": "Claim the first ready item instead of one by id."},
				"lease": toolString("How long the claim holds without being done, such as \"30m\" (default 1h)."),
			})),
		},
		Spec{
			Name:        BoardDone,
			Description: "Mark a board item you claimed done, with evidence; the linked item of your todo list completes too.",
			Parameters: toolSchema(toolObject(map[string]any{
				"id":       toolString("The board item's id."),
				"evidence": toolString("What you ran or saw that shows it is done."),
			}, "id")),
		},
	)
}

func toolString(desc string) map[string]any {
	return map[string]any{"type": "string", "description": desc}
}

func toolEnum(desc string, values ...string) map[string]any {
	return map[string]any{"type": "string", "enum": values, "description": desc}
}

func toolObject(props map[string]any, required ...string) map[string]any {
	o := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// toolSchema marshals a schema built from maps and strings, which cannot fail.
func toolSchema(v map[string]any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// Call runs one tool call from the model. It never panics and never changes
// the list on error: a bad call (unknown tool, invalid JSON, wrong types, a
// rule broken) comes back as an error result the model can act on.
func (t *Tools) Call(name string, args []byte) Outcome {
	var (
		out Outcome
		err error
	)
	switch name {
	case Write:
		out, err = t.write(args)
	case Read:
		out, err = t.read(args)
	case Tick:
		out, err = t.tick(args)
	case Pause:
		out, err = t.pause(args)
	case BoardReady, BoardClaim, BoardDone:
		if t.Board == nil {
			return Outcome{Result: name + ": there is no board here (todosh board init makes one)", IsError: true}
		}
		out, err = t.board(name, args)
	default:
		// The tools these offer, from their specs: the board's only where
		// there is a board (the four written out here left them out).
		var names []string
		for _, s := range t.Specs() {
			names = append(names, s.Name)
		}
		return Outcome{
			Result:  fmt.Sprintf("unknown tool %q: the todo tools are %s", todolist.ShortLine(name, 60), todolist.AndList(names)),
			IsError: true,
		}
	}
	if err != nil {
		return Outcome{Result: name + ": " + err.Error() + " (the list is unchanged)", IsError: true}
	}
	return out
}

// toolDecode parses the arguments of a call into v: one JSON object, empty
// arguments meaning {}. Type errors name the field.
func toolDecode(args []byte, v any) error {
	if len(args) > MaxArgs {
		return fmt.Errorf("arguments are %d bytes, over the limit of %d", len(args), MaxArgs)
	}
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		args = []byte("{}")
	}
	if args[0] != '{' {
		return errors.New("arguments must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	err := dec.Decode(v)
	var (
		te *json.UnmarshalTypeError
		se *json.SyntaxError
	)
	switch {
	case err == nil:
		if len(bytes.TrimSpace(args[dec.InputOffset():])) > 0 {
			return errors.New("arguments have data after the JSON object")
		}
		return nil
	case errors.As(err, &te) && te.Field != "":
		return fmt.Errorf("argument %s must be %s, not %s", te.Field, toolTypeName(te.Type.Kind().String()), te.Value)
	case errors.As(err, &se), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("arguments are not valid JSON: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	return fmt.Errorf("arguments: %v", strings.TrimPrefix(err.Error(), "json: "))
}

func toolTypeName(kind string) string {
	switch kind {
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	case "string":
		return "a string"
	}
	return kind
}

// toolID is an id the model may write as "2.1" or as a bare number.
type toolID string

// UnmarshalJSON accepts a string or a number: a stable id ("t3") or a
// position ("2", "2.1").
func (id *toolID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*id = toolID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err == nil {
		*id = toolID(n.String())
		return nil
	}
	if string(b) == "null" {
		return nil
	}
	return fmt.Errorf("id must be a string such as \"2.1\", not %s", todolist.ShortLine(string(b), 20))
}

// --- todo_read ---

func (t *Tools) read(args []byte) (Outcome, error) {
	var none struct{}
	if err := toolDecode(args, &none); err != nil {
		return Outcome{}, err
	}
	// The reply shows the whole list: the agent's read (one owner: the
	// store's Commit), so positions and the merge know what it saw.
	sess, _, err := t.Session.Commit(todolist.ByAgent, func(s *todostore.Session) error {
		s.MarkAgentRead()
		return nil
	})
	if err != nil {
		return Outcome{}, err
	}
	t.saw(sess.Todos, sess.AgentRead)
	return Outcome{Result: toolListWithIDs(sess.Todos), Todos: sess.Todos}, nil
}

// toolListWithIDs is the list for the model (FormatListForModel) after a
// line giving each position's stable id.
func toolListWithIDs(todos []todolist.Todo) string {
	var ids []string
	for _, td := range todos {
		if td.UID != "" {
			ids = append(ids, td.ID+" "+td.UID)
		}
		for _, st := range td.Subtasks {
			if st.UID != "" {
				ids = append(ids, st.ID+" "+st.UID)
			}
		}
	}
	if len(ids) == 0 {
		return todoview.FormatListForModel(todos)
	}
	return "Stable ids (use them in " + Tick + " and " + Write + "; positions change when items move): " +
		strings.Join(ids, ", ") + "\n" + todoview.FormatListForModel(todos)
}

// --- todo_pause ---

func (t *Tools) pause(args []byte) (Outcome, error) {
	var a struct {
		Reason *string `json:"reason"`
	}
	if err := toolDecode(args, &a); err != nil {
		return Outcome{}, err
	}
	if a.Reason == nil {
		return Outcome{}, errors.New("missing reason: say what you need from the person")
	}
	reason := strings.TrimSpace(*a.Reason)
	if reason == "" {
		return Outcome{}, errors.New("reason is empty: say what you need from the person")
	}
	if n := utf8.RuneCountInString(reason); n > MaxPauseReason {
		return Outcome{}, fmt.Errorf("reason is %d characters, over the limit of %d: shorten it", n, MaxPauseReason)
	}
	sess, err := t.Session.Update(func(s *todostore.Session) error {
		s.Paused, s.PauseReason = true, reason
		return nil
	})
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{
		Result: "Paused. The list stays as it is and todosh will not continue you until the person replies; " +
			"the person sees your reason. End your turn now with your question to the person.",
		Todos:       sess.Todos,
		Paused:      true,
		PauseReason: reason,
	}, nil
}

// --- todo_tick ---

func (t *Tools) tick(args []byte) (Outcome, error) {
	var a struct {
		ID       *toolID `json:"id"`
		Evidence string  `json:"evidence"`
	}
	if err := toolDecode(args, &a); err != nil {
		return Outcome{}, err
	}
	if a.ID == nil || strings.TrimSpace(string(*a.ID)) == "" {
		return Outcome{}, errors.New("missing id: give one subtask id such as \"2.1\"")
	}
	id := strings.TrimSpace(string(*a.ID))
	if a.Evidence != "" {
		if err := todolist.CheckText("evidence", a.Evidence); err != nil {
			return Outcome{}, err
		}
	}
	var (
		item, sub int
		ticked    bool
		fresh     bool // the list is the one the agent last saw
	)
	require := t.requireEvidence() // read once: a file of the session
	rc := t.receipts(require)
	sess, err := t.Session.Update(func(s *todostore.Session) error {
		var err error
		seen, seenOK, stale := t.seen(s.AgentRead)
		switch {
		case stale && todolist.IsPosition(id) && !sameLayout(seen, s.Todos):
			return fmt.Errorf("the list changed since your last read, so position %s may name another subtask now: "+
				"call %s and tick by the subtask's stable id (such as \"s4\")", todolist.ShortLine(id, 20), Read)
		case seenOK:
			item, sub, err = toolFindSeen(s.Todos, seen, id)
			fresh = sameLayout(seen, s.Todos)
		default:
			item, sub, err = toolFind(s, id)
			fresh = !s.AgentStale()
		}
		if err != nil {
			return err
		}
		if sub < 0 {
			return toolNotSubtask(s.Todos[item], item)
		}
		if fresh {
			s.MarkAgentRead() // the agent saw the list; it knows its own tick
		}
		todolist.OwnSubtasks(&s.Todos[item]) // they are shared with the store's cache (copy on write)
		st := s.Todos[item].Subtasks[sub]
		ticked = st.Status != todolist.Completed
		if !ticked {
			st.Evidence = ""
			s.Todos[item].Subtasks[sub] = st
			return todolist.SetSubtaskStatus(s.Todos, item, sub, todolist.Pending)
		}
		if a.Evidence == "" && require {
			return fmt.Errorf("subtask %d.%d needs evidence to be ticked (evidence is required in this session): "+
				"give what you ran or saw in the evidence argument", item+1, sub+1)
		}
		if err := rc.check(fmt.Sprintf("subtask %d.%d", item+1, sub+1), s.Todos[item].UID, a.Evidence); err != nil {
			return err
		}
		s.Todos[item].Subtasks[sub].Evidence = a.Evidence
		return todolist.SetSubtaskStatus(s.Todos, item, sub, todolist.Completed)
	})
	if err != nil {
		return Outcome{}, err
	}
	if fresh {
		t.saw(sess.Todos, sess.AgentRead) // what it saw, and its own tick
	}
	return Outcome{Result: toolTickResult(sess.Todos, item, sub, ticked), Changed: true, Todos: sess.Todos}, nil
}

// toolFindSeen resolves the id of a todo_tick for an agent these tools
// showed the list seen: a stable id anywhere in the list now, or a
// position in seen, followed to its entry now by stable id. An entry that
// left the list is refused: the position never lands on another one.
func toolFindSeen(now, seen []todolist.Todo, id string) (item, sub int, err error) {
	if !todolist.IsPosition(id) {
		return toolFindUID(now, id)
	}
	i, j, err := todolist.FindID(seen, id)
	if err != nil {
		return 0, 0, err
	}
	uid := seen[i].UID
	if j >= 0 {
		uid = seen[i].Subtasks[j].UID
	}
	if item, sub, ok := todolist.FindUID(now, uid); ok && uid != "" && (sub < 0) == (j < 0) {
		return item, sub, nil
	}
	return 0, 0, fmt.Errorf("position %s named an entry of the list you last read that is no longer on the list: "+
		"call %s and tick by the subtask's stable id (such as \"s4\")", todolist.ShortLine(id, 20), Read)
}

// toolFindUID finds a stable id in todos.
func toolFindUID(todos []todolist.Todo, id string) (item, sub int, err error) {
	item, sub, ok := todolist.FindUID(todos, id)
	if !ok {
		return 0, 0, fmt.Errorf("no item or subtask has the id %q (it may have been removed): call %s for the ids", todolist.ShortLine(id, 20), Read)
	}
	return item, sub, nil
}

// sameLayout reports whether two lists hold the same stable ids in the
// same places, so a position means the same entry in both.
func sameLayout(a, b []todolist.Todo) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].UID == "" || a[i].UID != b[i].UID || len(a[i].Subtasks) != len(b[i].Subtasks) {
			return false
		}
		for j := range a[i].Subtasks {
			if a[i].Subtasks[j].UID == "" || a[i].Subtasks[j].UID != b[i].Subtasks[j].UID {
				return false
			}
		}
	}
	return true
}

// toolFind resolves the id of a todo_tick: a stable id ("s4", "t3")
// anywhere in the list, or a position ("2.1") only while the list is as
// the agent last read it, so a tick never lands on another item after the
// person moved or removed items.
func toolFind(s *todostore.Session, id string) (item, sub int, err error) {
	if !todolist.IsPosition(id) {
		return toolFindUID(s.Todos, id)
	}
	if s.AgentStale() {
		return 0, 0, fmt.Errorf("the list changed since your last read, so position %s may name another subtask now: "+
			"call %s and tick by the subtask's stable id (such as \"s4\")", todolist.ShortLine(id, 20), Read)
	}
	return todolist.FindID(s.Todos, id)
}

func toolNotSubtask(t todolist.Todo, item int) error {
	if len(t.Subtasks) > 0 {
		return fmt.Errorf("%d is an item, not a subtask: tick its subtasks %d.1-%d.%d one by one (its status follows them)",
			item+1, item+1, item+1, len(t.Subtasks))
	}
	return fmt.Errorf("%d is an item without subtasks: todo_tick takes a subtask id such as \"2.1\"; "+
		"set the item's status with %s", item+1, Write)
}

// toolTickResult tells the model what it ticked, naming the subtask and
// its item by position, stable id and text, what is left of that item, and
// to go on (seed 000's tick result). Sentences name positions and ids
// only; todo text appears only in the list lines under them.
func toolTickResult(todos []todolist.Todo, item, sub int, ticked bool) string {
	it := todos[item]
	st := it.Subtasks[sub]
	var b strings.Builder
	if !ticked {
		fmt.Fprintf(&b, "Unticked %s (%s) of item %s (%s): it was already ticked, so it is open again (call %s again to tick it).\n",
			st.ID, st.UID, it.ID, it.UID, Tick)
	} else {
		fmt.Fprintf(&b, "Ticked %s (%s) of item %s (%s).\n", st.ID, st.UID, it.ID, it.UID)
	}
	fmt.Fprintf(&b, "  %s %s\n  %s %s %s\n", it.ID, todoview.QuoteForModel(it.Content), st.ID, toolBox(st), todoview.QuoteForModel(st.Content))
	if len(todolist.OpenSubtaskIDs(it)) == 0 {
		fmt.Fprintf(&b, "All subtasks of %s are done: %s is now %s.\n", it.ID, it.ID, toolStatusWord(it.Status))
		for _, next := range todos {
			if next.IsOpen() {
				fmt.Fprintf(&b, "Continue with the next open item, %s (%s):\n  %s %s\n", next.ID, next.UID, next.ID, todoview.QuoteForModel(next.Content))
				return b.String()
			}
		}
		b.WriteString("Every item on the list is done.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "Remaining in %s:\n", it.ID)
	for _, s := range it.Subtasks {
		if s.Status != todolist.Completed {
			fmt.Fprintf(&b, "  %s (%s) [ ] %s\n", s.ID, s.UID, todoview.QuoteForModel(s.Content))
		}
	}
	b.WriteString("Continue working through the remaining subtasks.\n")
	return b.String()
}

func toolBox(s todolist.Subtask) string {
	if s.Status == todolist.Completed {
		return "[x]"
	}
	return "[ ]"
}

func toolStatusWord(s todolist.Status) string {
	return strings.ReplaceAll(string(s), "_", " ")
}

// --- todo_write ---

type toolItemArg struct {
	ID         toolID           `json:"id"`
	Content    string           `json:"content"`
	Status     string           `json:"status"`
	ActiveForm string           `json:"activeForm"`
	Evidence   string           `json:"evidence"`
	Subtasks   []toolSubtaskArg `json:"subtasks"`
}

type toolSubtaskArg struct {
	ID       toolID `json:"id"`
	Content  string `json:"content"`
	Status   string `json:"status"`
	Evidence string `json:"evidence"`
}

func (t *Tools) write(args []byte) (Outcome, error) {
	var a struct {
		Todos *[]toolItemArg `json:"todos"`
	}
	if err := toolDecode(args, &a); err != nil {
		return Outcome{}, err
	}
	if a.Todos == nil {
		return Outcome{}, errors.New("missing todos: give the whole list ([] clears it)")
	}
	agentList, err := toolParseList(*a.Todos)
	if err != nil {
		return Outcome{}, err
	}
	if cur, err := t.Session.Load(); err != nil {
		return Outcome{}, err
	} else if seen, ok, stale := t.seen(cur.AgentRead); ok && !stale {
		// A position names the item of the list these tools last showed
		// the agent: its stable id says which one it is now. (After a
		// newer show, ApplyAgentListShown refuses positions on a list
		// changed since.)
		for i := range agentList {
			if p := agentList[i].ID; p != "" {
				if k, j, err := todolist.FindID(seen, p); err == nil && j < 0 && seen[k].UID != "" {
					agentList[i].ID, agentList[i].UID = "", seen[k].UID
				}
			}
		}
	}
	require := t.requireEvidence() // read once: a file of the session
	rc := t.receipts(require)
	res, err := agent.ApplyAgentListShown(t.Session, agentList, func(current []todolist.Todo, m *agent.Merge) error {
		return toolCheckMerge(current, agentList, m, require, rc)
	})
	if errors.Is(err, agent.ErrStalePositions) {
		return Outcome{}, fmt.Errorf("%v: call %s and send the items with their stable ids (such as \"t3\"), or without ids", err, Read)
	}
	if err != nil {
		return Outcome{}, err
	}
	t.saw(res.Todos, res.Read) // the reply shows the whole list
	return Outcome{Result: toolWriteResult(res), Changed: res.Changed, Todos: res.Todos}, nil
}

// toolParseList turns the model's items into todos and checks them against
// the model's rules, so errors name positions in the model's own list.
func toolParseList(in []toolItemArg) ([]todolist.Todo, error) {
	if len(in) > todolist.MaxTodos {
		return nil, fmt.Errorf("%d todos, over the limit of %d", len(in), todolist.MaxTodos)
	}
	todos := make([]todolist.Todo, len(in))
	for i, a := range in {
		st, err := toolStatus(a.Status, fmt.Sprintf("todo %d", i+1))
		if err != nil {
			return nil, err
		}
		if len(a.Subtasks) > todolist.MaxSubtasks {
			return nil, fmt.Errorf("todo %d has %d subtasks, over the limit of %d", i+1, len(a.Subtasks), todolist.MaxSubtasks)
		}
		// The id is kept so that MergeAgentList can tell which item the
		// model means: a stable id, or a position.
		todos[i] = todolist.Todo{Content: a.Content, Status: st, ActiveForm: a.ActiveForm, Evidence: a.Evidence}
		if id := strings.TrimSpace(string(a.ID)); todolist.IsPosition(id) {
			todos[i].ID = id
		} else {
			todos[i].UID = id
		}
		for j, sa := range a.Subtasks {
			where := fmt.Sprintf("subtask %d.%d", i+1, j+1)
			sst, err := toolStatus(sa.Status, where)
			if err != nil {
				return nil, err
			}
			if sst != todolist.Pending && sst != todolist.Completed {
				return nil, fmt.Errorf("%s has status %q: subtasks are pending or completed", where, sst)
			}
			ts := todolist.Subtask{Content: sa.Content, Status: sst, Evidence: sa.Evidence}
			if id := strings.TrimSpace(string(sa.ID)); !todolist.IsPosition(id) {
				ts.UID = id // a position of a subtask is not used: its text matches it
			}
			todos[i].Subtasks = append(todos[i].Subtasks, ts)
		}
	}
	check := todolist.CloneTodos(todos)
	todolist.Normalize(check)
	if err := todolist.Validate(check); err != nil {
		return nil, err
	}
	return todos, nil
}

// toolCheckMerge applies the rules of todo_write to the merge of the
// model's list (MergeAgentList, the one merge rule of every backend):
// completing an item with open subtasks is refused, and with
// requireEvidence newly completed work needs evidence. Errors name
// positions in the model's own list.
func toolCheckMerge(current, agentList []todolist.Todo, m *agent.Merge, requireEvidence bool, rc *receiptCheck) error {
	done := toolDoneBefore(current)
	for i := range m.Todos {
		j := m.FromAgent[i]
		if j < 0 || slices.Contains(m.KeptChanges, i) {
			continue // the person's item or version, kept as it was
		}
		it, own, pos := m.Todos[i], agentList[j], j+1
		for k, sub := range it.Subtasks {
			if len(own.Subtasks) == 0 || sub.Status != todolist.Completed || sub.Evidence != "" || !requireEvidence {
				continue
			}
			if !done[agent.MergeKey(it.Content)+"\x00"+agent.MergeKey(sub.Content)] {
				return fmt.Errorf("subtask %d.%d is completed without evidence (evidence is required in this session): "+
					"give what you ran or saw in its evidence field, or tick it with %s and evidence", pos, k+1, Tick)
			}
		}
		for k, sub := range it.Subtasks {
			key := agent.MergeKey(it.Content) + "\x00" + agent.MergeKey(sub.Content)
			if len(own.Subtasks) > 0 && sub.Status == todolist.Completed && !done[key] {
				if err := rc.check(fmt.Sprintf("subtask %d.%d", pos, k+1), it.UID, sub.Evidence); err != nil {
					return err
				}
			}
		}
		if own.Status != todolist.Completed {
			continue
		}
		if open := toolOpenSubtasks(it, pos); len(open) > 0 {
			return fmt.Errorf("todo %d has open subtasks %s: tick them first with %s (its status follows its subtasks)",
				pos, strings.Join(open, ", "), Tick)
		}
		if len(it.Subtasks) == 0 && it.Evidence == "" && requireEvidence && !done[agent.MergeKey(it.Content)] {
			return fmt.Errorf("todo %d is completed without evidence (evidence is required in this session): "+
				"give what you ran or saw in its evidence field", pos)
		}
		if !done[agent.MergeKey(it.Content)] {
			if err := rc.check(fmt.Sprintf("todo %d", pos), it.UID, it.Evidence); err != nil {
				return err
			}
		}
	}
	return nil
}

// toolDoneBefore indexes the finished work of the current list: completed
// items by text, and completed subtasks by item and subtask text.
// Re-sending finished work needs no new evidence.
func toolDoneBefore(old []todolist.Todo) map[string]bool {
	done := map[string]bool{}
	for _, t := range old {
		if t.Status == todolist.Completed {
			done[agent.MergeKey(t.Content)] = true
		}
		for _, s := range t.Subtasks {
			if s.Status == todolist.Completed {
				done[agent.MergeKey(t.Content)+"\x00"+agent.MergeKey(s.Content)] = true
			}
		}
	}
	return done
}

// toolOpenSubtasks lists the open subtasks of t as the model numbers them.
func toolOpenSubtasks(t todolist.Todo, pos int) []string {
	var open []string
	for k, s := range t.Subtasks {
		if s.Status != todolist.Completed {
			open = append(open, fmt.Sprintf("%d.%d", pos, k+1))
		}
	}
	return open
}

// toolStatus parses a status the model wrote; empty means pending.
func toolStatus(s, where string) (todolist.Status, error) {
	if strings.TrimSpace(s) == "" {
		return todolist.Pending, nil
	}
	st, err := todolist.ParseStatus(s)
	if err != nil {
		return "", fmt.Errorf("%s: %v", where, err)
	}
	return st, nil
}

// toolWriteResult tells the model what its todo_write did. Sentences name
// positions only; todo text appears in the list lines below them.
func toolWriteResult(res agent.Applied) string {
	var b strings.Builder
	c := todolist.CountTodos(res.Todos)
	if res.Changed {
		fmt.Fprintf(&b, "Saved the list: %s, %d done, %d open.\n", todolist.Plural(c.Total, "item"), c.Done(), c.Open())
	} else {
		b.WriteString("The list is unchanged.\n")
	}
	var open, gone []string // old positions, and the lines listing them
	closed := 0
	m := res.Merge
	for _, d := range m.Dropped {
		if d.IsOpen() {
			open = append(open, d.ID)
			gone = append(gone, fmt.Sprintf("  was %s: %s", d.ID, todoview.QuoteForModel(todolist.ShortLine(d.Content, 80))))
		} else {
			closed++
		}
	}
	if len(open) > 0 {
		fmt.Fprintf(&b, "Your list left out %d open item(s), now removed and archived (was %s, listed below). "+
			"If they still need doing, call %s again with them included; to drop an item on purpose, mark it cancelled.\n",
			len(open), strings.Join(open, ", "), Write)
	}
	if closed > 0 {
		fmt.Fprintf(&b, "%d finished item(s) you left out were archived.\n", closed)
	}
	var subs []string
	for _, d := range m.DroppedSubtasks {
		for _, s := range d.Subtasks {
			subs = append(subs, s.ID)
			gone = append(gone, fmt.Sprintf("  was %s: %s", s.ID, todoview.QuoteForModel(todolist.ShortLine(s.Content, 80))))
		}
	}
	if len(subs) > 0 {
		fmt.Fprintf(&b, "Your list left out %d subtask(s) of items it kept, now removed and archived (was %s, listed below).\n",
			len(subs), strings.Join(subs, ", "))
	}
	if len(m.KeptItems) > 0 || len(m.KeptSubtasks) > 0 || len(m.KeptChanges) > 0 || len(m.KeptSubtaskChanges) > 0 {
		b.WriteString("Kept as the person left them (the person's own items, and what the person added or changed since your last read; " +
			"your list did not change them):\n")
		// res.Todos is the list on disk, in the merge's order, with the
		// stable ids Commit gave new entries.
		itemLine := func(i int, why string) string {
			td := res.Todos[i]
			return fmt.Sprintf("  %s (%s) %s: %s", td.ID, td.UID, todoview.QuoteForModel(todolist.ShortLine(td.Content, 80)), why)
		}
		subLine := func(p [2]int, why string) string {
			st := res.Todos[p[0]].Subtasks[p[1]]
			return fmt.Sprintf("  %s (%s) %s: %s", st.ID, st.UID, todoview.QuoteForModel(todolist.ShortLine(st.Content, 80)), why)
		}
		for _, i := range m.KeptItems {
			why := "left out by your list, kept"
			if slices.Contains(m.KeptForSubtasks, i) {
				why += ": it carries subtasks the person added or changed since your last read"
			}
			b.WriteString(itemLine(i, why) + "\n")
		}
		for _, i := range m.KeptChanges {
			b.WriteString(itemLine(i, "changed by the person since your last read, your version not applied") + "\n")
		}
		for _, p := range m.KeptSubtasks {
			b.WriteString(subLine(p, "left out by your list, kept") + "\n")
		}
		for _, p := range m.KeptSubtaskChanges {
			b.WriteString(subLine(p, "changed by the person since your last read, your version not applied") + "\n")
		}
		fmt.Fprintf(&b, "Items the person added can be marked cancelled but not removed. To change what the person "+
			"changed, send it again now that you have seen it.\n")
	}
	if len(m.Gone) > 0 {
		var lines []string
		for _, g := range m.Gone {
			lines = append(lines, fmt.Sprintf("  %s %s", g.UID, todoview.QuoteForModel(todolist.ShortLine(g.Content, 80))))
		}
		fmt.Fprintf(&b, "Not added again: %d entries of your list name ids of items or subtasks that were removed "+
			"(the person removed them; to add one again, send it without its id):\n%s\n", len(m.Gone), strings.Join(lines, "\n"))
	}
	if len(gone) > 0 {
		b.WriteString("Archived from your list:\n" + strings.Join(gone, "\n") + "\n")
	}
	b.WriteString(toolListWithIDs(res.Todos))
	return b.String()
}

// DescribeCall is the one short line shown for a call of a todo tool
// ("todo_write 3 items", "todo_tick 2.1"); control characters in the model's
// arguments are removed so the line cannot move the cursor.
func DescribeCall(name string, args []byte) string {
	var a struct {
		Todos  []json.RawMessage `json:"todos"`
		ID     toolID            `json:"id"`
		Reason string            `json:"reason"`
	}
	ok := toolDecode(args, &a) == nil
	var s string
	switch {
	case !ok:
		s = name
	case name == Write:
		s = name + " " + todolist.Plural(len(a.Todos), "item")
	case name == Tick:
		s = name + " " + string(a.ID)
	case name == Pause:
		s = name + ` "` + todolist.ShortLine(a.Reason, 60) + `"`
	default:
		s = name
	}
	return todolist.ShortLine(s, 100)
}

// --- board_ready, board_claim, board_done ---

func (t *Tools) board(name string, args []byte) (Outcome, error) {
	var a struct {
		ID       string `json:"id"`
		Next     bool   `json:"next"`
		Lease    string `json:"lease"`
		Evidence string `json:"evidence"`
	}
	if err := toolDecode(args, &a); err != nil {
		return Outcome{}, err
	}
	var (
		text string
		err  error
	)
	switch name {
	case BoardReady:
		text, err = t.Board.Ready(t.Session)
		return Outcome{Result: text}, err
	case BoardClaim:
		if a.Lease == "" {
			a.Lease = "1h"
		}
		if (a.ID == "") == !a.Next {
			return Outcome{}, errors.New("give id or next (one of them)")
		}
		text, err = t.Board.Claim(t.Session, a.ID, a.Next, a.Lease)
	default:
		if t.requireEvidence() && strings.TrimSpace(a.Evidence) == "" {
			return Outcome{}, errors.New("evidence is required")
		}
		text, err = t.Board.Done(t.Session, a.ID, a.Evidence)
	}
	if err != nil {
		return Outcome{}, err
	}
	// The claim or the finish changed the session's list: the backend
	// shows it.
	sess, lerr := t.Session.Store.Load(t.Session.ID)
	if lerr != nil {
		return Outcome{Result: text}, nil
	}
	return Outcome{Result: text, Changed: true, Todos: sess.Todos}, nil
}
