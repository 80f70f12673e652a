// Package mcpserver is `todosh mcp`: todosh's todo tools (todo_write,
// todo_read, todo_tick, todo_pause) served over MCP on stdio to any MCP
// client, through the same implementation the model-API backend calls
// (agent/todotools) and on the same store, so a todosh shell open on the
// session shows every change live.
//
// The server is todosh's own small JSON-RPC server (initialize, ping,
// tools/list, tools/call and two notifications), not the MCP Go SDK's:
// linking the SDK cost every start of the binary about 2 ms (its package
// initialisation and size), and every tool call a schema validation. The
// SDK's client checks it in the tests (ARCHITECTURE.md §2).
package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

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

// ProtocolVersions are the MCP versions the server speaks, newest first:
// those of the initialize handshake, as the MCP Go SDK's server answers
// it. A client asking for one of them gets it; any other (an older one,
// or 2026-07-28, whose stateless server/discover todosh does not serve)
// gets the first.
var ProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Server serves one session's todo tools to one client, a message at a
// time (Handle); the transport (stdio.go) reads and writes the frames.
type Server struct {
	tools        *todotools.Tools
	names        []string        // the tools, for tools/call
	list         json.RawMessage // the tools/list result, built once
	info         implementation
	instructions string
	initialized  bool // initialize was answered
}

// implementation is MCP's Implementation: who the server is.
type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// New returns the server for one session: the todo tools of todotools,
// with their own schemas and descriptions.
func New(cfg Config, sessionID string) *Server {
	tools := &todotools.Tools{
		// The cwd goes in the same write as the first change, so no call
		// reloads the session to see whether it is recorded.
		Session:         agent.Session{Store: cfg.Store, ID: sessionID, Cwd: cfg.Cwd},
		RequireEvidence: cfg.RequireEvidence,
		Now:             cfg.Now,
	}
	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	var list struct {
		Tools []tool `json:"tools"`
	}
	s := &Server{
		tools:        tools,
		info:         implementation{Name: agent.MCPName, Title: "todosh todo list", Version: cfg.Version},
		instructions: instructions(sessionID),
	}
	for _, spec := range tools.Specs() {
		s.names = append(s.names, spec.Name)
		list.Tools = append(list.Tools, tool{spec.Name, spec.Description, spec.Parameters})
	}
	s.list = mustMarshal(list)
	return s
}

// instructions tell the client's model what the tools are for.
func instructions(id string) string {
	return "todosh keeps this session's todo list (session " + id + ") on disk, where the person sees and edits it. " +
		"Plan multi-step work with " + todotools.Write + ", keep statuses current as you go, tick subtasks with " +
		todotools.Tick + ", and call " + todotools.Pause + " when you cannot go on without the person."
}

// rpcError is a JSON-RPC error a method answers with.
type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func invalidParams(format string, args ...any) *rpcError {
	return &rpcError{CodeInvalidParams, fmt.Sprintf(format, args...)}
}

// method is one row of the methods the server serves.
type method struct {
	name string
	// notification: the client sends it without an id and gets no reply.
	notification bool
	// early: it may come before initialize.
	early bool
	// run answers a call (result or error), or handles a notification.
	run func(s *Server, params json.RawMessage) (any, *rpcError)
}

// methods is the one table of what the server serves; every other method
// is answered CodeMethodNotFound, every other notification ignored.
var methods = []method{
	{name: "initialize", early: true, run: (*Server).initialize},
	{name: "ping", early: true, run: func(*Server, json.RawMessage) (any, *rpcError) { return struct{}{}, nil }},
	{name: "tools/list", run: func(s *Server, _ json.RawMessage) (any, *rpcError) { return s.list, nil }},
	{name: "tools/call", run: (*Server).call},
	// Calls run one at a time and are answered before the next frame is
	// read, so the call a cancellation names has been answered already.
	{name: "notifications/cancelled", notification: true, early: true, run: nil},
	{name: "notifications/initialized", notification: true, run: nil},
}

// Handle carries out one message and returns the reply frame (without the
// newline), or nil when there is none: for a notification, and for a
// response (todosh sends no requests, so none is awaited).
func (s *Server) Handle(m Message) []byte {
	if m.Method == "" {
		return nil
	}
	i := slices.IndexFunc(methods, func(r method) bool { return r.name == m.Method })
	if !m.IsCall() {
		if i >= 0 && methods[i].notification && methods[i].run != nil && (s.initialized || methods[i].early) {
			methods[i].run(s, m.Params)
		}
		return nil
	}
	var (
		result any
		rerr   *rpcError
	)
	switch {
	case i < 0:
		rerr = &rpcError{CodeMethodNotFound, fmt.Sprintf("method %q not found: todosh mcp serves initialize, ping, tools/list and tools/call", todostore.ShortLine(m.Method, 60))}
	case methods[i].notification:
		rerr = &rpcError{CodeInvalidRequest, fmt.Sprintf("%s is a notification: send it without an id", m.Method)}
	case !s.initialized && !methods[i].early:
		rerr = &rpcError{CodeInvalidRequest, fmt.Sprintf("%s before initialize: initialize the session first", m.Method)}
	default:
		result, rerr = methods[i].run(s, m.Params)
	}
	if rerr != nil {
		return errorReply(m.ID, rerr.Code, rerr.Message)
	}
	return mustMarshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}{"2.0", m.ID, result})
}

// initialize answers the handshake: the protocol version (the client's
// when the server speaks it, else the newest it speaks), the tools
// capability, who the server is and what the tools are for.
func (s *Server) initialize(params json.RawMessage) (any, *rpcError) {
	if s.initialized {
		return nil, &rpcError{CodeInvalidRequest, "initialize was already received: the session is initialized"}
	}
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if params == nil || params[0] != '{' || json.Unmarshal(params, &p) != nil {
		return nil, invalidParams(`initialize needs params {"protocolVersion": "…", "capabilities": {…}, "clientInfo": {…}}`)
	}
	version := ProtocolVersions[0]
	if slices.Contains(ProtocolVersions, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	s.initialized = true
	return struct {
		ProtocolVersion string         `json:"protocolVersion"`
		Capabilities    map[string]any `json:"capabilities"`
		ServerInfo      implementation `json:"serverInfo"`
		Instructions    string         `json:"instructions,omitempty"`
	}{version, map[string]any{"tools": struct{}{}}, s.info, s.instructions}, nil
}

// call runs one tool through todotools. A broken rule or bad arguments
// come back as a tool error the model can act on (isError), never as a
// protocol error, and change nothing; an unknown tool or params of the
// wrong shape are the protocol's CodeInvalidParams.
func (s *Server) call(params json.RawMessage) (any, *rpcError) {
	var p struct {
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if params == nil || params[0] != '{' || json.Unmarshal(params, &p) != nil || p.Name == nil {
		return nil, invalidParams(`tools/call needs params {"name": "…", "arguments": {…}}`)
	}
	if !slices.Contains(s.names, *p.Name) {
		return nil, invalidParams("unknown tool %q", todostore.ShortLine(*p.Name, 60))
	}
	args := p.Arguments
	if string(args) == "null" {
		args = nil
	}
	out := s.tools.Call(*p.Name, args)
	type text struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	return struct {
		Content []text `json:"content"`
		IsError bool   `json:"isError,omitempty"`
	}{[]text{{"text", out.Result}}, out.IsError}, nil
}

// errorReply is a JSON-RPC error reply to id (null when nil).
func errorReply(id json.RawMessage, code int64, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	return mustMarshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{code, message}})
}

// mustMarshal encodes what the server builds itself: ids CheckFrame
// accepted, strings and raw schemas that are valid JSON, which always
// encode. HTML escaping is off so that a reply's id is the request's,
// byte for byte ("&" stays "&", not "\u0026"), and text stays readable.
func mustMarshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
