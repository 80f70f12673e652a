package clis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent"
)

// Caps is what a wrapped CLI can do with todosh's list beyond writing it
// whole: tick one subtask, pause to ask the person, resume its own session;
// and whether its stream reports the tokens it spends (Usage, usage.go).
type Caps struct {
	Tick, Pause, Resume, Usage bool
}

// cli is one wrapped agent CLI: everything todosh knows about it. Each is
// one row of clisTable; the runner reads the row and never the name.
type cli struct {
	name string
	// args is the command line of one turn, without the executable. No
	// prompt and no todo text is ever on it (other users read
	// /proc/PID/cmdline, and one argument is limited to 128 KiB): the
	// prompt goes on stdin, the todo context in a 0600 file named by
	// contextFlag when the CLI has one, else on stdin before the prompt.
	args func(in argsIn) []string
	// contextFlag names the file of todo context, "" when the CLI has no
	// such flag.
	contextFlag string
	// parser makes the stream parser of one turn.
	parser func(in parserIn) Parser
	// todoTools are the CLI's own todo tools; the first is the one the
	// continuation prompt names.
	todoTools []string
	caps      Caps
	// tasks: the CLI's todo tools change one task at a time by ids made in
	// earlier turns (Claude Code's Task tools). The runner keeps those ids
	// in the session's agent record, seeds each turn's parser with them,
	// and asks the parser (taskParser) whether the session uses them.
	tasks bool
	// env is added to the CLI's environment unless the person's own sets
	// the same variable (GeminiEnv).
	env []string
	// toolEnv is added the same way, and is what the CLI needs to offer its
	// todo tools (ClaudeEnv): a person's value that differs is named when
	// the list cannot be kept.
	toolEnv []string
	// sessionGone are lower-case pieces of what the CLI prints when the
	// session it was asked to resume no longer exists.
	sessionGone []string
	// planStatuses, when not nil, corrects the statuses of the list the
	// stream reported last from the CLI's own record of its session, for a
	// stream that drops them (Codex's rollout, codexplan.go): env is the
	// CLI's environment, session its session id.
	planStatuses func(env []string, session string, todos []todolist.Todo) ([]todolist.Todo, bool)
	// usageBefore, for a CLI whose usage reports are its session's running
	// total rather than the turn's (Codex: turn.completed after a resume
	// counts the turns before), is that total before a turn resumes
	// session, from the CLI's own record; the parser is given it
	// (parserIn.usageBefore) and reports what the turn adds.
	usageBefore func(env []string, session string) agent.Usage
	// listHint says what the person must change when the stream shows the
	// CLI cannot keep a list: one short line (a notice is cut at 120
	// characters).
	listHint string
}

// parserIn is what a turn's parser starts from.
type parserIn struct {
	prev      []todolist.Todo // the list before the turn
	usesTasks bool            // an earlier turn used the task tools
	mcpTools  []string        // Config.MCPTools
	// usageBefore is the session's usage total before the turn
	// (cli.usageBefore).
	usageBefore agent.Usage
}

// ClaudeEnv is what Claude Code needs in its environment to offer any todo
// tool: since 2.1.233 its newer models get TodoWrite and the Task tools
// only with CLAUDE_CODE_ENABLE_TODO_TOOLS=1, and then deferred behind
// ToolSearch. todosh sets it for claude and claude-agent-acp unless the
// person set it.
var ClaudeEnv = []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1"}

// GeminiEnv keeps Gemini CLI in one process: without it, gemini relaunches
// itself as a child node process (for a larger heap), so the process todosh
// starts is only a launcher that hides how the agent ended.
var GeminiEnv = []string{"GEMINI_CLI_NO_RELAUNCH=true"}

// WithDefaults returns env with each KEY=VALUE of defaults added whose
// KEY env does not set.
func WithDefaults(env, defaults []string) []string {
	out := env
	for _, kv := range defaults {
		key, _, _ := strings.Cut(kv, "=")
		if _, set := lookupEnv(env, key); !set {
			out = append(slices.Clip(out), kv)
		}
	}
	return out
}

// lookupEnv is the value of key in env (the last one wins, as in exec).
func lookupEnv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// overridden names the first of the row's toolEnv the person set to
// another value: "CLAUDE_CODE_ENABLE_TODO_TOOLS=0", "" when none.
func (c *cli) overridden(env []string) string {
	for _, kv := range c.toolEnv {
		key, want, _ := strings.Cut(kv, "=")
		if v, set := lookupEnv(env, key); set && v != want {
			return key + "=" + v
		}
	}
	return ""
}

// argsIn is what a turn's command line depends on.
type argsIn struct {
	extra       []string // --agent-arg values
	resume      string   // the CLI's own session id, "" for a new one
	contextFile string   // the todo context file, "" when there is none
	noGit       bool     // outside a git repository (Codex needs a flag)
}

// clisTable is every CLI todosh wraps, in the order help lists them.
var clisTable = []cli{
	{
		name: "claude",
		// claude -p reads the prompt from stdin when none is given.
		args: func(in argsIn) []string {
			args := []string{"-p", "--output-format", "stream-json", "--verbose"}
			args = appendIf(args, in.resume, "--resume", in.resume)
			args = appendIf(args, in.contextFile, "--append-system-prompt-file", in.contextFile)
			return append(args, in.extra...)
		},
		contextFlag: "--append-system-prompt-file",
		parser: func(in parserIn) Parser {
			return &ClaudeParser{UsesTasks: in.usesTasks, MCPTools: in.mcpTools}
		},
		todoTools:   []string{"TodoWrite", "TaskCreate", "TaskUpdate"},
		caps:        Caps{Resume: true, Usage: true},
		tasks:       true,
		toolEnv:     ClaudeEnv,
		sessionGone: []string{"no conversation found with session id"},
		listHint:    "allow TodoWrite or the Task tools (check --allowedTools, --disallowedTools and `todosh doctor`)",
	},
	{
		name: "codex",
		// `-` as the prompt makes codex exec read it from stdin.
		args: func(in argsIn) []string {
			args := []string{"exec", "--json", "-c", "tools.update_plan.enabled=true"}
			if in.noGit {
				args = append(args, "--skip-git-repo-check")
			}
			args = append(args, in.extra...)
			args = appendIf(args, in.resume, "resume", in.resume)
			return append(args, "-")
		},
		parser: func(in parserIn) Parser {
			return &CodexParser{Prev: todolist.CloneTodos(in.prev), MCPTools: in.mcpTools, UsageBefore: in.usageBefore}
		},
		usageBefore:  codexRolloutUsage,
		todoTools:    []string{"update_plan"},
		caps:         Caps{Resume: true, Usage: true},
		planStatuses: codexRolloutPlan,
		sessionGone:  []string{"no rollout found for thread id", "no rollout found for conversation id", "thread not found"},
	},
	{
		name: "gemini",
		// Gemini CLI runs headless and reads the prompt from stdin when
		// stdin is not a terminal.
		args:        geminiArgs,
		parser:      func(parserIn) Parser { return &GeminiParser{} },
		env:         GeminiEnv,
		todoTools:   []string{"write_todos"},
		caps:        Caps{Resume: true, Usage: true},
		sessionGone: []string{"invalid session identifier", "no conversation found with session id", "session not found"},
		listHint:    "use --agent-arg=-m --agent-arg=gemini-2.5-pro --agent-arg=--approval-mode --agent-arg=yolo",
	},
	{
		name: "qwen",
		// Qwen Code (a Gemini CLI fork) reads the prompt from stdin the
		// same way; --verbose is refused, and its stream is Claude's shape.
		args:        geminiArgs,
		parser:      func(parserIn) Parser { return NewQwenParser() },
		todoTools:   []string{"todo_write"},
		caps:        Caps{Resume: true, Usage: true},
		sessionGone: []string{"no saved session found", "session not found", "no conversation found with session id"},
		// Qwen Code 0.24 made todo_write opt-in (checked with 0.24.4).
		listHint: `turn todo_write on: "tools": {"todoWrite": {"enabled": true}} in ~/.qwen/settings.json; check --exclude-tools`,
	},
	{
		name: "pi",
		// pi reads piped stdin as the first message (and then runs in print
		// mode); --append-system-prompt takes text or a file's path.
		args: func(in argsIn) []string {
			args := []string{"--mode", "json"}
			args = appendIf(args, in.resume, "--session", in.resume)
			args = appendIf(args, in.contextFile, "--append-system-prompt", in.contextFile)
			return append(args, in.extra...)
		},
		contextFlag: "--append-system-prompt",
		parser:      func(in parserIn) Parser { return &PiParser{Prev: todolist.CloneTodos(in.prev)} },
		todoTools:   []string{"todo"},
		caps:        Caps{Resume: true, Usage: true},
		sessionGone: []string{"no session found matching"},
		listHint:    "pi has none built in: load one, --agent-arg=-e --agent-arg=PATH/examples/extensions/todo.ts",
	},
}

// taskParser is the parser of a CLI with task tools (cli.tasks): it tells
// whether the session offered or used them instead of a whole-list tool.
type taskParser interface {
	usesTasks() bool
}

// Kinds are the CLIs New accepts, in the table's order.
var Kinds = func() []string {
	var k []string
	for _, c := range clisTable {
		k = append(k, c.name)
	}
	return k
}()

// lookup returns the row of the CLI named kind.
func lookup(kind string) (*cli, error) {
	for i := range clisTable {
		if clisTable[i].name == kind {
			return &clisTable[i], nil
		}
	}
	return nil, fmt.Errorf("unknown agent CLI %q (want %s)", kind, strings.Join(Kinds, ", "))
}

// Capabilities returns what the CLI named kind can do; ok is false for a
// name that is no wrapped CLI.
func Capabilities(kind string) (caps Caps, ok bool) {
	c, err := lookup(kind)
	if err != nil {
		return Caps{}, false
	}
	return c.caps, true
}

// geminiArgs is the command line of Gemini CLI and of Qwen Code, its fork.
func geminiArgs(in argsIn) []string {
	args := []string{"--output-format", "stream-json"}
	args = appendIf(args, in.resume, "--resume", in.resume)
	return append(args, in.extra...)
}

// appendIf appends more to args when cond is not empty.
func appendIf(args []string, cond string, more ...string) []string {
	if cond == "" {
		return args
	}
	return append(args, more...)
}

// stdinText is what the CLI reads on stdin: the prompt, preceded by the
// todo context when the CLI has no file flag for it and the prompt does
// not show the list already (agent.Turn.PromptContext).
func (c *cli) stdinText(turn agent.Turn) string {
	if c.contextFlag != "" {
		return turn.Prompt
	}
	return withTodoContext(turn.PromptContext(), turn.Prompt)
}

// withTodoContext puts the todo context before the prompt, separated by
// a blank line. The context comes from the shell already complete: a line
// that says what it is and the list inside its delimited block, with any
// delimiter in todo text neutralised (continuation.TodoContext).
func withTodoContext(ctx, prompt string) string {
	if strings.TrimSpace(ctx) == "" {
		return prompt
	}
	return strings.TrimRight(ctx, "\n") + "\n\n" + prompt
}
