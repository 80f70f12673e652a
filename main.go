// Command todosh is a terminal shell for working with an AI coding agent:
// every conversation gets a todo list on disk that slash commands edit and
// that keeps a lazy agent working until it is done. See README.md.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/clis"
	"github.com/todosh/todosh/agent/modelapi"
	"github.com/todosh/todosh/repl"
	"github.com/todosh/todosh/todostore"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// run is main without the process: it parses flags, resolves the store
// and hands over to the shell, returning the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	cfg, err := parseFlags(args, stdout, getenv)
	if errors.Is(err, flag.ErrHelp) {
		return repl.ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "todosh: %v (see todosh --help)\n", err)
		return repl.ExitUsage
	}
	cfg.Home, cfg.Getenv = getenv("HOME"), getenv
	if cfg.Root, err = todostore.ResolveRoot(getenv); err != nil {
		fmt.Fprintf(stderr, "todosh: %v\n", err)
		return repl.ExitFailed
	}
	return repl.Run(cfg, stdin, stdout, stderr)
}

// usage is the first part of --help; the flags follow it.
const usage = `usage: todosh [--agent NAME] [--session ID | --resume] [-c CMD]...

todosh is a shell for an AI coding agent with a todo list that lives on
disk. Lines starting with / are commands (type /help); any other line is a
prompt for the agent. With -c, or when stdin is not a terminal, each line
runs as if typed and the exit status is 1 if any line failed.

Files live in $TODOSH_HOME (default ~/.todosh).

flags:
`

// parseFlags turns the command line into the shell's configuration. Each
// flag is one line that fills one field of repl.Config; checks that need
// no file (session id syntax, conflicting flags) are done here so a bad
// command line touches nothing. Errors are flag errors (exit status 2);
// flag.ErrHelp means --help was printed on stdout.
func parseFlags(args []string, stdout io.Writer, getenv func(string) string) (repl.Config, error) {
	cfg := repl.NewConfig()
	fs := flag.NewFlagSet("todosh", flag.ContinueOnError)
	// Errors are returned and printed as one line by run, not with the
	// whole usage; only --help prints it.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}

	// Session and script flags.
	fs.StringVar(&cfg.SessionID, "session", "", "open (or create) the session `ID`")
	fs.BoolVar(&cfg.Resume, "resume", false, "reopen the most recent session started in this directory")
	fs.Func("c", "run `CMD` as if typed, then exit (repeatable, runs in order)", func(s string) error {
		cfg.Commands = append(cfg.Commands, s)
		return nil
	})

	// Agent flags; cfg.NewAgent is built from them after Parse.
	var ag agentFlags
	fs.StringVar(&ag.kind, "agent", "", "which agent answers prompts, by `NAME`: demo, openai, script:FILE, claude, codex, gemini, qwen, pi or none\n(default: openai when OPENAI_BASE_URL or OPENAI_API_KEY is set, else none)")
	fs.StringVar(&ag.baseURL, "base-url", "", "OpenAI-compatible API `URL` (default $OPENAI_BASE_URL, else Ollama's "+modelapi.DefaultBaseURL+")")
	fs.StringVar(&ag.model, "model", "", "model `NAME` for --agent openai (default $TODOSH_MODEL)")
	fs.DurationVar(&ag.connectTimeout, "connect-timeout", modelapi.DefaultConnectTimeout, "give up connecting to the model API after this long")
	fs.DurationVar(&ag.idleTimeout, "idle-timeout", modelapi.DefaultIdleTimeout, "give up on a model API reply when the server sends nothing for this long")
	fs.BoolVar(&ag.requireEvidence, "require-evidence", false, "refuse to complete a todo without evidence (model API agents)")
	fs.StringVar(&ag.bin, "agent-bin", "", "`PATH` of the claude, codex, gemini, qwen or pi executable (default: found on PATH)")
	fs.DurationVar(&ag.idle, "idle-limit", clis.DefaultIdleLimit, "stop an agent CLI's turn after it wrote nothing for this long (0: never)")
	fs.Func("agent-arg", "pass `ARG` to the agent CLI (repeatable)", func(s string) error {
		ag.args = append(ag.args, s)
		return nil
	})
	fs.BoolVar(&cfg.NoContinue, "no-continue", false, "never continue a lazy agent by itself")
	fs.DurationVar(&cfg.ContinueDelay, "continue-delay", cfg.ContinueDelay, "countdown before a continuation in a terminal")
	fs.DurationVar(&cfg.LockTimeout, "lock-timeout", cfg.LockTimeout, "how long a change waits for another todosh that holds the session's lock")

	// Output flags.
	fs.StringVar(&cfg.Color, "color", repl.ColorAuto, "colour: `WHEN` is auto (a terminal without NO_COLOR or TERM=dumb), always or never")
	fs.BoolVar(&cfg.Quiet, "quiet", false, "print only errors and what /todo show and /todo list are asked for")
	fs.StringVar(&cfg.Output, "output", repl.OutputText, "`FORMAT` of a script's output: text, or jsonl (one JSON event per line, see README)")
	var version bool
	fs.BoolVar(&version, "version", false, "print the version and exit")

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprint(stdout, usage)
			fs.PrintDefaults()
		}
		return cfg, err
	}
	if version {
		fmt.Fprintln(stdout, versionText())
		return cfg, flag.ErrHelp
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q: give commands and prompts with -c, or on stdin", strings.Join(fs.Args(), " "))
	}
	switch cfg.Color {
	case repl.ColorAuto, repl.ColorAlways, repl.ColorNever:
	default:
		return cfg, fmt.Errorf("--color %q: want auto, always or never", cfg.Color)
	}
	if cfg.Output != repl.OutputText && cfg.Output != repl.OutputJSONL {
		return cfg, fmt.Errorf("--output %q: want text or jsonl", cfg.Output)
	}
	if cfg.ContinueDelay < 0 {
		return cfg, fmt.Errorf("--continue-delay %s is negative", cfg.ContinueDelay)
	}
	if cfg.LockTimeout <= 0 {
		return cfg, fmt.Errorf("--lock-timeout %s: give a positive duration such as 30s", cfg.LockTimeout)
	}
	var err error
	if cfg.NewAgent, err = ag.factory(getenv); err != nil {
		return cfg, err
	}
	if cfg.SessionID != "" {
		if err := todostore.ValidSessionID(cfg.SessionID); err != nil {
			return cfg, fmt.Errorf("--session: %w", err)
		}
		if cfg.Resume {
			return cfg, errors.New("--session and --resume do not go together: name a session or resume the last one")
		}
	}
	return cfg, nil
}

// versionText is the --version line, from the build info Go records in
// the binary: the module version for `go install …@vX`, else the VCS
// revision and time of a build from a checkout.
func versionText() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "todosh (unknown version)"
	}
	v := info.Main.Version
	var rev, at, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	line := "todosh " + v
	if rev != "" {
		line += fmt.Sprintf(" (%s %s%s)", rev[:min(12, len(rev))], at, dirty)
	}
	return line + " " + info.GoVersion
}

// agentFlags are the flags that choose and configure the agent.
type agentFlags struct {
	kind, baseURL, model, bin string
	args                      []string
	requireEvidence           bool
	idle                      time.Duration
	connectTimeout            time.Duration
	idleTimeout               time.Duration
}

// factory checks the agent flags and returns what builds the agent once
// the session is open; nil means no agent. Everything that can be checked
// without the session is checked here, so a bad flag is a usage error.
func (f agentFlags) factory(getenv func(string) string) (func(agent.Session) (agent.Agent, error), error) {
	kind := f.kind
	if kind == "" {
		kind = "none"
		if getenv("OPENAI_BASE_URL") != "" || getenv("OPENAI_API_KEY") != "" {
			kind = "openai"
		}
	}
	isCLI := slices.Contains(clis.Kinds, kind)
	if (f.bin != "" || len(f.args) > 0) && !isCLI {
		return nil, fmt.Errorf("--agent-bin and --agent-arg go with --agent %s, not %s", strings.Join(clis.Kinds, ", "), kind)
	}
	if f.idle < 0 {
		return nil, fmt.Errorf("--idle-limit %s is negative (0 turns it off)", f.idle)
	}
	if (f.baseURL != "" || f.model != "") && kind != "openai" {
		return nil, fmt.Errorf("--base-url and --model go with --agent openai, not %s", kind)
	}
	switch {
	case kind == "none":
		return nil, nil
	case kind == "demo":
		return func(s agent.Session) (agent.Agent, error) { return modelapi.NewDemo(s) }, nil
	case kind == "openai":
		cfg := modelapi.ConfigFromEnv(getenv)
		if f.baseURL != "" {
			cfg.BaseURL = f.baseURL
		}
		if f.model != "" {
			cfg.Model = f.model
		}
		cfg.RequireEvidence = f.requireEvidence
		if f.connectTimeout <= 0 || f.idleTimeout <= 0 {
			return nil, errors.New("--connect-timeout and --idle-timeout take a positive duration such as 30s or 5m")
		}
		cfg.ConnectTimeout, cfg.IdleTimeout = f.connectTimeout, f.idleTimeout
		return func(s agent.Session) (agent.Agent, error) { return modelapi.New(cfg, s) }, nil
	case strings.HasPrefix(kind, "script:"):
		path := strings.TrimPrefix(kind, "script:")
		return func(s agent.Session) (agent.Agent, error) {
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("--agent script: %w", err)
			}
			return modelapi.NewScript(data, s, f.requireEvidence)
		}, nil
	case isCLI:
		cfg := clis.Config{Bin: f.bin, Args: f.args, IdleLimit: f.idle}
		return func(s agent.Session) (agent.Agent, error) { return clis.New(kind, cfg, s) }, nil
	}
	return nil, fmt.Errorf("--agent %q: want demo, openai, script:FILE, %s or none", kind, strings.Join(clis.Kinds, ", "))
}
