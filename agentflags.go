package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/todosh/todosh/backends"
	"github.com/todosh/todosh/continuation"
	"github.com/todosh/todosh/todostore"
)

// agentFlags are the values of the agent flags, which the shell and
// `todosh acp` share: the same names, defaults, help and checks, from
// agentFlagTable.
type agentFlags struct {
	spec        string // --agent
	opts        backends.Options
	noContinue  bool
	lockTimeout time.Duration
	budget      continuation.Budget // --budget-tokens, --budget-time
}

// agentFlag is one row of agentFlagTable: its name, its help (the
// placeholder in backquotes), what --help adds of the entry's own (the
// default differs between the shell and an editor's server), and the
// definition that binds it to its field of agentFlags with its default.
type agentFlag struct {
	name      string
	help      string
	shellNote string
	acpNote   string
	define    func(fs *flag.FlagSet, name, usage string, a *agentFlags)
}

// agentFlagTable is the one list of agent flags, in --help's order.
var agentFlagTable = []agentFlag{
	{name: "agent", help: "the agent behind todosh, by `NAME`, listed below",
		shellNote: "default: acp with -- CMD; openai when OPENAI_BASE_URL or OPENAI_API_KEY is set; else demo in a terminal and none in a script",
		acpNote:   "default: acp with -- CMD; openai when OPENAI_BASE_URL or OPENAI_API_KEY is set; else none",
		define:    func(fs *flag.FlagSet, n, u string, a *agentFlags) { fs.StringVar(&a.spec, n, "", u) }},
	{name: "agent-bin", help: "`PATH` of the agent's executable (default: the backend's own, found on PATH)",
		define: func(fs *flag.FlagSet, n, u string, a *agentFlags) { fs.StringVar(&a.opts.Bin, n, "", u) }},
	{name: "agent-arg", help: "pass `ARG` to the agent's executable (repeatable)",
		define: func(fs *flag.FlagSet, n, u string, a *agentFlags) {
			fs.Func(n, u, func(s string) error {
				a.opts.Args = append(a.opts.Args, s)
				return nil
			})
		}},
	{name: "base-url", help: "OpenAI-compatible API `URL` for --agent openai (default $OPENAI_BASE_URL, else Ollama's " + backends.DefaultBaseURL + ")",
		define: func(fs *flag.FlagSet, n, u string, a *agentFlags) { fs.StringVar(&a.opts.BaseURL, n, "", u) }},
	{name: "model", help: "model `NAME` for --agent openai (default $TODOSH_MODEL)",
		define: func(fs *flag.FlagSet, n, u string, a *agentFlags) { fs.StringVar(&a.opts.Model, n, "", u) }},
	{name: "connect-timeout", help: "give up connecting to the model API after this long",
		define: func(fs *flag.FlagSet, n, u string, a *agentFlags) {
			fs.DurationVar(&a.opts.ConnectTimeout, n, backends.DefaultConnectTimeout, u)
		}},
	{name: "idle-timeout", help: "give up on a model API reply when the server sends nothing for this long",
		define: func(fs *flag.FlagSet, n, u string, a *agentFlags) {
			fs.DurationVar(&a.opts.IdleTimeout, n, backends.DefaultIdleTimeout, u)
		}},
	{name: "idle-limit", help: "stop an agent CLI's turn after it wrote nothing for this long (0: never)",
		define: func(fs *flag.FlagSet, n, u string, a *agentFlags) {
			fs.DurationVar(&a.opts.IdleLimit, n, backends.DefaultIdleLimit, u)
		}},
	{name: "require-evidence", help: "refuse to complete a todo without evidence (todosh's own todo tools)",
		define: func(fs *flag.FlagSet, n, u string, a *agentFlags) { fs.BoolVar(&a.opts.RequireEvidence, n, false, u) }},
	{name: "approve", help: "answer an ACP agent's permission requests: `WHEN` is ask, never or always",
		shellNote: "default: ask in a terminal, never in a script",
		acpNote:   "default: ask, through the editor",
		define:    func(fs *flag.FlagSet, n, u string, a *agentFlags) { fs.StringVar(&a.opts.Approve, n, "", u) }},
	{name: "no-continue", help: "never continue a lazy agent by itself",
		define: func(fs *flag.FlagSet, n, u string, a *agentFlags) { fs.BoolVar(&a.noContinue, n, false, u) }},
	{name: "budget-tokens", help: "stop continuing a prompt once its turns spent `N` tokens, input and output, as the agent reports them (only agents that report usage; /todo budget +N raises it)",
		define: func(fs *flag.FlagSet, n, u string, a *agentFlags) { fs.Int64Var(&a.budget.Tokens, n, 0, u) }},
	{name: "budget-time", help: "stop continuing a prompt once its turns took this long (/todo budget +DURATION raises it)",
		define: func(fs *flag.FlagSet, n, u string, a *agentFlags) { fs.DurationVar(&a.budget.Time, n, 0, u) }},
	{name: "lock-timeout", help: "how long a change waits for another todosh that holds the session's lock",
		define: func(fs *flag.FlagSet, n, u string, a *agentFlags) {
			fs.DurationVar(&a.lockTimeout, n, todostore.DefaultLockTimeout, u)
		}},
}

// defineAgentFlags adds every agent flag to fs, with the notes of the
// shell or of `todosh acp`, and returns where their values land.
func defineAgentFlags(fs *flag.FlagSet, getenv func(string) string, acp bool) *agentFlags {
	a := &agentFlags{opts: backends.Options{Getenv: getenv}}
	for _, f := range agentFlagTable {
		usage, note := f.help, f.shellNote
		if acp {
			note = f.acpNote
		}
		if note != "" {
			usage += " (" + note + ")"
		}
		f.define(fs, f.name, usage, a)
	}
	return a
}

// choose checks the agent flags after fs.Parse and picks the
// backend row as the shell and `todosh acp` both do: `-- CMD ARGS...` is
// --agent-bin CMD --agent-arg ARGS... (and --agent acp when no --agent is
// given), each flag given must go with the chosen row. afterDashes checks
// what follows `--` (nil: nothing to check); stray is the hint for an
// argument without `--`.
func (a *agentFlags) choose(fs *flag.FlagSet, afterDashes func([]string) error, stray string) (*backends.Backend, backends.Factory, error) {
	hasDashes := fs.NArg() > 0 && fs.ArgsLenAtDash() == 0 // "--" ended the flags
	var given []backends.Flag
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "agent" && backends.IsAgentFlag(f.Name) {
			given = append(given, backends.Flag("--"+f.Name))
		}
	})
	switch {
	case hasDashes && (a.opts.Bin != "" || len(a.opts.Args) > 0):
		return nil, nil, errors.New("give the agent's command either after -- or with --agent-bin and --agent-arg, not both")
	case hasDashes:
		if afterDashes != nil {
			if err := afterDashes(fs.Args()); err != nil {
				return nil, nil, err
			}
		}
		a.opts.Bin, a.opts.Args = fs.Arg(0), fs.Args()[1:]
		given = append(given, backends.FlagBin)
		if a.spec == "" {
			a.spec = "acp"
		}
	case fs.NArg() > 0:
		return nil, nil, fmt.Errorf("unexpected argument %q: %s", strings.Join(fs.Args(), " "), stray)
	}
	if a.lockTimeout <= 0 {
		return nil, nil, fmt.Errorf("--lock-timeout %s: give a positive duration such as 30s", a.lockTimeout)
	}
	if err := continuation.CheckBudget(a.budget); err != nil {
		return nil, nil, err
	}
	return backends.Choose(a.spec, given, a.opts)
}
