package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/todosh/todosh/board/boardcmd"
	"github.com/todosh/todosh/mcpserver"
	"github.com/todosh/todosh/repl"
	"github.com/todosh/todosh/todostore"
)

// mcpUsage is the first part of `todosh mcp --help`.
const mcpUsage = `usage: todosh mcp [--session ID] [--require-evidence]

Serves todosh's todo tools (todo_write, todo_read, todo_tick, todo_pause)
and the project board's (board_ready, board_claim, board_done; see
docs/board.md) over MCP on stdin and stdout, for any MCP client. The session is --session,
else $TODOSH_SESSION (set by todosh for every agent it starts), else the most
recent session started in this directory, else a new one. A todosh shell open
on the session shows every change as it happens.

flags:
`

// runMCP is `todosh mcp`: a second entry of the same binary that serves
// the store over MCP until the client closes stdin.
func runMCP(args []string, _ io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := newFlagSet("todosh mcp")
	var cfg mcpserver.Config
	fs.StringVar(&cfg.SessionID, "session", "", "serve the session `ID`")
	fs.BoolVar(&cfg.RequireEvidence, "require-evidence", false, "refuse to complete a todo without evidence")
	if exit, ok := parseSubcommand(fs, args, mcpUsage, stdout, stderr); !ok {
		return exit
	}
	if cfg.SessionID != "" {
		if err := todostore.ValidSessionID(cfg.SessionID); err != nil {
			fmt.Fprintf(stderr, "todosh mcp: --session: %v\n", err)
			return repl.ExitUsage
		}
	}
	root, err := todostore.ResolveRoot(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "todosh mcp: %v\n", err)
		return repl.ExitFailed
	}
	if cfg.Cwd, err = os.Getwd(); err != nil {
		fmt.Fprintf(stderr, "todosh mcp: find the current directory: %v\n", err)
		return repl.ExitFailed
	}
	cfg.Store, cfg.Getenv, cfg.Version = todostore.Open(root), getenv, "1"
	cfg.Board = &boardcmd.Tools{Getenv: getenv, Cwd: cfg.Cwd}
	boardcmd.Follow(cfg.Store, &boardcmd.Follower{Getenv: getenv, Err: stderr})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := mcpserver.Serve(ctx, cfg, &mcpserver.Stdio{In: os.Stdin, Out: os.Stdout}); err != nil {
		fmt.Fprintf(stderr, "todosh mcp: %v\n", err)
		return repl.ExitFailed
	}
	return repl.ExitOK
}
