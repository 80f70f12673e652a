package fakemodel

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// The request bodies below are cut-down versions of what the real agents
// sent in the by-hand runs (docs/agents.md, "The agent table"): the same
// fields and shapes, with tool descriptions and most tools left out.

const prompt = "Build csvkit-lite: plan it as a todo list and work through it."

// Claude Code 2.1.197 by default: TaskCreate/TaskUpdate, no TodoWrite.
const claudeTasksFirst = `{"model":"claude-opus-4-8","stream":true,
 "system":[{"type":"text","text":"You are Claude Code"}],
 "tools":[{"name":"Bash","input_schema":{}},{"name":"TaskCreate","input_schema":{}},{"name":"TaskUpdate","input_schema":{}}],
 "messages":[{"role":"user","content":[{"type":"text","text":"<system-reminder>context</system-reminder>"},{"type":"text","text":"` + prompt + `"}]}]}`

// The same after the creation: results carry the ids Claude Code chose.
const claudeTasksCreated = `{"model":"claude-opus-4-8","stream":true,
 "tools":[{"name":"Bash","input_schema":{}},{"name":"TaskCreate","input_schema":{}},{"name":"TaskUpdate","input_schema":{}}],
 "messages":[{"role":"user","content":"` + prompt + `"},
  {"role":"assistant","content":[{"type":"text","text":"I'll break this work into a todo list first."},
   {"type":"tool_use","id":"t1","name":"TaskCreate","input":{"subject":"a"}},{"type":"tool_use","id":"t2","name":"TaskCreate","input":{"subject":"b"}},{"type":"tool_use","id":"t3","name":"TaskCreate","input":{"subject":"c"}}]},
  {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Task #7 created successfully: a"},{"type":"tool_result","tool_use_id":"t2","content":"Task #8 created successfully: b"},{"type":"tool_result","tool_use_id":"t3","content":[{"type":"text","text":"Task #9 created successfully: c"}]}]}]}`

// Claude Code 2.1.328 (claude-2.1.328-deferred): the Task tools and
// todosh's MCP tools only listed in a system message, for ToolSearch.
const claudeDeferred = `{"model":"claude-opus-5-5","stream":true,
 "tools":[{"name":"Bash","input_schema":{}},{"name":"ToolSearch","input_schema":{}},{"name":"DeferredToolPlaceholder","input_schema":{},"defer_loading":true}],
 "messages":[{"role":"user","content":"` + prompt + `"},
  {"role":"system","content":"The following deferred tools are now available via ToolSearch:\nTaskCreate\nTaskGet\nTaskUpdate\nmcp__todosh__todo_write\n"}]}`

// claude-agent-acp 0.23.1 (Claude Code 2.1.83 inside): TodoWrite, after the
// lazy ending and a Stop hook's block.
const claudeTodoWriteStopHook = `{"model":"claude-sonnet-4-6","stream":true,
 "tools":[{"name":"Bash","input_schema":{}},{"name":"TodoWrite","input_schema":{}}],
 "messages":[{"role":"user","content":"` + prompt + `"},
  {"role":"assistant","content":[{"type":"tool_use","id":"a","name":"TodoWrite","input":{"todos":[{"content":"x","status":"completed"},{"content":"y","status":"in_progress"},{"content":"z","status":"pending"}]}}]},
  {"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"Todos have been modified successfully."}]},
  {"role":"assistant","content":[{"type":"text","text":"I've set up the project skeleton and started on the parser. I'll stop here for now."}]},
  {"role":"user","content":"Stop hook feedback:\n2 todos are still open"}]}`

// Claude Code's side requests (titles and the like) offer no tools.
const claudeTitle = `{"model":"claude-haiku-4-5","system":"Generate a short title","messages":[{"role":"user","content":"` + prompt + `"}]}`

// Codex 0.169.0 with update_plan enabled; its context comes as user messages.
const codexFirst = `{"model":"gpt-5.5","stream":true,"instructions":"You are Codex",
 "tools":[{"type":"function","name":"exec_command","parameters":{}},{"type":"function","name":"update_plan","parameters":{}},{"type":"custom","name":"apply_patch"}],
 "input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>"}]},
  {"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>...</environment_context>"}]},
  {"type":"message","role":"user","content":[{"type":"input_text","text":"` + prompt + `"}]}]}`

// Codex with todosh's MCP server and no update_plan: MCP tools come in a
// namespace tool (acp/codex/README.md).
const codexNamespace = `{"model":"gpt-5.5","stream":true,
 "tools":[{"type":"function","name":"exec_command","parameters":{}},
  {"type":"namespace","name":"mcp__todosh","description":"Tools in the mcp__todosh namespace.","tools":[{"type":"function","name":"todo_read","parameters":{}},{"type":"function","name":"todo_write","parameters":{}}]}],
 "input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"` + prompt + `"}]}]}`

// Codex 0.169.0 defers MCP tools: a hosted tool_search tool, and the
// namespaces named in a developer message.
const codexDeferredMCP = `{"model":"gpt-5.5","stream":true,
 "tools":[{"type":"function","name":"exec_command","parameters":{}},{"type":"tool_search","execution":"client","parameters":{}},{"type":"web_search"}],
 "input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"<tools>\nDeferred tool namespaces:\n- mcp__todosh: todosh keeps this session's todo list</tools>"}]},
  {"type":"message","role":"user","content":[{"type":"input_text","text":"` + prompt + `"}]}]}`

// The same after the search: the output brings the namespace's tools.
const codexSearched = `{"model":"gpt-5.5","stream":true,
 "tools":[{"type":"function","name":"exec_command","parameters":{}},{"type":"tool_search","execution":"client","parameters":{}}],
 "input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"` + prompt + `"}]},
  {"type":"tool_search_call","call_id":"s1","execution":"client","status":"completed","arguments":{"query":"todo","limit":8}},
  {"type":"tool_search_output","call_id":"s1","execution":"client","status":"completed","tools":[{"type":"namespace","name":"mcp__todosh","tools":[{"type":"function","name":"todo_write","parameters":{}}]}]}]}`

// Codex after its plan: the reply's message and call are separate items.
const codexPlanned = `{"model":"gpt-5.5","stream":false,
 "tools":[{"type":"function","name":"update_plan","parameters":{}}],
 "input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"` + prompt + `"}]},
  {"type":"message","role":"assistant","content":[{"type":"output_text","text":"I'll break this work into a todo list first."}]},
  {"type":"function_call","name":"update_plan","arguments":"{\"plan\":[{\"step\":\"x\",\"status\":\"in_progress\"},{\"step\":\"y\",\"status\":\"pending\"},{\"step\":\"z\",\"status\":\"pending\"}]}","call_id":"c1"},
  {"type":"function_call_output","call_id":"c1","output":"Plan updated"}]}`

// Qwen Code 0.15.10: its own todo_write requires an id per item, and its
// history starts with a text-only acknowledgement that is not a turn end.
const qwenFirst = `{"model":"fake-model","stream":true,
 "tools":[{"type":"function","function":{"name":"run_shell_command","parameters":{}}},
  {"type":"function","function":{"name":"todo_write","parameters":{"type":"object","properties":{"todos":{"type":"array","items":{"type":"object","required":["content","status","id"]}}}}}}],
 "messages":[{"role":"system","content":"You are Qwen Code"},
  {"role":"user","content":[{"type":"text","text":"This is the Qwen Code. We are setting up the context for our chat."}]},
  {"role":"assistant","content":"Got it. Thanks for the context!"},
  {"role":"user","content":[{"type":"text","text":"` + prompt + `"}]}]}`

// todosh's own openai backend after a lazy ending and its continuation prompt.
const todoshContinued = `{"model":"gpt-4o","stream":true,
 "tools":[{"type":"function","function":{"name":"todo_write","parameters":{"type":"object","properties":{"todos":{"type":"array","items":{"type":"object","required":["content","status"]}}}}}},
  {"type":"function","function":{"name":"todo_tick","parameters":{}}}],
 "messages":[{"role":"system","content":"You are todosh"},{"role":"user","content":"` + prompt + `"},
  {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"todo_write","arguments":"{\"todos\":[{\"content\":\"x\",\"status\":\"completed\"},{\"content\":\"y\",\"status\":\"in_progress\"},{\"content\":\"z\",\"status\":\"pending\"}]}"}}]},
  {"role":"tool","tool_call_id":"c1","content":"ok"},
  {"role":"assistant","content":"I've set up the project skeleton and started on the parser. I'll stop here for now."},
  {"role":"user","content":"Your todo list still has 2 open items. Continue."}]}`

// pi 0.73.1 with examples/extensions/todo.ts.
const piFirst = `{"model":"fake-model","stream":true,
 "tools":[{"type":"function","function":{"name":"bash","parameters":{}}},{"type":"function","function":{"name":"todo","parameters":{}}}],
 "messages":[{"role":"system","content":"pi"},{"role":"user","content":[{"type":"text","text":"` + prompt + `"}]}]}`

// Gemini CLI 0.61.0 on gemini-2.5-pro, after two write_todos calls.
const geminiAllDone = `{"contents":[{"role":"user","parts":[{"text":"<session_context>...</session_context>"},{"text":"` + prompt + `"}]},
  {"role":"model","parts":[{"text":"I'll break this work into a todo list first."},{"functionCall":{"name":"write_todos","args":{"todos":[{"description":"x","status":"in_progress"}]}}}]},
  {"role":"user","parts":[{"functionResponse":{"name":"write_todos","response":{"output":"ok"}}}]},
  {"role":"model","parts":[{"functionCall":{"name":"write_todos","args":{"todos":[{"description":"x","status":"completed"},{"description":"y","status":"completed"},{"description":"z","status":"completed"}]}}}]},
  {"role":"user","parts":[{"functionResponse":{"name":"write_todos","response":{"output":"ok"}}}]}],
 "tools":[{"functionDeclarations":[{"name":"run_shell_command","parametersJsonSchema":{}},{"name":"write_todos","parametersJsonSchema":{}}]}]}`

// Gemini CLI's router asks for JSON with a schema (complexity_score >= 1).
const geminiRouter = `{"contents":[{"role":"user","parts":[{"text":"` + prompt + `"}]}],
 "generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object","properties":{"complexity_reasoning":{"type":"string"},"complexity_score":{"type":"integer","minimum":1,"maximum":100}}}}}`

func TestDecideFromRequests(t *testing.T) {
	tests := []struct {
		name, path, body string
		sc               Scenario
		kind             string
		calls            string // "name args" per call, "; "-joined; args only if short
		text             string
	}{
		{"claude tasks create", "/v1/messages", claudeTasksFirst, Lazy, "create", "TaskCreate; TaskCreate; TaskCreate", TextIntro},
		{"claude tasks complete uses ids", "/v1/messages", claudeTasksCreated, Lazy, "complete",
			`TaskUpdate {"status":"completed","taskId":"7"}; TaskUpdate {"status":"in_progress","taskId":"8"}`, ""},
		{"claude deferred searches", "/v1/messages", claudeDeferred, Lazy, "search", `ToolSearch {"query":"select:TaskCreate,TaskUpdate"}`, ""},
		{"claude stop hook brings one more", "/v1/messages", claudeTodoWriteStopHook, Lazy, "complete", "TodoWrite", ""},
		{"claude stop hook, stuck", "/v1/messages", claudeTodoWriteStopHook, Stuck, "end", "", TextStuck},
		{"claude side request", "/v1/messages?beta=true", claudeTitle, Lazy, "side", "", TextSide},
		{"codex update_plan", "/v1/responses", codexFirst, Lazy, "create", "update_plan", TextIntro},
		{"codex mcp namespace", "/v1/responses", codexNamespace, Lazy, "create", "mcp__todosh__todo_write", TextIntro},
		{"codex searches deferred MCP tools", "/v1/responses", codexDeferredMCP, Lazy, "search", `tool_search {"limit":8,"query":"todo list todo_write"}`, ""},
		{"codex uses the tools found", "/v1/responses", codexSearched, Lazy, "create", "mcp__todosh__todo_write", TextIntro},
		{"codex separate items are one reply", "/v1/responses", codexPlanned, Lazy, "complete", "update_plan", ""},
		{"codex done scenario", "/v1/responses", codexPlanned, Done, "complete", "update_plan", ""},
		{"qwen ids, acknowledgement is no turn end", "/v1/chat/completions", qwenFirst, Lazy, "create", "todo_write", TextIntro},
		{"todosh continuation", "/v1/chat/completions", todoshContinued, Lazy, "complete", "todo_write", ""},
		{"pi todo extension", "/v1/chat/completions", piFirst, Lazy, "create", "todo; todo; todo", TextIntro},
		{"gemini all done", "/v1beta/models/gemini-2.5-pro:streamGenerateContent", geminiAllDone, Lazy, "end", "", TextAllDone},
		{"gemini router json", "/v1beta/models/gemini-3.5-flash-lite:generateContent", geminiRouter, Lazy, "side", "",
			`{"complexity_reasoning":"fake","complexity_score":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, ok := routeFor(strings.SplitN(tt.path, "?", 2)[0])
			if !ok {
				t.Fatalf("no route for %s", tt.path)
			}
			req, err := rt.parse([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			a := Decide(tt.sc, req)
			if a.Kind != tt.kind || a.Text != tt.text || describe(a.Calls) != tt.calls {
				t.Errorf("got %s %q [%s]\nwant %s %q [%s]", a.Kind, a.Text, describe(a.Calls), tt.kind, tt.text, tt.calls)
			}
		})
	}
}

// describe renders calls as "name args", or "name" when args are long.
func describe(calls []ActionCall) string {
	var out []string
	for _, c := range calls {
		args, _ := json.Marshal(c.Args)
		if len(args) <= 50 {
			out = append(out, c.Tool.FullName()+" "+string(args))
		} else {
			out = append(out, c.Tool.FullName())
		}
	}
	return strings.Join(out, "; ")
}

func TestDecideListArgs(t *testing.T) {
	req, err := parseChat([]byte(qwenFirst))
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(Decide(Lazy, req).Calls[0].Args)
	if !strings.Contains(string(args), `"id":"3"`) {
		t.Errorf("qwen's todo_write requires ids, got %s", args)
	}
	req, _ = parseChat([]byte(todoshContinued))
	args, _ = json.Marshal(Decide(Lazy, req).Calls[0].Args)
	want := `{"todos":[{"content":"Create project skeleton for csvkit-lite","status":"completed"},` +
		`{"content":"Implement CSV parser with quoted-field support","status":"completed"},` +
		`{"content":"Write unit tests for the parser","status":"in_progress"}]}`
	if string(args) != want {
		t.Errorf("todosh's todo_write after a continuation:\ngot  %s\nwant %s", args, want)
	}
}

// simulate plays a whole session with the tools offered: each turn runs
// until the model ends it, then a nudge (a continuation) starts the next.
// It returns the end text and the number of completed items of each turn.
func simulate(t *testing.T, sc Scenario, tools []Tool, turns int) []string {
	t.Helper()
	msgs := []Msg{{Role: "user", Text: prompt}}
	var out []string
	results := 0
	for turn := 0; turn < turns; turn++ {
		for step := 0; ; step++ {
			if step > 10 {
				t.Fatalf("turn %d does not end", turn)
			}
			req := Request{Tools: tools, Messages: msgs}
			a := Decide(sc, req)
			reply := Msg{Role: "assistant", Text: a.Text}
			var res Msg
			for _, c := range a.Calls {
				args, _ := json.Marshal(c.Args)
				id := fmt.Sprintf("call%d", len(calls(msgs))+len(reply.Calls))
				reply.Calls = append(reply.Calls, Call{ID: id, Name: c.Tool.FullName(), Args: args})
				text := "ok"
				if c.Tool.Name == "TaskCreate" {
					results++
					text = fmt.Sprintf("Task #%d created successfully", results)
				}
				res.Results = append(res.Results, Result{CallID: id, Text: text})
			}
			msgs = append(msgs, reply)
			if len(a.Calls) == 0 {
				fam, set, _ := chooseFamily(withDeferred(req), false)
				_, done := fam.progress(set, msgs)
				out = append(out, fmt.Sprintf("%s (%d)", a.Text, done))
				break
			}
			res.Role = "user"
			msgs = append(msgs, res)
		}
		msgs = append(msgs, Msg{Role: "user", Text: "Stop hook feedback:\nthe list has open items"})
	}
	return out
}

func TestScenariosPerFamily(t *testing.T) {
	toolsets := map[string][]Tool{
		"TodoWrite":   {{Name: "Bash"}, {Name: "TodoWrite"}, {Name: "mcp__todosh__todo_write"}},
		"Tasks":       {{Name: "TaskCreate"}, {Name: "TaskUpdate"}, {Name: "TaskList"}},
		"write_todos": {{Name: "write_todos"}},
		"update_plan": {{Name: "update_plan"}, {Name: "todo_write", Namespace: "mcp__todosh"}},
		"pi todo":     {{Name: "todo"}},
		"mcp prefix":  {{Name: "mcp_todosh_todo_write"}, {Name: "mcp_todosh_todo_read"}, {Name: "todo_write"}},
		"namespace":   {{Name: "todo_write", Namespace: "mcp__todosh"}},
		"plain":       {{Name: "todo_write"}, {Name: "todo_tick"}},
	}
	want := map[Scenario]string{
		Lazy:     TextLazy + " (1) | " + TextOneMore + " (2) | " + TextAllDone + " (3)",
		Stuck:    TextLazy + " (1) | " + TextStuck + " (1) | " + TextStuck + " (1)",
		Question: TextQuestion + " (1) | " + TextOneMore + " (2) | " + TextAllDone + " (3)",
		Done:     TextAllDone + " (3) | " + TextAllDone + " (3) | " + TextAllDone + " (3)",
		Work:     TextLazy + " (1) | " + TextOneMore + " (2) | " + TextAllDone + " (3)",
		Remark:   TextLazy + " (1) | " + TextStuck + " (1) | " + TextStuck + " (1)",
		OneGo:    TextAllDone + " (3) | " + TextAllDone + " (3) | " + TextAllDone + " (3)",
	}
	for name, tools := range toolsets {
		for _, sc := range Scenarios {
			t.Run(name+"/"+string(sc), func(t *testing.T) {
				got := strings.Join(simulate(t, sc, tools, 3), " | ")
				if got != want[sc] {
					t.Errorf("got  %s\nwant %s", got, want[sc])
				}
			})
		}
	}
}

func TestChooseFamilyPreference(t *testing.T) {
	tests := []struct {
		tools []Tool
		want  string
	}{
		{[]Tool{{Name: "todo_write"}, {Name: "update_plan"}, {Name: "TodoWrite"}, {Name: "TaskCreate"}, {Name: "TaskUpdate"}}, "TodoWrite"},
		{[]Tool{{Name: "todo_write"}, {Name: "TaskCreate"}, {Name: "TaskUpdate"}}, "TaskCreate/TaskUpdate"},
		{[]Tool{{Name: "TaskCreate"}, {Name: "write_todos"}}, "write_todos"}, // TaskCreate alone is not enough
		{[]Tool{{Name: "mcp__other__todo_write"}, {Name: "mcp__todosh__todo_write"}}, "todosh MCP todo_write"},
		{[]Tool{{Name: "todo_write"}, {Name: "todo_read"}}, "todo_write"},
		{[]Tool{{Name: "Bash"}, {Name: "other_todo_writer"}}, ""},
	}
	for _, tt := range tests {
		fam, set, ok := chooseFamily(tt.tools, false)
		if !ok {
			fam.name = ""
		}
		if fam.name != tt.want {
			t.Errorf("%v: got %q, want %q", tt.tools, fam.name, tt.want)
		}
		if fam.name == "todosh MCP todo_write" && set[0].Name != "mcp__todosh__todo_write" {
			t.Errorf("MCP tools of a server named todosh come first, got %s", set[0].Name)
		}
	}
}

func TestPreferMCP(t *testing.T) {
	tools := []Tool{{Name: "TodoWrite"}, {Name: "update_plan"}, {Name: "mcp__todosh__todo_write"}, {Name: "todo_write", Namespace: "mcp__x"}}
	if fam, set, _ := chooseFamily(tools, true); fam.name != "todosh MCP todo_write" || set[0].Name != "mcp__todosh__todo_write" {
		t.Errorf("preferMCP chose %s %v", fam.name, set)
	}
	if fam, _, _ := chooseFamily(tools[:2], true); fam.name != "TodoWrite" {
		t.Errorf("preferMCP without MCP tools chose %s, want TodoWrite", fam.name)
	}
	// Codex defers MCP tools: with PreferMCP the model searches even though update_plan is there.
	req, _ := parseResponses([]byte(strings.Replace(codexDeferredMCP, `{"type":"web_search"}`, `{"type":"function","name":"update_plan","parameters":{}}`, 1)))
	if a := (Script{Scenario: Lazy}).Decide(req); a.Kind != "create" || a.Calls[0].Tool.Name != "update_plan" {
		t.Errorf("without PreferMCP: %s %s", a.Kind, describe(a.Calls))
	}
	if a := (Script{Scenario: Lazy, PreferMCP: true}).Decide(req); a.Kind != "search" || a.Calls[0].Tool.Name != "tool_search" {
		t.Errorf("with PreferMCP: %s %s", a.Kind, describe(a.Calls))
	}
	req, _ = parseResponses([]byte(strings.Replace(codexSearched, `{"type":"tool_search","execution":"client","parameters":{}}`,
		`{"type":"tool_search","execution":"client","parameters":{}},{"type":"function","name":"update_plan","parameters":{}}`, 1)))
	if a := (Script{Scenario: Lazy, PreferMCP: true}).Decide(req); a.Kind != "create" || a.Calls[0].Tool.FullName() != "mcp__todosh__todo_write" {
		t.Errorf("with PreferMCP after the search: %s %s", a.Kind, describe(a.Calls))
	}
}

func TestPromptAsksForMCP(t *testing.T) {
	ask := `Keep your todo list with the tools of the MCP server \"todosh\", not your own todo tool: todo_write (the whole list).\n\n`
	body := strings.Replace(geminiAllDone, `{"text":"`+prompt+`"}]},`, `{"text":"`+ask+prompt+`"}]},`, 1)
	body = strings.Replace(body, `{"name":"write_todos","parametersJsonSchema":{}}`, `{"name":"write_todos","parametersJsonSchema":{}},{"name":"mcp_todosh_todo_write","parametersJsonSchema":{}}`, 1)
	req, err := parseGemini("/v1beta/models/m:generateContent", false)([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	// The earlier write_todos calls do not count for the MCP tool's list: it starts over.
	if a := Decide(Lazy, req); a.Kind != "create" || a.Calls[0].Tool.Name != "mcp_todosh_todo_write" {
		t.Errorf("got %s %s", a.Kind, describe(a.Calls))
	}
}

func TestParseScenario(t *testing.T) {
	for _, sc := range Scenarios {
		if got, err := ParseScenario(string(sc)); err != nil || got != sc {
			t.Errorf("ParseScenario(%q) = %q, %v", sc, got, err)
		}
	}
	if _, err := ParseScenario("busy"); err == nil {
		t.Error("ParseScenario(busy) gave no error")
	}
}

// Work runs the agent's shell before each completion; Remark re-marks the
// first item in a later turn: in progress, then completed again.
func TestWorkAndRemark(t *testing.T) {
	tools := []Tool{{Name: "Bash"}, {Name: "TodoWrite"}}
	msgs := []Msg{{Role: "user", Text: "build it"}}
	var kinds []string
	for range 12 {
		a := Decide(Remark, Request{Tools: tools, Messages: msgs})
		kinds = append(kinds, a.Kind)
		var cs []Call
		for i, c := range a.Calls {
			args, _ := json.Marshal(c.Args)
			cs = append(cs, Call{ID: fmt.Sprint(len(kinds), i), Name: c.Tool.FullName(), Args: args})
		}
		msgs = append(msgs, Msg{Role: "assistant", Text: a.Text, Calls: cs})
		if len(cs) == 0 {
			if len(kinds) > 6 {
				break
			}
			msgs = append(msgs, Msg{Role: "user", Text: "You stopped, but the todo list still has 2 open items"})
		}
	}
	want := "create work complete end remark complete end"
	if got := strings.Join(kinds[:7], " "); got != want {
		t.Errorf("kinds %s, want %s", got, want)
	}
}
