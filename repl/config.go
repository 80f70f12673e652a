package repl

import (
	"time"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/backends"
	"github.com/todosh/todosh/todostore"
)

// Exit statuses of the todosh binary.
const (
	ExitOK     = 0 // every line succeeded (or the person quit)
	ExitFailed = 1 // a line failed, or the session could not be opened
	ExitUsage  = 2 // bad flags
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
	// Resume reopens the most recent session whose cwd is Cwd.
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
	// ContinueDelay is the countdown before a continuation in a terminal.
	ContinueDelay time.Duration
}

// NewConfig returns a Config with the defaults flags start from.
func NewConfig() Config {
	return Config{ContinueDelay: DefaultContinueDelay, LockTimeout: todostore.DefaultLockTimeout}
}
