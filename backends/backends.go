// Package backends is the table of agent backends: each backend is one row
// (its name, how it starts, its todo tool names, what it can do), and main
// (flags, --help, errors), the continuation prompt and /help read the rows
// instead of comparing names. A new backend is a new row.
// Its place in the whole is ARCHITECTURE.md §4.
package backends

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/acpagent"
	"github.com/todosh/todosh/agent/clis"
	"github.com/todosh/todosh/agent/modelapi"
	"github.com/todosh/todosh/agent/todotools"
	"github.com/todosh/todosh/continuation"
)

// Caps is what a backend's agent can do beyond updating the list.
type Caps struct {
	// Tick and Pause: todosh's todo_tick and todo_pause reach the agent
	// (model API, or todosh's MCP server).
	Tick, Pause bool
	// Resume: the agent's own conversation is resumed by todosh --resume.
	Resume bool
	// MCP: the agent is handed todosh's MCP server.
	MCP bool
	// Usage: the agent reports the tokens it spends (agent.EventUsage), so
	// --budget-tokens can hold it; without, only --budget-time can.
	Usage bool
}

// Options are the agent flags, checked against the chosen row.
type Options struct {
	Bin            string   // --agent-bin
	Args           []string // --agent-arg
	BaseURL, Model string   // --base-url, --model
	// ConnectTimeout and IdleTimeout are --connect-timeout and
	// --idle-timeout (the model API).
	ConnectTimeout, IdleTimeout time.Duration
	// IdleLimit is --idle-limit (the wrapped CLIs).
	IdleLimit       time.Duration
	RequireEvidence bool   // --require-evidence
	Approve         string // --approve
	Getenv          func(string) string
	// Interactive is a shell in a terminal with no -c, where the default
	// agent is the demo, so `todosh` with nothing set shows the whole loop.
	Interactive bool
}

// Defaults of the agent flags, so main's flag table takes them from the
// backend table rather than from the backends' own packages.
const (
	DefaultBaseURL        = modelapi.DefaultBaseURL
	DefaultConnectTimeout = modelapi.DefaultConnectTimeout
	DefaultIdleTimeout    = modelapi.DefaultIdleTimeout
	DefaultIdleLimit      = clis.DefaultIdleLimit
)

// Factory builds the agent once the session is open.
type Factory func(agent.Session) (agent.Agent, error)

// Flag names an agent flag a row accepts, for the check that a flag goes
// with the chosen agent.
type Flag string

// The agent flags that only some rows accept.
const (
	FlagBin      Flag = "--agent-bin"
	FlagArg      Flag = "--agent-arg"
	FlagBaseURL  Flag = "--base-url"
	FlagModel    Flag = "--model"
	FlagConnect  Flag = "--connect-timeout"
	FlagIdle     Flag = "--idle-timeout"
	FlagIdleCLI  Flag = "--idle-limit"
	FlagEvidence Flag = "--require-evidence"
	FlagApprove  Flag = "--approve"
	// FlagBudgetTokens goes with every row whose agent reports usage
	// (Caps.Usage).
	FlagBudgetTokens Flag = "--budget-tokens"
)

// Backend is one row of the table.
type Backend struct {
	// Name is what --agent takes ("openai", "claude", "acp:codex"). When
	// Param is set the name takes a parameter after a colon
	// ("script:FILE").
	Name  string
	Param string
	// Summary is one line for --help and /help.
	Summary string
	// TodoTool is the agent's own tool that updates the list, named in
	// continuation prompts; "" means the agent tells (agent.Agent.TodoTool,
	// for a CLI whose tool changes with what it calls).
	TodoTool string
	// ToolSpelling is how the agent names the tools of todosh's MCP server
	// (mcp__todosh__todo_write), so prompts name them as it sees them.
	ToolSpelling todotools.Spelling
	// MCPLoad is how the agent loads todosh's MCP tools when it defers
	// them whatever else it reports (Codex's tool_search); the zero Loader
	// when it offers them directly.
	MCPLoad continuation.Loader
	Caps    Caps
	// Flags are the agent flags beyond --agent this row accepts.
	Flags []Flag
	// ACP: the row's agent speaks the Agent Client Protocol (acpagent), so
	// `todosh acp` can ask its initialize what it takes (acpserve).
	ACP bool
	// Start checks the options and returns what builds the agent; param
	// is the part after the colon. A nil Factory means no agent.
	Start func(param string, o Options) (Factory, error)
	// Bin is the executable the row starts when --agent-bin is not given,
	// "" for todosh's own backends; Package is the npm package it comes
	// from; VersionFlag prints its version and exits ("" when running it
	// could wait on stdin, as an ACP adapter does). For `todosh doctor`.
	Bin, Package, VersionFlag string
	// VersionLine is the first line VersionFlag prints, with %s for the
	// version number ("%s (Claude Code)"); doctor takes an executable
	// whose line has another shape for another program, not this agent
	// (GNU true --version prints "true (GNU coreutils) 9.1").
	VersionLine string
	// Check is what `todosh doctor` says of the agent at version v, by
	// the known version rules (doctor.go); nil when nothing.
	Check func(v string, getenv func(string) string) Check
}

// Table is every backend, in the order --help lists them: todosh's own
// model backends, the wrapped CLIs (one row for each of clis.Kinds), the
// ACP agents.
var Table = slices.Concat([]Backend{
	{Name: "none", Summary: "no agent: slash commands only",
		Start: func(string, Options) (Factory, error) { return nil, nil }},
	{Name: "demo", Summary: "a scripted model that shows the whole loop, no network",
		TodoTool: todotools.Write, Caps: Caps{Tick: true, Pause: true},
		Start: func(string, Options) (Factory, error) {
			return func(s agent.Session) (agent.Agent, error) { return modelapi.NewDemo(s) }, nil
		}},
	{Name: "openai", Summary: "an OpenAI-compatible chat completions API (Ollama, llama.cpp, vLLM, OpenRouter, OpenAI)",
		TodoTool: todotools.Write, Caps: Caps{Tick: true, Pause: true, Usage: true},
		Flags: []Flag{FlagBaseURL, FlagModel, FlagConnect, FlagIdle, FlagEvidence}, Start: startOpenAI},
	{Name: "script", Param: "FILE", Summary: "a model played from FILE (tests)",
		TodoTool: todotools.Write, Caps: Caps{Tick: true, Pause: true},
		Flags: []Flag{FlagEvidence}, Start: startScript},
}, cliRows(), []Backend{
	acpRow(acpPreset{name: "acp", askForTools: true, summary: "any ACP agent: --agent acp -- CMD ARGS... (or --agent-bin CMD --agent-arg ARG)"}),
	// claude-agent-acp answers each prompt with its usage; codex-acp 0.16
	// sends none.
	acpRow(acpPreset{name: "acp:claude", bin: "claude-agent-acp", pkg: "@zed-industries/claude-agent-acp", check: checkClaudeACP,
		spelling: todotools.SpellClaude, env: clis.ClaudeEnv, usage: true,
		summary: "Claude Code over ACP (npm @zed-industries/claude-agent-acp), one process per run"}),
	acpRow(acpPreset{name: "acp:codex", bin: "codex-acp", pkg: "@zed-industries/codex-acp", check: checkCodexACP, spelling: todotools.SpellClaude,
		summary: "Codex over ACP (npm @zed-industries/codex-acp), one process per run"}),
	// Gemini's own write_todos reaches the client only as a title ("Set 3
	// todo(s)"), so the first prompt asks it to keep todosh's list, and
	// its chat recording is read for the items when it does not.
	acpRow(acpPreset{name: "acp:gemini", bin: "gemini", args: []string{"--acp"}, pkg: "@google/gemini-cli", versionFlag: "--version", check: checkGeminiACP,
		spelling: todotools.SpellGemini, askForTools: true, savedList: acpagent.GeminiSavedList, env: clis.GeminiEnv,
		summary: "Gemini CLI over ACP (gemini --acp), one process per run"}),
})

// cliExtra is what this table adds to a wrapped CLI of clis's table: its
// name for people, and, for a CLI that takes an MCP configuration on its
// command line, the arguments that hand it todosh's MCP server.
type cliExtra struct {
	title string
	mcp   func(*agent.MCPServer) []string
	// spelling is how the CLI names the MCP server's tools; load is how
	// it loads them when it defers them (the row's MCPLoad).
	spelling todotools.Spelling
	load     continuation.Loader
	// pkg is its npm package; check its doctor rules; versionLine the
	// row's VersionLine, "%s" (the bare number) when empty.
	pkg, versionLine string
	check            func(v string, getenv func(string) string) Check
}

// cliExtras are the CLIs this table knows more of; any other CLI of
// clis.Kinds gets a row with its name and no MCP server.
var cliExtras = map[string]cliExtra{
	"claude": {title: "Claude Code", mcp: claudeMCP, spelling: todotools.SpellClaude, pkg: "@anthropic-ai/claude-code", check: checkClaude,
		versionLine: "%s (Claude Code)"},
	// Codex 0.169 offers MCP tools only behind its hosted tool_search: its
	// request lists "Deferred tool namespaces: - mcp__todosh: ...", and a
	// search for the server's name loads them all (docs/agents.md).
	"codex": {title: "Codex CLI", mcp: codexMCP, spelling: todotools.SpellClaude, pkg: "@openai/codex", check: checkCodex, versionLine: "codex-cli %s",
		load: continuation.Loader{Tool: "tool_search", Query: agent.MCPName, Namespace: "mcp__" + agent.MCPName}},
	"gemini": {title: "Gemini CLI", pkg: "@google/gemini-cli", check: checkGemini},
	"qwen":   {title: "Qwen Code", pkg: "@qwen-code/qwen-code", check: checkQwen},
	"pi":     {title: "pi", pkg: "@mariozechner/pi-coding-agent"},
}

// cliRows are the rows of the wrapped CLIs: clis's own table knows their
// wire formats and what they can do; this table starts them, and hands
// todosh's MCP server to those that take one on the command line, which
// then tick subtasks and pause with todosh's tools.
func cliRows() []Backend {
	var rows []Backend
	for _, name := range clis.Kinds {
		x := cliExtras[name]
		if x.title == "" {
			x.title = name
		}
		if x.versionLine == "" {
			x.versionLine = bareVersion
		}
		c, _ := clis.Capabilities(name)
		caps := Caps{Tick: c.Tick, Pause: c.Pause, Resume: c.Resume, Usage: c.Usage}
		flags := []Flag{FlagBin, FlagArg, FlagIdleCLI}
		if x.mcp != nil {
			caps.Tick, caps.Pause, caps.MCP = true, true, true
			flags = append(flags, FlagEvidence)
		}
		rows = append(rows, Backend{Name: name, Summary: x.title + ", one headless process per turn", ToolSpelling: x.spelling, MCPLoad: x.load, Caps: caps, Flags: flags,
			Bin: name, Package: x.pkg, VersionFlag: "--version", VersionLine: x.versionLine, Check: x.check,
			Start: func(_ string, o Options) (Factory, error) {
				if o.IdleLimit < 0 {
					return nil, fmt.Errorf("--idle-limit %s is negative (0 turns it off)", o.IdleLimit)
				}
				self := ""
				if x.mcp != nil {
					var err error
					if self, err = os.Executable(); err != nil {
						return nil, fmt.Errorf("--agent %s: find todosh's own executable for its MCP server: %w", name, err)
					}
				}
				return func(s agent.Session) (agent.Agent, error) {
					cfg := clis.Config{Bin: o.Bin, Args: o.Args, IdleLimit: o.IdleLimit, Env: sessionEnv(s.ID), Dir: s.Cwd}
					if x.mcp != nil {
						cfg.Args = append(x.mcp(MCPServer(self, s, o.RequireEvidence)), o.Args...)
						cfg.MCPTools = x.spelling.All()
					}
					return clis.New(name, cfg, s)
				}, nil
			}})
	}
	return rows
}

// claudeMCP hands the server to Claude Code (--mcp-config takes the JSON
// itself) and allows its tools, which a headless claude -p would
// otherwise refuse for want of someone to ask: they touch nothing but the
// list.
func claudeMCP(m *agent.MCPServer) []string {
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{m.Name: map[string]any{
		"command": m.Command, "args": m.Args, "env": m.Env}}})
	if err != nil {
		panic(err) // strings only
	}
	return []string{"--mcp-config", string(cfg), "--allowedTools", strings.Join(todotools.SpellClaude.All(), ",")}
}

// codexMCP hands the server to Codex as -c overrides of its config, its
// tools approved without asking; the values are TOML, whose basic strings, arrays and inline tables JSON's
// encoding of strings also writes.
func codexMCP(m *agent.MCPServer) []string {
	q := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	args := make([]string, len(m.Args))
	for i, a := range m.Args {
		args[i] = q(a)
	}
	env := make([]string, 0, len(m.Env))
	for k, v := range m.Env {
		env = append(env, k+"="+q(v))
	}
	slices.Sort(env)
	key := "mcp_servers." + m.Name
	return []string{
		"-c", key + ".command=" + q(m.Command),
		"-c", key + ".args=[" + strings.Join(args, ",") + "]",
		"-c", key + ".env={" + strings.Join(env, ",") + "}",
		// codex exec cannot ask the person; its tools touch nothing but
		// the list (Codex 0.137 and later know the key).
		"-c", key + `.default_tools_approval_mode="approve"`,
	}
}

// acpPreset is what an ACP row knows of its agent.
type acpPreset struct {
	name, bin string
	args      []string // bin and args start it; --agent-bin and --agent-arg replace them
	spelling  todotools.Spelling
	// env is added to the agent's environment unless the person's own
	// environment sets the same variable.
	env []string
	// askForTools: its own list never reaches todosh (Gemini's
	// write_todos), so the first prompt asks it to use todosh's tools.
	askForTools bool
	// savedList reads its own list where it saves it, when its calls do
	// not carry the items (acpagent.Config.SavedList).
	savedList acpagent.SavedList
	summary   string
	// pkg, versionFlag and check are the row's Package, VersionFlag and
	// Check.
	pkg, versionFlag string
	check            func(v string, getenv func(string) string) Check
	// usage: the agent's prompt responses carry its usage (Caps.Usage).
	usage bool
}

// bareVersion is the VersionLine of an agent whose --version prints the
// number alone (Gemini CLI, Qwen Code, pi).
const bareVersion = "%s"

// acpRow is the row of an ACP agent. Every ACP agent gets todosh's MCP
// server, so todosh's todo tools, tick and pause reach it.
func acpRow(x acpPreset) Backend {
	name := x.name
	return Backend{Name: name, Summary: x.summary, TodoTool: todotools.Write, ToolSpelling: x.spelling,
		Bin: x.bin, Package: x.pkg, VersionFlag: x.versionFlag, VersionLine: bareVersion, Check: x.check,
		Caps:  Caps{Tick: true, Pause: true, Resume: true, MCP: true, Usage: x.usage},
		Flags: []Flag{FlagBin, FlagArg, FlagApprove, FlagEvidence}, ACP: true,
		Start: func(_ string, o Options) (Factory, error) {
			approve, err := acpagent.ParseApprove(o.Approve)
			if err != nil {
				return nil, err
			}
			cfg := acpagent.Config{Name: name, Bin: x.bin, Args: x.args, Approve: approve, AskForTools: x.askForTools, Spelling: x.spelling, SavedList: x.savedList}
			if o.Bin != "" {
				cfg.Bin, cfg.Args = o.Bin, nil
			}
			if len(o.Args) > 0 {
				// Added after the preset's own (gemini's --acp), which a
				// person passing a model or a mode still needs; another
				// command (--agent-bin) gets only its own.
				cfg.Args = withPresetArgs(cfg.Args, o.Args)
			}
			if cfg.Bin == "" {
				return nil, fmt.Errorf("--agent %s: give the agent's command after -- (todosh --agent acp -- CMD ARGS...) or with --agent-bin", name)
			}
			self, err := os.Executable()
			if err != nil {
				return nil, fmt.Errorf("--agent %s: find todosh's own executable for its MCP server: %w", name, err)
			}
			return func(s agent.Session) (agent.Agent, error) {
				cfg := cfg
				cfg.MCP = MCPServer(self, s, o.RequireEvidence)
				// The session's directory: the editor's for `todosh acp`.
				cfg.Env, cfg.Dir = clis.WithDefaults(sessionEnv(s.ID), x.env), s.Cwd
				return acpagent.New(cfg, s)
			}, nil
		}}
}

// MCPServer is todosh's own MCP server for session s: this binary's
// `mcp` entry on the same store.
func MCPServer(self string, s agent.Session, requireEvidence bool) *agent.MCPServer {
	args := []string{"mcp", "--session", s.ID}
	if requireEvidence {
		args = append(args, "--require-evidence")
	}
	return &agent.MCPServer{Name: agent.MCPName, Command: self, Args: args,
		Env: map[string]string{"TODOSH_HOME": s.Store.Root}}
}

func startOpenAI(_ string, o Options) (Factory, error) {
	cfg := modelapi.ConfigFromEnv(o.Getenv)
	if o.BaseURL != "" {
		cfg.BaseURL = o.BaseURL
	}
	if o.Model != "" {
		cfg.Model = o.Model
	}
	cfg.RequireEvidence = o.RequireEvidence
	if o.ConnectTimeout < 0 || o.IdleTimeout < 0 {
		return nil, fmt.Errorf("--connect-timeout and --idle-timeout take a positive duration such as 30s or 5m")
	}
	cfg.ConnectTimeout, cfg.IdleTimeout = o.ConnectTimeout, o.IdleTimeout
	return func(s agent.Session) (agent.Agent, error) { return modelapi.New(cfg, s) }, nil
}

func startScript(path string, o Options) (Factory, error) {
	if path == "" {
		return nil, fmt.Errorf("--agent script: give the file, as script:FILE")
	}
	return func(s agent.Session) (agent.Agent, error) {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("--agent script: %w", err)
		}
		return modelapi.NewScript(data, s, o.RequireEvidence)
	}, nil
}

// sessionEnv is the environment of every process an agent starts:
// todosh's own plus agent.SessionEnv naming the session, so a
// `todosh mcp` the agent was given by hand serves the shell's session. It is
// the child's alone; todosh's own environment is not changed.
func sessionEnv(id string) []string {
	return append(os.Environ(), agent.SessionEnv+"="+id)
}

// Tools are the row's todo tools as the continuation prompt names them,
// spelled as the agent sees them; todo is the agent's own tool when the
// row leaves it to the agent, load the tool the agent reported that
// loads deferred tools by name ("ToolSearch"), "" when it reported none
// and the row's MCPLoad holds.
func (b *Backend) Tools(todo, load string) continuation.Tools {
	own := b.ToolSpelling.Of(todotools.Write)
	t := continuation.Tools{Todo: b.TodoTool, Load: b.MCPLoad}
	if load != "" {
		t.Load = continuation.Loader{Tool: load}
	}
	if t.Todo == todotools.Write {
		t.Todo = own
	}
	if t.Todo == "" {
		t.Todo = todo
	}
	t.Positional = t.Todo == own
	if b.Caps.Tick {
		t.Tick = b.ToolSpelling.Of(todotools.Tick)
	}
	if b.Caps.Pause {
		t.Pause = b.ToolSpelling.Of(todotools.Pause)
	}
	return t
}

// AgentTools are the todo tools of agent a, started from row b (nil for
// an agent of no row), as the continuation prompt names them: the one
// place the row's names and what the agent reports (its todo tool, the
// tool that loads deferred ones, agent.ToolLoader) meet.
func AgentTools(b *Backend, a agent.Agent) continuation.Tools {
	load := ""
	if l, ok := a.(agent.ToolLoader); ok {
		load = l.LoadTool()
	}
	if b == nil {
		return continuation.Tools{Todo: a.TodoTool(), Load: continuation.Loader{Tool: load}}
	}
	return b.Tools(a.TodoTool(), load)
}

// Spelling is the row's name as --help shows it ("script:FILE").
func (b *Backend) Spelling() string {
	if b.Param != "" {
		return b.Name + ":" + b.Param
	}
	return b.Name
}

// Names lists every spelling, for --help and errors.
func Names() string {
	var names []string
	for i := range Table {
		names = append(names, Table[i].Spelling())
	}
	return strings.Join(names, ", ")
}

// Lookup finds the row for an --agent value and the parameter after its
// colon.
func Lookup(spec string) (*Backend, string, error) {
	for i := range Table {
		b := &Table[i]
		if spec == b.Name {
			return b, "", nil
		}
		if b.Param != "" && strings.HasPrefix(spec, b.Name+":") {
			return b, strings.TrimPrefix(spec, b.Name+":"), nil
		}
	}
	return nil, "", fmt.Errorf("--agent %q: want one of %s", spec, Names())
}

// Choose picks the row for --agent (default: openai when OPENAI_BASE_URL
// or OPENAI_API_KEY is set, else the demo in a terminal and none in a
// script, where a scripted model would pass for real work), checks that
// every flag given goes with it, and starts it. given lists the agent flags
// on the command line.
func Choose(spec string, given []Flag, o Options) (*Backend, Factory, error) {
	if spec == "" {
		switch {
		case o.Getenv != nil && (o.Getenv("OPENAI_BASE_URL") != "" || o.Getenv("OPENAI_API_KEY") != ""):
			spec = "openai"
		case o.Interactive:
			spec = "demo"
		default:
			spec = "none"
		}
	}
	b, param, err := Lookup(spec)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range given {
		switch {
		case f == FlagBudgetTokens && !b.accepts(f):
			return nil, nil, fmt.Errorf("--budget-tokens: --agent %s reports no token usage, so only --budget-time can hold it (agents that report usage: %s)", spec, withFlag(f))
		case !b.accepts(f):
			return nil, nil, fmt.Errorf("%s goes with --agent %s, not %s", f, withFlag(f), spec)
		}
	}
	f, err := b.Start(param, o)
	if err != nil {
		return nil, nil, err
	}
	return b, f, nil
}

func (b *Backend) accepts(f Flag) bool {
	if f == FlagBudgetTokens {
		return b.Caps.Usage
	}
	for _, g := range b.Flags {
		if g == f {
			return true
		}
	}
	return false
}

// withFlag names the rows that accept f: "claude, codex or gemini".
func withFlag(f Flag) string {
	var names []string
	for i := range Table {
		if Table[i].accepts(f) {
			names = append(names, Table[i].Spelling())
		}
	}
	switch len(names) {
	case 0:
		return "no agent"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Help is the table as --help and /help show it: one line per backend
// with what it can do.
func Help() string {
	var b strings.Builder
	for i := range Table {
		r := &Table[i]
		fmt.Fprintf(&b, "  %-14s %s", r.Spelling(), r.Summary)
		if c := r.Caps.words(); c != "" {
			fmt.Fprintf(&b, " [%s]", c)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// words names the capabilities: "tick, pause, resume, mcp, usage".
func (c Caps) words() string {
	var w []string
	for _, x := range []struct {
		on   bool
		name string
	}{{c.Tick, "tick"}, {c.Pause, "pause"}, {c.Resume, "resume"}, {c.MCP, "mcp"}, {c.Usage, "usage"}} {
		if x.on {
			w = append(w, x.name)
		}
	}
	return strings.Join(w, ", ")
}

// IsAgentFlag reports whether the flag named name (without dashes) is one
// of the agent flags only some rows accept.
func IsAgentFlag(name string) bool {
	for i := range Table {
		if Table[i].accepts(Flag("--" + name)) {
			return true
		}
	}
	return false
}

// Describe is the line /help shows about the connected agent: its row's
// name, summary and what todosh's list can do with it.
func (b *Backend) Describe() string {
	s := "Agent: " + b.Name + " — " + b.Summary
	if c := b.Caps.words(); c != "" {
		s += " [" + c + "]"
	}
	return s
}

// withPresetArgs is the preset's arguments, then the person's; a
// preset argument the person gave too is given once, where they put it.
func withPresetArgs(preset, given []string) []string {
	var out []string
	for _, a := range preset {
		if !slices.Contains(given, a) {
			out = append(out, a)
		}
	}
	return append(out, given...)
}
