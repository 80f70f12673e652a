package repl

import (
	"time"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/backends"
	"github.com/todosh/todosh/continuation"
	"github.com/todosh/todosh/todostore"
)

// Exit statuses of the todosh binary. A script's status says how its last
// prompt ended when every line succeeded (see ExitFor).
const (
	ExitOK         = 0   // every line succeeded and the last prompt finished the list (or the person quit)
	ExitFailed     = 1   // a line failed (a command or agent error), or the session could not be opened
	ExitUsage      = 2   // bad flags
	ExitNoProgress = 3   // the last prompt stopped with open items: no progress, or the continuation cap
	ExitAsked      = 4   // the last prompt ended with the agent pausing or asking a question
	ExitBudget     = 5   // the last prompt stopped with open items at its budget (--budget-tokens, --budget-time)
	ExitCancelled  = 130 // Ctrl-C ended a turn or the countdown (128 + SIGINT)
)

// ExitFor is the exit status for how a prompt ended (an End* reason).
func ExitFor(end string) int {
	switch end {
	case EndDone:
		return ExitOK
	case EndNoProgress, EndCap:
		return ExitNoProgress
	case EndPaused, EndQuestion:
		return ExitAsked
	case EndBudget:
		return ExitBudget
	case EndCancelled:
		return ExitCancelled
	}
	return ExitFailed
}

// OutputJSONL is --output jsonl: events on stdout, one JSON object a line.
const (
	OutputText  = "text"
	OutputJSONL = "jsonl"
)

// DefaultContinueDelay is how long the countdown before a continuation
// waits for the person to take over.
const DefaultContinueDelay = 3 * time.Second

// Config is everything the shell takes from the command line and the
// environment. main.go fills it from flags, one flag per field; the zero
// value of every field is a sensible default except ContinueDelay (use
// NewConfig).
type Config struct {
	// Root is $TODOSH_HOME or ~/.todosh (todostore.ResolveRoot).
	Root string
	// SessionID opens (or creates) that session; "" starts a new one
	// unless Resume is set. main.go validates it before anything runs.
	SessionID string
	// Resume reopens the session whose cwd is Cwd changed most recently.
	Resume bool
	// Commands are the -c lines, run in order before exiting; when set,
	// stdin is not read.
	Commands []string
	// Cwd is recorded in new sessions and used by Resume; "" means the
	// process's working directory.
	Cwd string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Home is the person's home directory, where other agents keep the
	// lists /todo list also shows; "" leaves them out. Getenv reads the
	// variables that move those directories (nil: none set).
	Home   string
	Getenv func(string) string
	// LockTimeout is how long a change waits for another process's lock
	// on the session file before it gives up (--lock-timeout).
	LockTimeout time.Duration

	// Agent and continuation settings, filled by the agent flags.

	// NewAgent builds the agent for the opened session; nil runs without
	// an agent (prompts then say how to connect one).
	NewAgent func(agent.Session) (agent.Agent, error)
	// Backend is the row of the agent backend table NewAgent comes from:
	// what its agent can do (its todo tools, for the continuation prompt).
	// nil: an agent with only its own todo tool.
	Backend *backends.Backend
	// NoContinue turns the continuation of a lazy agent off.
	NoContinue bool
	// Budget is what each prompt may spend (--budget-tokens,
	// --budget-time); zero limits are none.
	Budget continuation.Budget
	// ContinueDelay is the countdown before a continuation in a terminal.
	ContinueDelay time.Duration

	// Output settings.

	// Color is --color: ColorAuto (""), ColorAlways or ColorNever.
	Color string
	// Quiet (--quiet) prints only errors and what /todo show and /todo
	// list were asked for.
	Quiet bool
	// Output is OutputText ("") or OutputJSONL; JSONL runs as a script.
	Output string
}

// NewConfig returns a Config with the defaults flags start from.
func NewConfig() Config {
	return Config{ContinueDelay: DefaultContinueDelay, LockTimeout: todostore.DefaultLockTimeout, Color: ColorAuto, Output: OutputText}
}
