// Command todosh is a terminal shell for working with an AI coding agent:
// every conversation gets a todo list on disk that slash commands edit and
// that keeps a lazy agent working until it is done. See README.md.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/todosh/todosh/backends"
	"github.com/todosh/todosh/repl"
	"github.com/todosh/todosh/todostore"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// run is main without the process: it parses flags, resolves the store
// and hands over to the shell, returning the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) > 0 {
		for _, c := range subcommands {
			if c.name == args[0] {
				return c.run(args[1:], stdin, stdout, stderr, getenv)
			}
		}
	}
	cfg, err := parseFlags(args, stdout, getenv, repl.IsTerminal(stdin) && repl.IsTerminal(stdout))
	if errors.Is(err, flag.ErrHelp) {
		return repl.ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "todosh: %v (see todosh --help)\n", err)
		return repl.ExitUsage
	}
	cfg.Home, _ = todostore.HomeDir(getenv)
	cfg.Getenv = getenv
	if cfg.Root, err = todostore.ResolveRoot(getenv); err != nil {
		fmt.Fprintf(stderr, "todosh: %v\n", err)
		return repl.ExitFailed
	}
	return repl.Run(cfg, stdin, stdout, stderr)
}

// subcommand is an entry of the binary besides the shell: `todosh NAME`.
type subcommand struct {
	name string
	// help is its --help, or its usage line alone; the shell's --help
	// lists the usage lines it starts with, so the two agree.
	help string
	note string // after its first usage line in the shell's --help
	run  func(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int
}

// subcommands is the one table of them: dispatch and the usage lines of
// --help come from it, so a new entry is one row and its file.
var subcommands = []subcommand{
	{"mcp", mcpUsage, "", runMCP},
	{"acp", acpUsage, "(for editors)", runACP},
	{"hooks", hooksUsage, "", runHooks},
	{"hook", "usage: todosh hook AGENT EVENT", "(run by an agent's hooks)", runHook},
	{"board", boardUsage, "(the project's shared board)", runBoard},
	{"doctor", doctorUsage, "(for a bug report)", runDoctor},
}

// usageLines are the usage lines a --help text starts with: the
// "usage: " line and the indented lines after it, without the indent.
func usageLines(help string) []string {
	lines := strings.Split(help, "\n")
	out := []string{strings.TrimPrefix(lines[0], "usage: ")}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "       todosh ") {
			break
		}
		out = append(out, strings.TrimSpace(l))
	}
	return out
}

// usage is the first part of --help; the flags follow it.
func usage() string {
	var b strings.Builder
	b.WriteString("usage: todosh [--agent NAME [-- CMD [ARG]...]] [--session ID | --resume] [-c CMD]...\n")
	for _, c := range subcommands {
		for i, l := range usageLines(c.help) {
			if i == 0 && c.note != "" {
				l += "   " + c.note
			}
			b.WriteString("       " + l + "\n")
		}
	}
	b.WriteString("       (todosh SUBCOMMAND --help says more)\n")
	b.WriteString(usageText)
	return b.String()
}

const usageText = `
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
// flag.ErrHelp means --help was printed on stdout. terminal says stdin and
// stdout are a terminal, where the default agent is the demo.
func parseFlags(args []string, stdout io.Writer, getenv func(string) string, terminal bool) (repl.Config, error) {
	cfg := repl.NewConfig()
	// Errors are returned and printed as one line by run, not with the
	// whole usage; only --help prints it.
	fs := newFlagSet("todosh")

	// Session and script flags.
	fs.StringVar(&cfg.SessionID, "session", "", "open (or create) the session `ID`")
	fs.BoolVar(&cfg.Resume, "resume", false, "reopen the session of this directory changed most recently")
	shortFlag(fs, "c", "run `CMD` as if typed, then exit (repeatable, runs in order)", func(s string) error {
		cfg.Commands = append(cfg.Commands, s)
		return nil
	})

	// Agent flags, shared with `todosh acp` (agentflags.go); the backend
	// table (backends) checks and starts the chosen agent from them.
	ag := defineAgentFlags(fs, getenv, false)
	fs.DurationVar(&cfg.ContinueDelay, "continue-delay", cfg.ContinueDelay, "countdown before a continuation in a terminal")

	// Output flags.
	fs.StringVar(&cfg.Color, "color", repl.ColorAuto, "colour: `WHEN` is auto (a terminal without NO_COLOR or TERM=dumb), always or never")
	fs.BoolVar(&cfg.Quiet, "quiet", false, "print only errors and what /todo show and /todo list are asked for")
	fs.StringVar(&cfg.Output, "output", repl.OutputText, "`FORMAT` of a script's output: text, or jsonl (one JSON event per line, see docs/events.md)")
	var version bool
	fs.BoolVar(&version, "version", false, "print the version and exit")

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage())
			printFlags(stdout, fs)
			fmt.Fprint(stdout, "\nagents (--agent NAME) [what todosh's list can do with them]:\n"+backends.Help())
			return cfg, err
		}
		return cfg, flagError(fs, err)
	}
	if version {
		fmt.Fprintln(stdout, versionText())
		return cfg, flag.ErrHelp
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
	ag.opts.Interactive = terminal && len(cfg.Commands) == 0 && cfg.Output == repl.OutputText
	var err error
	if cfg.Backend, cfg.NewAgent, err = ag.choose(fs, checkAfterDashes, "give commands and prompts with -c, or on stdin"); err != nil {
		return cfg, err
	}
	cfg.NoContinue, cfg.LockTimeout, cfg.Budget = ag.noContinue, ag.lockTimeout, ag.budget
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

// shellFlags are todosh's own flags that no agent command takes for the
// same thing: after `--` they are a mistake (the agent gets them, and
// todosh runs nothing). -c counts only with a value that is no key=value
// (codex-acp takes -c key=value).
var shellFlags = map[string]bool{"c": true, "session": true, "resume": true, "output": true, "no-continue": true}

// checkAfterDashes refuses `--` followed by todosh's own flags, which
// would go to the agent's command: "--agent acp -- -c PROMPT" has no
// command, "--agent acp -- CMD -c PROMPT" gives the prompt to CMD.
func checkAfterDashes(rest []string) error {
	if strings.HasPrefix(rest[0], "-") {
		return fmt.Errorf("after --: want the agent's command, got %q; todosh's own flags go before -- (todosh --agent acp -c PROMPT -- CMD)", rest[0])
	}
	for i, a := range rest[1:] {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || !shellFlags[name] {
			continue
		}
		if name == "c" {
			if !hasValue && i+2 < len(rest) {
				value = rest[i+2]
			}
			if strings.Contains(value, "=") && !strings.Contains(value, " ") {
				continue // codex-acp's -c key=value
			}
		}
		return fmt.Errorf("%s after -- goes to the agent's command %s, not to todosh: put it before -- (todosh --agent acp %s ... -- %s ...)", a, rest[0], a, rest[0])
	}
	return nil
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
