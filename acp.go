package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/todosh/todosh/acpserve"
	"github.com/todosh/todosh/backends"
	"github.com/todosh/todosh/repl"
	"github.com/todosh/todosh/todostore"
)

// acpUsage is the first part of `todosh acp --help`.
const acpUsage = `usage: todosh acp [--agent NAME] [flags] [-- CMD [ARG]...]

Speaks the Agent Client Protocol as an agent on stdin and stdout, for an
editor (Zed, JetBrains, Neovim CodeCompanion, acpx: see docs/editors.md),
and runs the agent --agent NAME behind it (any backend below; -- CMD ARGS
runs any ACP agent). The editor gets todosh's todo list as its plan on
every change, /todo answered by todosh, and continuation of a lazy agent
inside the same prompt. Messages for people go to stderr only.

flags:
`

// runACP is `todosh acp`: the third entry of the same binary, serving an
// editor until it closes stdin.
func runACP(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	cfg, err := parseACPFlags(args, stdout, getenv)
	if errors.Is(err, flag.ErrHelp) {
		return repl.ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "todosh acp: %v (see todosh acp --help)\n", gnuFlagError(err))
		return repl.ExitUsage
	}
	if cfg.Root, err = todostore.ResolveRoot(getenv); err != nil {
		fmt.Fprintf(stderr, "todosh acp: %v\n", err)
		return repl.ExitFailed
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := acpserve.Serve(ctx, cfg, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "todosh acp: %v\n", err)
		return repl.ExitFailed
	}
	return repl.ExitOK
}

// parseACPFlags turns `todosh acp`'s command line into the server's
// configuration, with the inner agent chosen from the backend table as
// the shell chooses it; nothing is started. flag.ErrHelp means --help was
// printed on stdout.
func parseACPFlags(args []string, stdout io.Writer, getenv func(string) string) (acpserve.Config, error) {
	fs := newFlagSet("todosh acp")
	cfg := acpserve.Config{Getenv: getenv, Home: getenv("HOME"), Version: versionText()}
	var (
		spec       string
		noContinue bool
		ag         = backends.Options{Getenv: getenv, ConnectTimeout: backends.DefaultConnectTimeout, IdleTimeout: backends.DefaultIdleTimeout}
	)
	fs.StringVar(&spec, "agent", "", "the agent behind todosh, by `NAME` (below; with -- CMD the default is acp)")
	fs.StringVar(&ag.Bin, "agent-bin", "", "`PATH` of the agent's executable")
	fs.Func("agent-arg", "pass `ARG` to the agent's executable (repeatable)", func(s string) error {
		ag.Args = append(ag.Args, s)
		return nil
	})
	fs.StringVar(&ag.BaseURL, "base-url", "", "OpenAI-compatible API `URL` for --agent openai")
	fs.StringVar(&ag.Model, "model", "", "model `NAME` for --agent openai")
	fs.BoolVar(&ag.RequireEvidence, "require-evidence", false, "refuse to complete a todo without evidence (todosh's own todo tools)")
	fs.DurationVar(&ag.IdleLimit, "idle-limit", backends.DefaultIdleLimit, "stop an agent CLI's turn after it wrote nothing for this long (0: never)")
	fs.StringVar(&ag.Approve, "approve", "", "answer an ACP agent's permission requests: `WHEN` is never or always (default: the editor asks)")
	fs.BoolVar(&noContinue, "no-continue", false, "never continue a lazy agent by itself")
	fs.DurationVar(&cfg.LockTimeout, "lock-timeout", repl.NewConfig().LockTimeout, "how long a change waits for another todosh that holds the session's lock")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, acpUsage)
			printFlags(stdout, fs)
			fmt.Fprint(stdout, "\nagents (--agent NAME):\n"+backends.Help())
		}
		return cfg, err
	}
	cfg.Continue = !noContinue
	// `-- CMD ARGS...` is --agent-bin CMD --agent-arg ARGS..., as in the shell.
	dashes := len(args) - fs.NArg() - 1
	afterDashes := fs.NArg() > 0 && dashes >= 0 && args[dashes] == "--"
	var given []backends.Flag
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "agent" && backends.IsAgentFlag(f.Name) {
			given = append(given, backends.Flag("--"+f.Name))
		}
	})
	switch {
	case afterDashes && (ag.Bin != "" || len(ag.Args) > 0):
		return cfg, errors.New("give the agent's command either after -- or with --agent-bin and --agent-arg, not both")
	case afterDashes:
		ag.Bin, ag.Args = fs.Arg(0), fs.Args()[1:]
		given = append(given, backends.FlagBin)
		if spec == "" {
			spec = "acp"
		}
	case fs.NArg() > 0:
		return cfg, fmt.Errorf("unexpected argument %q: give the agent's command after -- (todosh acp -- CMD ARGS)", strings.Join(fs.Args(), " "))
	}
	if cfg.LockTimeout <= 0 {
		return cfg, fmt.Errorf("--lock-timeout %s: give a positive duration such as 30s", cfg.LockTimeout)
	}
	var err error
	cfg.Backend, cfg.NewAgent, err = backends.Choose(spec, given, ag)
	return cfg, err
}
