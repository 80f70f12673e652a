package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/board"
	"github.com/todosh/todosh/board/boardcmd"
	"github.com/todosh/todosh/hooks"
	"github.com/todosh/todosh/repl"
	"github.com/todosh/todosh/todostore"
)

// boardUsage is `todosh board --help`.
const boardUsage = `usage: todosh board [--board-url URL] [--as SESSION] COMMAND [ARG]...

The project's shared board: items that sessions, agents and people claim
and finish (docs/board.md). The board is .todosh/board/ in this checkout
(shared through git), or the PostgreSQL database at --board-url or
$TODOSH_BOARD_URL. A claim is made as $TODOSH_SESSION (set by todosh for
the agents it runs), or as the mirror session of an agent with todosh's
hooks (Claude Code's $CLAUDE_CODE_SESSION_ID), whose claimed item then
joins that session's list; else as --as, else as $USER.

commands:
`

// runBoard is `todosh board`: flags and wiring of boardcmd, which the
// shell's /board runs too.
func runBoard(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 || args[0] == "--help" || args[0] == "-h" || args[0] == "help" {
		fmt.Fprint(stdout, boardUsage+boardcmd.Usage("todosh board"))
		return repl.ExitOK
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "todosh board: find the current directory: %v\n", err)
		return repl.ExitFailed
	}
	exe, _ := os.Executable()
	env := &boardcmd.Env{
		Cwd: cwd, Getenv: getenv, In: stdin, Out: stdout, Err: stderr, Exe: exe,
		Terminal: repl.IsTerminal(stdout),
	}
	// An agent todosh runs claims as its session, and the item joins
	// that session's list; so does an agent with todosh's hooks (its
	// mirror session, whose list the hooks show it and keep).
	id, agentName := getenv(agent.SessionEnv), "agent"
	if todostore.ValidSessionID(id) != nil {
		id, agentName, _ = hooks.AgentSession(getenv)
	}
	if id != "" {
		env.Who = board.Who{Session: id, Agent: agentName}
		if root, err := todostore.ResolveRoot(getenv); err == nil {
			env.Link = boardcmd.LinkInto(todostore.Open(root), id, cwd, todolist.ByAgent)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	err = boardcmd.Run(ctx, env, args)
	if err == nil {
		return repl.ExitOK
	}
	// args is not empty: without a command runBoard printed its usage.
	fmt.Fprintf(stderr, "todosh board %s: %v\n", args[0], err)
	var xe *boardcmd.ExitError
	if errors.As(err, &xe) && xe.Code == 2 {
		return repl.ExitUsage
	}
	return repl.ExitFailed
}
