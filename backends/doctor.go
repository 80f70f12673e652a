package backends

import (
	"strconv"
	"strings"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/clis"
	"github.com/todosh/todosh/agent/todotools"
)

// Check is what `todosh doctor` says of one agent at its version: which
// todo tools it will have, whether todosh's MCP tools reach it, and what
// the person should know or fix. The rules come from the versions checked
// by hand (docs/agents.md).
type Check struct {
	// TodoTools names the agent's own todo tools as todosh will find them.
	TodoTools string
	// MCP says how todosh's MCP tools reach it, "" when they do not.
	MCP string
	// Notes are remarks; Problems keep the list from being kept, each
	// with its fix.
	Notes    []string
	Problems []Problem
}

// Problem is one thing in the way, and what to do about it.
type Problem struct {
	What string `json:"what"`
	Fix  string `json:"fix"`
}

// claudeHidesTodos is the first Claude Code that offers its newer models no
// todo tool without CLAUDE_CODE_ENABLE_TODO_TOOLS=1, and defers them
// behind ToolSearch with it.
const claudeHidesTodos = "2.1.233"

// claudeVar is the variable's name.
var claudeVar, _, _ = strings.Cut(clis.ClaudeEnv[0], "=")

// personClaudeVar is a problem when the person set the Claude variable to
// something other than what todosh would.
func personClaudeVar(getenv func(string) string, mcp string) []string {
	if v := getenv(claudeVar); v != "" && v != "1" {
		return []string{claudeVar + "=" + v + " in your environment hides TodoWrite and the Task tools; the list is kept with " + mcp +
			" only (unset it: todosh sets it to 1)"}
	}
	return nil
}

func checkClaude(v string, getenv func(string) string) Check {
	mcp := todotools.SpellClaude.Of(todotools.Write)
	c := Check{TodoTools: "TaskCreate, TaskUpdate (TodoWrite with CLAUDE_CODE_ENABLE_TASKS=0)",
		MCP: mcp + " and the rest, given with --mcp-config and allowed with --allowedTools"}
	if v == "" || versionAtLeast(v, claudeHidesTodos) {
		c.TodoTools = "TaskCreate, TaskUpdate deferred behind ToolSearch, with " + claudeVar + "=1 (todosh sets it)"
		c.MCP += ", deferred behind ToolSearch"
		c.Notes = personClaudeVar(getenv, mcp)
	}
	return c
}

func checkCodex(v string, _ func(string) string) Check {
	c := Check{TodoTools: "update_plan (todosh enables tools.update_plan)",
		MCP: "namespace mcp__" + agent.MCPName + ", approved with default_tools_approval_mode"}
	if v == "" || versionAtLeast(v, "0.169.0") {
		c.MCP += ", deferred behind tool_search"
	}
	return c
}

func checkGemini(string, func(string) string) Check {
	return Check{TodoTools: "write_todos, on gemini-2.x models only",
		Notes: []string{"the default model (auto) may be offered no write_todos: pass --agent-arg=-m --agent-arg=gemini-2.5-pro"}}
}

// qwenHidesTodos is the first Qwen Code known to offer todo_write only
// when its settings turn it on: 0.24.4 does, 0.15.10 offered it always
// (the versions between were not checked).
const qwenHidesTodos = "0.24.0"

// QwenTodoSetting is the settings member that turns Qwen Code's todo_write
// on since qwenHidesTodos.
const QwenTodoSetting = `"tools": {"todoWrite": {"enabled": true}}`

func checkQwen(v string, _ func(string) string) Check {
	c := Check{TodoTools: "todo_write"}
	if v == "" || versionAtLeast(v, qwenHidesTodos) {
		c.TodoTools = "todo_write, only when its settings turn it on"
		c.Notes = []string{"Qwen Code " + qwenHidesTodos[:4] + " and later offer no todo_write (so no list is kept) without " +
			QwenTodoSetting + " in ~/.qwen/settings.json or the project's .qwen/settings.json"}
	}
	return c
}

func checkClaudeACP(_ string, getenv func(string) string) Check {
	mcp := todotools.SpellClaude.Of(todotools.Write)
	return Check{TodoTools: "TodoWrite or the Task tools, sent as plan updates", MCP: mcp + " in session/new, approved by todosh",
		Notes: personClaudeVar(getenv, mcp)}
}

func checkCodexACP(string, func(string) string) Check {
	return Check{TodoTools: "update_plan, sent as plan updates", MCP: todotools.SpellClaude.Of(todotools.Write) + " in session/new, approved for the session by todosh"}
}

func checkGeminiACP(string, func(string) string) Check {
	return Check{TodoTools: "write_todos, which does not reach todosh over ACP",
		MCP: todotools.SpellGemini.Of(todotools.Write) + " in session/new (todosh asks Gemini to use it), approved by todosh"}
}

// versionAtLeast reports whether dotted version v is at least min; a
// version that does not parse counts as new.
func versionAtLeast(v, min string) bool {
	a, okA := parseVersion(v)
	b, _ := parseVersion(min)
	if !okA {
		return true
	}
	for i := range max(len(a), len(b)) {
		x, y := at(a, i), at(b, i)
		if x != y {
			return x > y
		}
	}
	return true
}

func at(v []int, i int) int {
	if i < len(v) {
		return v[i]
	}
	return 0
}

// parseVersion reads "2.1.332" (a leading v, and anything from the first
// '-' or ' ' on, ignored).
func parseVersion(v string) ([]int, bool) {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	if i := strings.IndexAny(v, "- +"); i >= 0 {
		v = v[:i]
	}
	var out []int
	for _, p := range strings.Split(v, ".") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, len(out) > 0
}
