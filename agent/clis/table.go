package clis

import (
	"fmt"
	"strings"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/todostore"
)

// Caps is what a wrapped CLI can do with todosh's list beyond writing it
// whole: tick one subtask, pause to ask the person, resume its own session.
type Caps struct {
	Tick, Pause, Resume bool
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
	// parser makes the stream parser of one turn; prev is the list before it.
	parser func(prev []todostore.Todo, usesTasks bool) Parser
	// todoTools are the CLI's own todo tools; the first is the one the
	// continuation prompt names.
	todoTools []string
	caps      Caps
	// sessionGone are lower-case pieces of what the CLI prints when the
	// session it was asked to resume no longer exists.
	sessionGone []string
	// listHint says what the person must change when the stream shows the
	// CLI cannot keep a list: one short line (a notice is cut at 120
	// characters).
	listHint string
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
		parser: func(_ []todostore.Todo, usesTasks bool) Parser {
			return &ClaudeParser{UsesTasks: usesTasks}
		},
		todoTools:   []string{"TodoWrite", "TaskCreate", "TaskUpdate"},
		caps:        Caps{Resume: true},
		sessionGone: []string{"no conversation found with session id"},
		listHint:    "allow TodoWrite or the Task tools (check --allowedTools and --disallowedTools)",
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
		parser:      func(prev []todostore.Todo, _ bool) Parser { return &CodexParser{Prev: todostore.CloneTodos(prev)} },
		todoTools:   []string{"update_plan"},
		caps:        Caps{Resume: true},
		sessionGone: []string{"no rollout found for thread id", "no rollout found for conversation id", "thread not found"},
	},
	{
		name: "gemini",
		// Gemini CLI runs headless and reads the prompt from stdin when
		// stdin is not a terminal.
		args:        geminiArgs,
		parser:      func([]todostore.Todo, bool) Parser { return &GeminiParser{} },
		todoTools:   []string{"write_todos"},
		caps:        Caps{Resume: true},
		sessionGone: []string{"invalid session identifier", "no conversation found with session id", "session not found"},
		listHint:    "use --agent-arg=-m --agent-arg=gemini-2.5-pro --agent-arg=--approval-mode --agent-arg=yolo",
	},
	{
		name: "qwen",
		// Qwen Code (a Gemini CLI fork) reads the prompt from stdin the
		// same way; --verbose is refused, and its stream is Claude's shape.
		args:        geminiArgs,
		parser:      func([]todostore.Todo, bool) Parser { return NewQwenParser() },
		todoTools:   []string{"todo_write"},
		caps:        Caps{Resume: true},
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
		parser:      func(prev []todostore.Todo, _ bool) Parser { return &PiParser{Prev: todostore.CloneTodos(prev)} },
		todoTools:   []string{"todo"},
		caps:        Caps{Resume: true},
		sessionGone: []string{"no session found matching"},
		listHint:    "pi has none built in: load one, --agent-arg=-e --agent-arg=PATH/examples/extensions/todo.ts",
	},
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
// todo context when the CLI has no file flag for it.
func (c *cli) stdinText(turn agent.Turn) string {
	if c.contextFlag != "" {
		return turn.Prompt
	}
	return withTodoContext(turn.TodoContext, turn.Prompt)
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
