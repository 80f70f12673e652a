package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/chzyer/readline"

	"github.com/todosh/todosh/doctor"
	"github.com/todosh/todosh/repl"
	"github.com/todosh/todosh/todostore"
)

// doctorUsage is the first part of `todosh doctor --help`.
const doctorUsage = `usage: todosh doctor [--agent NAME [--agent-bin PATH]] [--output text|jsonl]

Prints one screen to paste into a bug report: each agent (found or not,
where, its version, the todo tools and todosh's MCP tools it will have),
the ACP adapters, TODOSH_HOME (writable, modes, sessions, size) and the
terminal. The exit status is 0 when everything --agent NAME needs is
there, else 1, and each problem comes with its fix. It changes nothing.

flags:
`

// runDoctor is `todosh doctor`.
func runDoctor(args []string, _ io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := newFlagSet("todosh doctor")
	var o doctor.Options
	var output string
	fs.StringVar(&o.Agent, "agent", "", "check what agent `NAME` needs (default: the agent todosh would choose)")
	fs.StringVar(&o.Bin, "agent-bin", "", "the agent's executable `PATH`, as for todosh --agent-bin")
	fs.StringVar(&output, "output", repl.OutputText, "`FORMAT`: text, or jsonl (the same as one JSON object)")
	if exit, ok := parseSubcommand(fs, args, doctorUsage, stdout, stderr); !ok {
		return exit
	}
	switch {
	case output != repl.OutputText && output != repl.OutputJSONL:
		fmt.Fprintf(stderr, "todosh doctor: --output %q: want text or jsonl\n", output)
		return repl.ExitUsage
	case o.Bin != "" && o.Agent == "":
		fmt.Fprintln(stderr, "todosh doctor: --agent-bin goes with --agent NAME (the agent it starts)")
		return repl.ExitUsage
	}
	root, err := todostore.ResolveRoot(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "todosh doctor: %v\n", err)
		return repl.ExitFailed
	}
	o.Root, o.Getenv, o.Version = root, getenv, strings.TrimPrefix(versionText(), "todosh ")
	o.Self, _ = os.Executable()
	if f, ok := stdout.(*os.File); ok && readline.IsTerminal(int(f.Fd())) {
		o.TTY = true
		o.Width, _, _ = readline.GetSize(int(f.Fd()))
	}
	r := doctor.Run(o)
	if output == repl.OutputJSONL {
		if err := r.WriteJSON(stdout); err != nil {
			fmt.Fprintf(stderr, "todosh doctor: %v\n", err)
			return repl.ExitFailed
		}
	} else {
		r.WriteText(stdout)
	}
	if !r.OK {
		return repl.ExitFailed
	}
	return repl.ExitOK
}
