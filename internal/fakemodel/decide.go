// Package fakemodel is a scripted stand-in for a model API, for checking
// todosh against the real agent CLIs by hand (the lab, ARCHITECTURE.md §1).
// It speaks Anthropic Messages, OpenAI Responses, OpenAI Chat Completions
// and Gemini generateContent, streaming and not, and decides each reply
// from the request alone: the todo tools offered and the conversation so
// far. It is never linked into the todosh binary.
//
// The decision is pure (Decide); each protocol file only translates its
// wire format to and from the neutral Request and Action.
package fakemodel

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Scenario names how the scripted model behaves across turns.
type Scenario string

// The scenarios. Every one creates the same three todos in its first turn.
const (
	// Lazy completes the first item, then ends the turn with two open; each
	// later turn completes one more, then "All done.".
	Lazy Scenario = "lazy"
	// Stuck completes the first item, then never progresses.
	Stuck Scenario = "stuck"
	// Question is Lazy, but the first turn ends with a question.
	Question Scenario = "question"
	// Done completes every item in the first turn.
	Done Scenario = "done"
	// Work is Lazy, but before it marks an item done it runs a command
	// with the agent's shell tool ("runs a command, then marks done"),
	// so todosh's receipts see work. Lazy marks items done without
	// working.
	Work Scenario = "work"
	// Remark runs a command and completes the first item, then each later
	// turn re-marks that finished item (in progress, then completed
	// again) and stops ("re-marks a finished item").
	Remark Scenario = "remark"
	// OneGo writes its list with every item completed in its first call,
	// no item ever open and no work done, then says "All done." ("writes
	// its whole list done in one go"). A family that cannot write an item
	// completed at once (Claude Code's Task tools) plays Done.
	OneGo Scenario = "onego"
)

// Scenarios lists the valid scenarios, for flag help and validation.
var Scenarios = []Scenario{Lazy, Stuck, Question, Done, Work, Remark, OneGo}

// ParseScenario returns the scenario named s.
func ParseScenario(s string) (Scenario, error) {
	for _, sc := range Scenarios {
		if string(sc) == s {
			return sc, nil
		}
	}
	names := make([]string, len(Scenarios))
	for i, sc := range Scenarios {
		names[i] = string(sc)
	}
	last := len(names) - 1
	return "", fmt.Errorf("unknown scenario %q (want %s or %s)", s, strings.Join(names[:last], ", "), names[last])
}

// Todos are the items every scenario plans, in order.
var Todos = []string{
	"Create project skeleton for csvkit-lite",
	"Implement CSV parser with quoted-field support",
	"Write unit tests for the parser",
}

// The texts that end a turn.
const (
	TextIntro    = "I'll break this work into a todo list first."
	TextLazy     = "I've set up the project skeleton and started on the parser. I'll stop here for now."
	TextQuestion = "Should I use the csv module or write my own parser?"
	TextOneMore  = "Finished one more item; I'll stop here."
	TextStuck    = "I'm still looking into it."
	TextAllDone  = "All done."
	TextNoTool   = "I have no todo tool here, so I can't plan this."
	TextSide     = "csvkit-lite plan"
)

// Tool is one tool the request offers. Namespace is set for tools inside
// an OpenAI Responses namespace tool (Codex's MCP tools); Deferred for
// tools only announced for ToolSearch (Claude Code's deferred tools) or
// sent with defer_loading.
type Tool struct {
	Name      string
	Namespace string
	Deferred  bool
	Schema    json.RawMessage
	// Hosted marks a tool that is not a function: Codex's tool_search,
	// which a reply calls with its own item type.
	Hosted bool
}

// FullName is the name a call uses when the namespace cannot be kept
// apart: namespace and name joined by "__", as Codex flattens them.
func (t Tool) FullName() string {
	if t.Namespace == "" {
		return t.Name
	}
	return strings.TrimRight(t.Namespace, "_") + "__" + strings.TrimLeft(t.Name, "_")
}

// Call is one tool call of the model, in the history or in a reply.
// Name is the full (flattened) name; Args is a JSON object.
type Call struct {
	ID   string
	Name string
	Args json.RawMessage
}

// Result is the output of one earlier tool call, as the agent sent it back.
type Result struct {
	CallID string
	Text   string
}

// Msg is one message of the conversation, in any protocol.
// Role is "user", "assistant" or "system".
type Msg struct {
	Role    string
	Text    string
	Calls   []Call
	Results []Result
}

// Request is the protocol-neutral view of one model request.
type Request struct {
	Protocol string
	Model    string
	Stream   bool
	System   string
	Tools    []Tool
	Messages []Msg
	// JSONOnly is set when the request demands a JSON reply (Gemini CLI's
	// next-speaker check and router); Schema is the schema asked for.
	JSONOnly bool
	Schema   json.RawMessage
}

// Action is what the scripted model answers: text, tool calls, or both.
// Calls carry the tool as offered, so a protocol can keep a namespace.
type Action struct {
	Text  string
	Calls []ActionCall
	// Kind says why, for the log: "create", "complete", "search", "end", "side".
	Kind string
	// Usage is the tokens the reply reports, in each protocol's own
	// fields (Server.Usage; the zero value is 100 in, 20 out).
	Usage Usage
}

// Usage is what one reply says it spent: input (prompt) and output
// tokens. The "reports usage" scenario of todosh's tests: every protocol
// reports it where the real API does (Anthropic's message_start and
// message_delta, the Responses API's response.completed, Chat's last
// chunk, Gemini's usageMetadata).
type Usage struct {
	In, Out int
}

// or is u, or 100 in and 20 out when u is zero.
func (u Usage) or() Usage {
	if u == (Usage{}) {
		return Usage{In: 100, Out: 20}
	}
	return u
}

// ActionCall is one tool call to send.
type ActionCall struct {
	Tool Tool
	Args any
}

// deferredMarker starts Claude Code's list of deferred tools, one name a line.
const deferredMarker = "The following deferred tools are now available via ToolSearch"

// Script is how the scripted model plays: the scenario, and whether
// todosh's MCP tools come before the agent's own (to check the MCP path
// with an agent that has a todo tool of its own).
type Script struct {
	Scenario  Scenario
	PreferMCP bool
}

// Decide returns the scripted model's reply to req under scenario sc.
func Decide(sc Scenario, req Request) Action {
	return Script{Scenario: sc}.Decide(req)
}

// Decide returns the scripted model's reply to req. Like a model that
// follows instructions, it also prefers todosh's MCP tools when a user
// message asks for them (names MCP and todo_write, as todosh's ACP prompt
// for Gemini CLI does).
func (s Script) Decide(req Request) Action {
	sc := s.Scenario
	s.PreferMCP = s.PreferMCP || asksForMCP(req.Messages)
	if req.JSONOnly {
		return Action{Text: fillSchema(req.Schema), Kind: "side"}
	}
	if len(req.Tools) == 0 {
		return Action{Text: TextSide, Kind: "side"}
	}
	tools := withDeferred(req)
	fam, set, ok := chooseFamily(tools, s.PreferMCP)
	// Codex defers MCP tools behind its hosted tool_search: search once when
	// no todo tool is in sight, or when todosh's MCP tools are wanted.
	if !ok || s.PreferMCP && !fam.mcp {
		if search, found := find(tools, "tool_search"); found && search.Hosted && !calledTool(req.Messages, "tool_search") {
			q := map[string]any{"query": "todo list todo_write", "limit": 8}
			return Action{Calls: []ActionCall{{Tool: search, Args: q}}, Kind: "search"}
		}
	}
	if !ok {
		return Action{Text: TextNoTool, Kind: "end"}
	}
	var unloaded []string
	for _, t := range set {
		if t.Deferred && !searched(req.Messages, t.FullName()) {
			unloaded = append(unloaded, t.FullName())
		}
	}
	if len(unloaded) > 0 {
		if search, ok := find(tools, "ToolSearch"); ok && !search.Deferred {
			q := map[string]string{"query": "select:" + strings.Join(unloaded, ",")}
			return Action{Calls: []ActionCall{{Tool: search, Args: q}}, Kind: "search"}
		}
	}
	turnStart, firstTurn := currentTurn(req.Messages)
	created, done := fam.progress(set, req.Messages)
	_, doneBefore := fam.progress(set, req.Messages[:turnStart])
	n := len(Todos)
	// complete marks the next item done; Work and Remark run a command
	// first, unless the model's last call was that command.
	complete := func() Action {
		if sc == Work || sc == Remark {
			if shell, args, ok := shellTool(tools); ok && !lastCalled(req.Messages, shell) {
				return Action{Calls: []ActionCall{{Tool: shell, Args: args}}, Kind: "work"}
			}
		}
		return Action{Calls: fam.complete(set, req.Messages, done), Kind: "complete"}
	}
	switch {
	case !created && sc == OneGo && fam.createDone != nil:
		return Action{Text: TextIntro, Calls: fam.createDone(set), Kind: "create"}
	case !created:
		return Action{Text: TextIntro, Calls: fam.create(set), Kind: "create"}
	case done >= n:
		return Action{Text: TextAllDone, Kind: "end"}
	case firstTurn && (done == 0 || sc == Done || sc == OneGo):
		return complete()
	case sc == Remark && fam.remark != nil && !firstTurn:
		switch len(calls(req.Messages[turnStart:])) {
		case 0:
			return Action{Calls: fam.remark(set, req.Messages), Kind: "remark"}
		case 1:
			return Action{Calls: fam.complete(set, req.Messages, 0), Kind: "complete"}
		}
		return Action{Text: TextStuck, Kind: "end"}
	case firstTurn && sc == Question:
		return Action{Text: TextQuestion, Kind: "end"}
	case firstTurn:
		return Action{Text: TextLazy, Kind: "end"}
	case sc == Stuck || sc == Remark:
		return Action{Text: TextStuck, Kind: "end"}
	case done == doneBefore:
		return complete()
	default:
		return Action{Text: TextOneMore, Kind: "end"}
	}
}

// asksForMCP reports whether a user message asks for MCP todo tools.
func asksForMCP(msgs []Msg) bool {
	for _, m := range msgs {
		if m.Role == "user" && strings.Contains(m.Text, "MCP") && strings.Contains(m.Text, "todo_write") {
			return true
		}
	}
	return false
}

// currentTurn returns where the current turn starts (the message after
// the model's last turn-ending reply) and whether it is the first turn.
// Stateless: whatever brought the model back (a continuation, a Stop
// hook's block, a person) comes after that reply.
func currentTurn(msgs []Msg) (start int, first bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if endsTurn(msgs[i]) {
			return i + 1, false
		}
	}
	return 0, true
}

// endTexts are the texts with which the scripted model ends a turn.
var endTexts = []string{TextLazy, TextQuestion, TextOneMore, TextStuck, TextAllDone, TextNoTool}

// endsTurn reports whether m is one of the scripted model's turn-ending
// replies. It goes by the text, not by "text without calls": agents put
// text-only acknowledgements of their own in the history (Qwen Code's
// "Got it. Thanks for the context!").
func endsTurn(m Msg) bool {
	if m.Role != "assistant" || len(m.Calls) > 0 {
		return false
	}
	for _, t := range endTexts {
		if strings.Contains(m.Text, t) {
			return true
		}
	}
	return false
}

// withDeferred adds the tools Claude Code lists as deferred in a message
// (or the system prompt) to those the request offers, marked Deferred.
func withDeferred(req Request) []Tool {
	tools := append([]Tool(nil), req.Tools...)
	texts := []string{req.System}
	for _, m := range req.Messages {
		texts = append(texts, m.Text)
	}
	for _, text := range texts {
		i := strings.Index(text, deferredMarker)
		if i < 0 {
			continue
		}
		lines := strings.Split(text[i+len(deferredMarker):], "\n")
		for _, l := range lines[1:] {
			name := strings.TrimSpace(l)
			if name == "" {
				continue
			}
			if !isToolName(name) {
				break
			}
			if _, ok := find(tools, name); !ok {
				tools = append(tools, Tool{Name: name, Deferred: true})
			}
		}
	}
	return tools
}

// isToolName reports whether s can be a tool name (letters, digits, _ - .).
func isToolName(s string) bool {
	for _, r := range s {
		ok := r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !ok {
			return false
		}
	}
	return s != ""
}

// searched reports whether an earlier ToolSearch call selected name.
func searched(msgs []Msg, name string) bool {
	for _, c := range calls(msgs) {
		if c.Name != "ToolSearch" {
			continue
		}
		var a struct{ Query string }
		if json.Unmarshal(c.Args, &a) == nil {
			for _, n := range strings.Split(strings.TrimPrefix(a.Query, "select:"), ",") {
				if strings.TrimSpace(n) == name {
					return true
				}
			}
		}
	}
	return false
}

// calledTool reports whether the model called the tool named name before.
func calledTool(msgs []Msg, name string) bool {
	for _, c := range calls(msgs) {
		if c.Name == name {
			return true
		}
	}
	return false
}

// find returns the tool whose full name is name.
func find(tools []Tool, name string) (Tool, bool) {
	for _, t := range tools {
		if t.FullName() == name {
			return t, true
		}
	}
	return Tool{}, false
}

// calls returns every tool call of the model in msgs, in order.
func calls(msgs []Msg) []Call {
	var out []Call
	for _, m := range msgs {
		out = append(out, m.Calls...)
	}
	return out
}

// results maps call ids to the agent's tool output.
func results(msgs []Msg) map[string]string {
	out := map[string]string{}
	for _, m := range msgs {
		for _, r := range m.Results {
			out[r.CallID] = r.Text
		}
	}
	return out
}

// fillSchema returns a JSON value that satisfies a simple JSON schema: the
// first enum value ("user" when offered, so a next-speaker check hands the
// turn back), the minimum or 0 for numbers, "fake" / false / [] for the rest. Gemini CLI's side requests
// ask for JSON of this kind.
func fillSchema(schema json.RawMessage) string {
	var s map[string]any
	if json.Unmarshal(schema, &s) != nil {
		return "{}"
	}
	b, _ := json.Marshal(fill(s))
	return string(b)
}

func fill(s map[string]any) any {
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		for _, e := range enum {
			if e == "user" {
				return e
			}
		}
		return enum[0]
	}
	typ, _ := s["type"].(string)
	switch strings.ToLower(typ) {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for k, v := range props {
			if ps, ok := v.(map[string]any); ok {
				out[k] = fill(ps)
			}
		}
		return out
	case "array":
		return []any{}
	case "boolean":
		return false
	case "number", "integer":
		if min, ok := s["minimum"].(float64); ok {
			return min
		}
		return 0
	default:
		return "fake"
	}
}

// WorkCommand is the command the Work and Remark scenarios run.
const WorkCommand = "echo fakemodel work"

// shellTool finds the agent's tool that runs a command, and its arguments
// for WorkCommand: Claude Code's Bash, Gemini CLI's and Qwen Code's
// run_shell_command, Codex's shell or exec_command, pi's bash.
func shellTool(tools []Tool) (Tool, any, bool) {
	for _, t := range tools {
		switch t.FullName() {
		case "Bash":
			return t, map[string]string{"command": WorkCommand, "description": "Do the work"}, true
		case "run_shell_command", "bash":
			return t, map[string]string{"command": WorkCommand}, true
		case "shell":
			return t, map[string]any{"command": []string{"bash", "-lc", WorkCommand}}, true
		case "exec_command":
			return t, map[string]string{"cmd": WorkCommand}, true
		}
	}
	return Tool{}, nil, false
}

// lastCalled reports whether the model's last call in msgs was of t.
func lastCalled(msgs []Msg, t Tool) bool {
	cs := calls(msgs)
	return len(cs) > 0 && sameTool(cs[len(cs)-1].Name, t)
}
