package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/todosh/todosh/board/boardcmd"
	"github.com/todosh/todosh/hooks"
	"github.com/todosh/todosh/repl"
	"github.com/todosh/todosh/todostore"
)

// hooksUsage is `todosh hooks --help`.
var hooksUsage = `usage: todosh hooks install AGENT [--project] [--budget-tokens N]
       todosh hooks uninstall AGENT [--project]
       todosh hooks status

Puts todosh inside an agent's own interface through the agent's hooks: a
lazy agent is continued while its todo list has open items (at most 3
times in a row without progress, 20 times per prompt), its own todo tool is
mirrored into todosh's session "AGENT-<its session id>", and your /todo
edits there reach it at its next prompt. AGENT is one of ` + strings.Join(hooks.Names(), ", ") + `.

install merges todosh's entries into the agent's settings file (yours, or
the repository's in the current directory with --project), keeping
everything else (comments, line ends, owner and mode); uninstall removes
exactly them. status says what is installed and what each hook still
needs to run, with the command that fixes it. Each entry runs
"todosh hook AGENT EVENT" by this todosh's path. --budget-tokens N makes
the stop gate let the agent stop once the person's prompt spent N tokens,
as the agent's transcript counts them (Claude Code). TODOSH_HOOKS=off turns
them off for one run; inside agents todosh runs itself they do nothing.
See docs/hooks.md.
`

// runHooks is `todosh hooks ...`: install, uninstall and status.
func runHooks(args []string, _ io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "todosh hooks: "+format+" (see todosh hooks --help)\n", a...)
		return repl.ExitUsage
	}
	fs := newFlagSet("todosh hooks")
	fs.SetInterspersed(true) // todosh hooks install claude --project
	var project bool
	fs.BoolVar(&project, "project", false, "the project's settings (./.claude, ./.gemini...) instead of your own")
	var budget int64
	fs.Int64Var(&budget, hooks.BudgetFlag[2:], 0, "install: the stop gate's token budget per prompt (claude)")
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, hooksUsage)
		return repl.ExitOK
	case err != nil:
		return fail("%v", flagError(fs, err))
	}
	pos := fs.Args()
	if len(pos) == 0 {
		return fail("missing command: install, uninstall or status")
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "todosh hooks: find the current directory: %v\n", err)
		return repl.ExitFailed
	}
	home, err := todostore.HomeDir(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "todosh hooks: find your home directory: %v (set HOME)\n", err)
		return repl.ExitFailed
	}
	scope := hooks.ScopeUser
	if project {
		scope = hooks.ScopeProject
	}
	switch cmd := pos[0]; cmd {
	case "status":
		if len(pos) > 1 || project {
			return fail("status takes no argument")
		}
		if why := hooks.Off(getenv); why != "" {
			fmt.Fprintf(stdout, "hooks do nothing in this environment (%s)\n", why)
		}
		for _, a := range hooks.Agents() {
			for _, r := range hookReports(a, home, cwd, getenv) {
				fmt.Fprintln(stdout, r.Line())
			}
		}
		return repl.ExitOK
	case "install", "uninstall":
		if len(pos) != 2 {
			return fail("%s takes one agent: %s", cmd, strings.Join(hooks.Names(), ", "))
		}
		a, err := hooks.Lookup(pos[1])
		if err != nil {
			return fail("%s: %v", cmd, err)
		}
		if budget != 0 && cmd != "install" {
			return fail("%s goes with install", hooks.BudgetFlag)
		}
		if a, err = a.WithBudget(budget); err != nil {
			return fail("install %s: %v", a.Name, err)
		}
		path := a.Path(scope, home, cwd, getenv)
		rec, err := hooksRecord(getenv)
		if err != nil {
			fmt.Fprintf(stderr, "todosh hooks %s %s: %v\n", cmd, a.Name, err)
			return repl.ExitFailed
		}
		// said tells what install or uninstall did to the file, or that
		// it had nothing to do.
		said := func(changed bool, did, unchanged string) {
			if !changed {
				did = unchanged
			}
			fmt.Fprintf(stdout, did, a.Title, path)
		}
		if cmd == "uninstall" {
			changed, err := hooks.Uninstall(path, a, rec)
			if err != nil {
				fmt.Fprintf(stderr, "todosh hooks uninstall %s: %v%s\n", a.Name, err, unchanged(err, ""))
				return repl.ExitFailed
			}
			said(changed, "removed todosh's hooks for %s from %s\n", "no todosh hooks for %s in %s\n")
			return repl.ExitOK
		}
		exe, err := os.Executable()
		if err == nil {
			exe, err = filepath.EvalSymlinks(exe)
		}
		if err != nil {
			fmt.Fprintf(stderr, "todosh hooks install %s: find todosh's own path: %v\n", a.Name, err)
			return repl.ExitFailed
		}
		changed, err := hooks.Install(path, a, exe, rec)
		if err != nil {
			fmt.Fprintf(stderr, "todosh hooks install %s: %v%s\n", a.Name, err, unchanged(err, "; fix it and run again"))
			return repl.ExitFailed
		}
		said(changed, "installed todosh's hooks for %s in %s\n", "todosh's hooks for %s are already in %s\n")
		if changed && a.AsksTrust() {
			// Status reads only whether Codex recorded trust for each
			// entry, not for which command: a changed one is asked again.
			fmt.Fprintf(stdout, "next: %s runs new or changed hooks only after you trust them in its hook review (start %s once)\n", a.Title, a.Name)
		}
		for _, r := range hookReports(a, home, cwd, getenv) {
			if r.Scope != scope {
				continue
			}
			for _, t := range r.Todo() {
				fmt.Fprintf(stdout, "next: %s\n", t)
			}
		}
		return repl.ExitOK
	default:
		return fail("unknown command %q: want install, uninstall or status", cmd)
	}
}

// unchanged is what an install or uninstall error adds: that the file is
// as it was, and what to do, unless the error says so itself (a file
// another program kept saving).
func unchanged(err error, fix string) string {
	if errors.Is(err, hooks.ErrBusy) {
		return ""
	}
	return " (the file is unchanged" + fix + ")"
}

// hooksRecord is where install keeps what it found at the settings files
// it had to create or fill, in todosh's home.
func hooksRecord(getenv func(string) string) (hooks.Record, error) {
	root, err := todostore.ResolveRoot(getenv)
	if err != nil {
		return "", err
	}
	return hooks.Record(todostore.Open(root).HooksFilesPath()), nil
}

// hookReports are the agent's settings files, user then project, as
// `todosh hooks status` reports them, with what their hooks need at run
// time checked (hooks.Reports).
func hookReports(a hooks.Agent, home, cwd string, getenv func(string) string) []hooks.Report {
	root, _ := todostore.ResolveRoot(getenv)
	return hooks.Reports(a, hooks.Env{Home: home, Cwd: cwd, Getenv: getenv, Store: root})
}

// runHook is `todosh hook AGENT EVENT`, the command the installed entries
// run. It is never in the way of the agent: whatever happens it exits 0,
// and an error is one line on stderr with nothing on stdout.
func runHook(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	name, kind, budget, err := hooks.ParseHookArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "todosh hook: %v, got %q (the entries todosh hooks install writes are right; reinstall them)\n", err, strings.Join(args, " "))
		return repl.ExitOK
	}
	root, err := todostore.ResolveRoot(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "todosh hook %s %s: %v\n", name, kind, err)
		return repl.ExitOK
	}
	store := todostore.Open(root)
	// An item the agent claimed from the board finishes there when the
	// agent completes it in its own todo tool.
	boardcmd.Follow(store, &boardcmd.Follower{Getenv: getenv, Err: stderr})
	return hooks.Run(hooks.Config{Store: store, Getenv: getenv, BudgetTokens: budget}, name, kind, stdin, stdout, stderr)
}
