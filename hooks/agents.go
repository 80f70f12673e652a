// Package hooks brings todosh into an agent's own interface through the
// agent's command hooks (ARCHITECTURE.md §9): `todosh hooks install` merges
// todosh's entries into the agent's settings file, and each entry runs
// `todosh hook AGENT EVENT`, which gates the agent's stop with the
// continuation policy, mirrors the agent's own todo tool into the store and
// gives the person's edits back to the agent.
//
// The agents are one table (agentsTable): their settings files per scope,
// event names, matchers and the words of their JSON. Decisions are pure
// (gate.go); settings are edited as text (settings.go, jsonedit.go); run.go
// is the only file that reads the store and the hook's stdin.
package hooks

import (
	"fmt"
	"github.com/todosh/todosh/todostore"
	"path/filepath"
	"strings"

	"github.com/todosh/todosh/agent/clis"
)

// Kind is one of todosh's hook events, the last word of `todosh hook
// AGENT KIND`; each agent names it its own way (Agent.Events).
type Kind string

// The hook events todosh installs.
const (
	// KindStop gates the agent's stop (Stop, Gemini's AfterAgent).
	KindStop Kind = "stop"
	// KindTool mirrors the agent's todo tool after it ran (PostToolUse,
	// Gemini's AfterTool).
	KindTool Kind = "tool"
	// KindPrompt sees the person's prompt: the counters start again and
	// the person's edits go to the agent (UserPromptSubmit, BeforeAgent).
	KindPrompt Kind = "prompt"
	// KindStart gives the list back after a resume or a compaction
	// (SessionStart).
	KindStart Kind = "start"
)

// Kinds are the events in the order they are installed and listed.
var Kinds = []Kind{KindStop, KindTool, KindPrompt, KindStart}

// Event is one hook an agent runs for todosh.
type Event struct {
	Kind Kind
	// Name is the agent's name for the event ("Stop", "AfterAgent").
	Name string
	// Tools is true for a tool event: its entry's matcher names the
	// agent's todo tools.
	Tools bool
}

// Scope is where a settings file applies: the person's (user) or one
// repository's (project).
type Scope string

// The scopes of a settings file.
const (
	ScopeUser    Scope = "user"
	ScopeProject Scope = "project"
)

// Agent is one agent whose hooks todosh installs: one row of agentsTable.
type Agent struct {
	// Name is the agent's name on todosh's command line, and its CLI's
	// row in agent/clis.
	Name  string
	Title string
	// configDir is the agent's directory under HOME, and env the variable
	// that moves it, if any.
	configDir, env string
	// file is the settings file's name in the config directory (user) or
	// in the project's directory of the same name (project).
	file   string
	Events []Event
	// Continue is the decision word that makes the agent go on.
	Continue string
	// continueBy is how a continuation reaches the agent so that its
	// screen shows one short line (continue.go).
	continueBy continueStyle
	// exactMatcher: the matcher is the tool names joined by "|", which the
	// agent compares whole (Claude Code); otherwise a regular expression
	// anchored at both ends.
	exactMatcher bool
	// named: each entry carries a "name" (Gemini CLI shows it in /hooks).
	named bool
	// jsonc: the agent reads its settings with comments (Gemini CLI and
	// Qwen Code strip them before JSON.parse), so they are kept.
	jsonc bool
	// disabled is the settings key path that turns every hook off, and the
	// value that does.
	disabled      []string
	disabledValue string
	// trustIn is the file of the agent's config directory (TOML) in which
	// it records the hooks the person trusted; "" when it runs every hook
	// it finds (trustCheck).
	trustIn string
	// winShell is the shell the agent runs a hook command with on
	// Windows (Command quotes todosh's path for it).
	winShell string
	// toolOn is how the agent's own todo tool is turned on where its
	// newer releases hide it; nil when it is always there. Without the
	// tool there is no list to mirror or to keep going on.
	toolOn *toolSwitch
	// usage reads what a prompt spent from the agent's transcript, for a
	// token budget in the stop gate (usage.go); nil when it cannot be
	// read. budget is that budget, for Install (WithBudget).
	usage  transcriptUsage
	budget int64
	// sessionEnv is the variable the agent sets, for the commands it
	// runs, to its own session id: `todosh board claim` run by the agent
	// claims as its mirror session (AgentSession), whose list the hooks
	// keep.
	sessionEnv string
}

// toolSwitch turns an agent's todo tool on: a settings key path whose value
// is one of on (compared case-insensitively with a string's text or a
// literal's JSON), or the variable env set to one of on in the
// environment.
type toolSwitch struct {
	// toml is the file of the agent's config directory that holds path
	// (Codex's config.toml), "" for the settings file itself.
	toml string
	path []string
	env  string
	on   []string
	// todo is the line `todosh hooks status` prints while it is off.
	todo string
}

// truthy are the values that turn a switch on.
var truthy = []string{"1", "true", "yes", "on"}

// claudeEvents are Claude Code's names for the events, which Qwen Code and
// Codex took over as they are.
var claudeEvents = []Event{
	{Kind: KindStop, Name: "Stop"},
	{Kind: KindTool, Name: "PostToolUse", Tools: true},
	{Kind: KindPrompt, Name: "UserPromptSubmit"},
	{Kind: KindStart, Name: "SessionStart"},
}

// agentsTable is every agent todosh installs hooks for, in the order
// `todosh hooks status` lists them. Shapes were checked against each
// agent's own code and docs (docs/hooks.md says which versions).
var agentsTable = []Agent{
	{
		Name: "claude", Title: "Claude Code",
		configDir: ".claude", env: "CLAUDE_CONFIG_DIR", file: "settings.json",
		winShell: winBash,
		Events:   claudeEvents,
		Continue: "block", continueBy: byContext, exactMatcher: true,
		disabled: []string{"disableAllHooks"}, disabledValue: "true",
		usage: claudeTranscriptUsage,
		// Claude Code sets it for its Bash tool's commands (2.1.332).
		sessionEnv: "CLAUDE_CODE_SESSION_ID",
		// Claude Code 2.1.233 and later give their newer models no todo
		// tool without this variable (checked with 2.1.332); Claude Code
		// also applies the settings file's "env" to itself.
		toolOn: &toolSwitch{
			path: []string{"env", "CLAUDE_CODE_ENABLE_TODO_TOOLS"}, env: "CLAUDE_CODE_ENABLE_TODO_TOOLS", on: truthy,
			todo: `Claude Code 2.1.233 and later offer no todo tool (so no list to keep) without CLAUDE_CODE_ENABLE_TODO_TOOLS=1: ` +
				`export it, or add "env": {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"} to this file`,
		},
	},
	{
		Name: "gemini", Title: "Gemini CLI",
		configDir: ".gemini", file: "settings.json", winShell: winPowerShell,
		Events: []Event{
			{Kind: KindStop, Name: "AfterAgent"},
			{Kind: KindTool, Name: "AfterTool", Tools: true},
			{Kind: KindPrompt, Name: "BeforeAgent"},
			{Kind: KindStart, Name: "SessionStart"},
		},
		Continue: "deny", continueBy: byPromptHook, named: true, jsonc: true,
		disabled: []string{"hooksConfig", "enabled"}, disabledValue: "false",
	},
	{
		Name: "qwen", Title: "Qwen Code",
		configDir: ".qwen", file: "settings.json", winShell: winCmd,
		Events:   claudeEvents,
		Continue: "block", continueBy: byPromptHook, jsonc: true,
		disabled: []string{"disableAllHooks"}, disabledValue: "true",
		// Qwen Code 0.24 made todo_write opt-in (0.15 offered it).
		toolOn: &toolSwitch{
			path: []string{"tools", "todoWrite", "enabled"}, on: []string{"true"},
			todo: `newer Qwen Code (0.24) offers todo_write (so a list to keep) only when turned on: ` +
				`add "tools": {"todoWrite": {"enabled": true}} to this file`,
		},
	},
	{
		Name: "codex", Title: "Codex",
		configDir: ".codex", env: "CODEX_HOME", file: "hooks.json", winShell: winCmd,
		Events:   claudeEvents,
		Continue: "block", continueBy: byReason,
		trustIn: "config.toml",
		// Codex 0.171 offers update_plan only when its config turns it on
		// (checked with the scripted model: without it, no plan tool).
		toolOn: &toolSwitch{
			toml: "config.toml", path: []string{"tools", "update_plan", "enabled"}, on: []string{"true"},
			todo: `Codex offers update_plan (so a list to keep) only when its config.toml turns it on: ` +
				`add "[tools.update_plan]" and "enabled = true" to it`,
		},
	},
}

// AsksTrust reports whether the agent runs a new or changed hook only
// after the person trusted it (Codex).
func (a Agent) AsksTrust() bool { return a.trustIn != "" }

// Agents returns the table's rows.
func Agents() []Agent { return agentsTable }

// Names are the agents' names, for help and errors.
func Names() []string {
	var n []string
	for _, a := range agentsTable {
		n = append(n, a.Name)
	}
	return n
}

// Lookup returns the row of the agent named name.
func Lookup(name string) (Agent, error) {
	for _, a := range agentsTable {
		if a.Name == name {
			return a, nil
		}
	}
	return Agent{}, fmt.Errorf("unknown agent %q (want %s)", name, strings.Join(Names(), ", "))
}

// ParseKind checks a hook event's name.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown hook event %q (want stop, tool, prompt or start)", s)
}

// Event returns the agent's event of kind k.
func (a Agent) Event(k Kind) (Event, bool) {
	for _, e := range a.Events {
		if e.Kind == k {
			return e, true
		}
	}
	return Event{}, false
}

// Path is the agent's settings file in scope: under HOME (or the
// agent's own variable) for the user, under dir for a project.
func (a Agent) Path(scope Scope, home, dir string, getenv func(string) string) string {
	if scope == ScopeProject {
		return filepath.Join(dir, a.configDir, a.file)
	}
	if a.env != "" && getenv(a.env) != "" {
		return filepath.Join(getenv(a.env), a.file)
	}
	return filepath.Join(home, a.configDir, a.file)
}

// matcher is the matcher of the agent's tool event: every tool, so the
// work log sees the agent's edits and commands as well as its todo tool
// (issue 26's receipts). Claude Code takes "*" for every tool; the others
// take a regular expression.
func (a Agent) matcher() (string, error) {
	if _, err := clis.HookTodoTools(a.Name); err != nil {
		return "", err
	}
	if a.exactMatcher {
		return "*", nil
	}
	return ".*", nil
}

// AgentSession returns the mirror session of the agent whose command this
// process is (its row's sessionEnv set in the environment), and the
// agent's name; ok is false when no agent's variable is set or the
// session id is not a valid one.
func AgentSession(getenv func(string) string) (id, agent string, ok bool) {
	for _, a := range agentsTable {
		if a.sessionEnv == "" {
			continue
		}
		if v := getenv(a.sessionEnv); v != "" {
			id := SessionID(a.Name, v)
			if todostore.ValidSessionID(id) == nil {
				return id, a.Name, true
			}
		}
	}
	return "", "", false
}
