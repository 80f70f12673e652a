// Package mcpserver is `todosh mcp`: todosh's todo tools (todo_write,
// todo_read, todo_tick, todo_pause) served over MCP on stdio to any MCP
// client, through the same implementation the model-API backend calls
// (agent/todotools) and on the same store, so a todosh shell open on the
// session shows every change live.
//
// The protocol is the official MCP Go SDK's server (handshake, version
// negotiation, ping, tools/list, tools/call, notifications); todosh adds
// the tools, generically from todotools' table, and the stdio transport
// (stdio.go), which answers a bad frame instead of ending the session and
// answers every call read before the end of input (ARCHITECTURE.md §2).
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/todotools"
	"github.com/todosh/todosh/todostore"
)

// Config is what `todosh mcp` takes from its flags and environment.
type Config struct {
	Store *todostore.Store
	// SessionID is --session; "" resolves the session (ResolveSession).
	SessionID string
	// Cwd is recorded in a session the server writes that has none yet,
	// and picks the most recent session when none is named.
	Cwd string
	// RequireEvidence is --require-evidence.
	RequireEvidence bool
	// Getenv reads agent.SessionEnv; nil means none is set.
	Getenv func(string) string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Version is reported to the client.
	Version string
	// Board serves the board tools (board_ready, board_claim,
	// board_done); nil offers none.
	Board todotools.Board
}

func (c Config) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// ResolveSession picks the session the server serves: --session, else
// $TODOSH_SESSION, else the session of the directory changed most recently, else a
// new one.
func ResolveSession(cfg Config) (string, error) {
	if cfg.SessionID != "" {
		return cfg.SessionID, checkID("--session", cfg.SessionID)
	}
	if cfg.Getenv != nil {
		if id := cfg.Getenv(agent.SessionEnv); id != "" {
			return id, checkID("$"+agent.SessionEnv, id)
		}
	}
	if id, err := cfg.Store.MostRecentIn(cfg.Cwd); err == nil {
		return id, nil
	}
	// MostRecentIn failed: no session of this directory, or a store that
	// cannot be listed, which must not pass for "none".
	if _, err := cfg.Store.List(); err != nil {
		return "", fmt.Errorf("find the session of %s: %w", cfg.Cwd, err)
	}
	return todostore.NewSessionID(cfg.now()), nil
}

func checkID(from, id string) error {
	if err := todostore.ValidSessionID(id); err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	return nil
}

// New returns the MCP server for one session: every tool of todotools'
// table, with its own schema and description, each handled by
// todotools.Tools.Call, so a tool added to the table is served with no
// change here.
func New(cfg Config, sessionID string) *mcp.Server {
	tools := &todotools.Tools{
		// The cwd goes in the same write as the first change, so no call
		// reloads the session to see whether it is recorded.
		Session:         agent.Session{Store: cfg.Store, ID: sessionID, Cwd: cfg.Cwd},
		RequireEvidence: cfg.RequireEvidence,
		Board:           cfg.Board,
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: agent.MCPName, Title: "todosh todo list", Version: cfg.Version},
		&mcp.ServerOptions{Instructions: instructions(sessionID)})
	for _, spec := range tools.Specs() {
		srv.AddTool(&mcp.Tool{
			Name:        spec.Name,
			Description: spec.Description,
			InputSchema: json.RawMessage(spec.Parameters),
		}, handler(tools, spec.Name))
	}
	return srv
}

// instructions tell the client's model what the tools are for.
func instructions(id string) string {
	return "todosh keeps this session's todo list (session " + id + ") on disk, where the person sees and edits it. " +
		"Plan multi-step work with " + todotools.Write + ", keep statuses current as you go, tick subtasks with " +
		todotools.Tick + ", and call " + todotools.Pause + " when you cannot go on without the person."
}

// handler runs one tool through todotools. A broken rule or bad
// arguments come back as a tool error the model can act on (isError),
// never as a protocol error, and change nothing.
func handler(tools *todotools.Tools, name string) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args []byte
		if req.Params != nil {
			args = req.Params.Arguments
		}
		if string(bytes.TrimSpace(args)) == "null" {
			args = nil
		}
		out := tools.Call(name, args)
		return &mcp.CallToolResult{
			Content: []mcp.Content{&mcp.TextContent{Text: out.Result}},
			IsError: out.IsError,
		}, nil
	}
}
