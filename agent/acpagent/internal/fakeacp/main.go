// Command fakeacp is a test-only ACP agent that speaks the wire format of
// real recorded agents (claude-agent-acp 0.23.1, codex-acp 0.16.0): plan
// updates, tool calls, permission requests, cancel, session/load and
// session/resume, errors. It uses the SDK's agent side, so every message is
// real ACP. What it does is chosen by markers in the prompt:
//
//	[[plan]]        a 3-item plan, first item done, then a lazy end_turn
//	(continuation)  a prompt from todosh's policy completes one more item
//	[[perm]]        a tool call that asks permission, then says what it got
//	[[slow]]        streams, then waits for session/cancel (stopReason cancelled)
//	[[hang]]        starts a child (sleep), ignores session/cancel
//	[[die]]         exits mid-turn with a line on stderr
//	[[stop:R]]      ends the turn with stopReason R
//	[[mcp]]         calls todosh's MCP server (from session/new): todo_write, todo_tick
//	[[mcp-pause]]   calls todo_pause through it
//	[[mcp-plan]]    [[plan]] kept through todosh's MCP server: todo_write
//	                the 3 items, then again with the first done; each
//	                continuation writes one more done the same way
//	[[garbage]]     writes a malformed line and an unknown update kind first
//	[[huge]]        writes a line over the SDK's 10 MiB limit
//	[[think]]       a thought chunk, then a tool call with content and its update
//	[[fs]] PATH     reads PATH through the client's fs/read_text_file, if offered
//
// After session/new it sends its commands (available_commands_update), as
// claude-agent-acp does.
//
// FAKEACP_PLAYS picks whose shapes it speaks where the agents differ:
// "claude" (the default: claude-agent-acp's agentInfo and its MCP
// permission request, titled mcp__todosh__todo_write, allow_always once per
// server), "codex" (codex-acp 0.16: agentInfo Codex, and before every call
// of an MCP tool an "Approve MCP tool call" request whose raw input names
// the server and tool, options approved / approved-for-session /
// approved-always / cancel, asked again unless allowed for the session),
// "gemini" (gemini --acp 0.61: the MCP request titled "todo_write (todosh
// MCP Server)" with proceed_always_server; [[plan]] keeps the list with its
// own write_todos, seen only as a permission request and a tool call "Set 3
// todo(s)" with no content, unless FAKEACP_RAW=1 puts the items in the
// call's rawInput; FAKEACP_CHAT=1 writes Gemini's chat recording with the
// call's items under $HOME/.gemini, where todosh reads them).
//
// Environment: FAKEACP_LOG appends every line received; FAKEACP_ENV
// receives the CLAUDE_CODE_ENABLE_TODO_TOOLS it was given; FAKEACP_CAPS is
// "load" or "resume" (what it advertises); FAKEACP_MCP lists the MCP
// transports beyond stdio it advertises ("http,sse", as claude-agent-acp
// 0.23.1 does; codex-acp 0.16.0 says http); FAKEACP_FAIL is "initialize" or
// "session/new"; FAKEACP_PID receives its pid; FAKEACP_CHILD receives the pid of [[hang]]'s child;
// FAKEACP_WORK: by default [[plan]] and each continuation run a command
// (an execute tool call that succeeds) before they mark an item done;
// FAKEACP_WORK=0 marks it done without working, FAKEACP_WORK=remark makes
// continuations re-mark the first finished item (in progress, then
// completed again) and nothing else.
// FAKEACP_LAZY=1 makes continuations make no progress, FAKEACP_LAZY=slow
// makes them wait for session/cancel instead; FAKEACP_PACE paces
// text chunks (a duration) for benchmarks; FAKEACP_USAGE=IN,OUT reports
// usage (Prompt); FAKEACP_STALE=1 ends the first
// prompt after a cancel at once, saying nothing (as if it were the end of
// the cancelled turn); FAKEACP_NOCALL=1 calls todosh's MCP tools with a
// permission request and a tool_call_update but no tool_call, as Gemini
// CLI does. FAKEACP_HOLD=FILE makes it slow to end: it ignores SIGTERM,
// and once its input is closed it creates FILE and exits only when FILE
// is gone (or on SIGKILL), so a test can act while todosh waits for it.
//
// Settings: it offers modes (default, plan) and models (fast, smart), and
// both again as config options (mode, model), as claude-agent-acp does;
// session/set_mode (with a current_mode_update), session/set_model and
// session/set_config_option change them, and [[settings]] says them;
// FAKEACP_SETTINGS=modes offers modes and models only, as Gemini CLI does.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	hold := os.Getenv("FAKEACP_HOLD")
	if hold != "" {
		signal.Ignore(syscall.SIGTERM)
	}
	if f := os.Getenv("FAKEACP_PID"); f != "" {
		os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	if f := os.Getenv("FAKEACP_ENV"); f != "" {
		v, set := os.LookupEnv("CLAUDE_CODE_ENABLE_TODO_TOOLS")
		if !set {
			v = "(unset)"
		}
		os.WriteFile(f, []byte(v), 0o644)
	}
	var in io.Reader = os.Stdin
	if path := os.Getenv("FAKEACP_LOG"); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		in = io.TeeReader(os.Stdin, f)
	}
	out := &lockedWriter{w: bufio.NewWriterSize(os.Stdout, 1<<16)}
	a := &fake{out: out, sessions: map[acp.SessionId]*session{}}
	// The SDK reads its peer from the moment the connection is made, and
	// handlers use a.conn: nothing reaches it until a.conn is set and its
	// logger too, or a session/new handled first under load found a.conn
	// nil (a panic in send) and -race saw both fields raced.
	held, feed := io.Pipe()
	a.conn = acp.NewAgentSideConnection(a, out, held)
	a.conn.SetLogger(slog.New(slog.DiscardHandler))
	go func() {
		_, err := io.Copy(feed, in)
		feed.CloseWithError(err)
	}()
	<-a.conn.Done()
	if hold != "" {
		os.WriteFile(hold, nil, 0o644)
		for {
			if _, err := os.Stat(hold); err != nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// lockedWriter lets the fake write a raw line between the SDK's messages.
type lockedWriter struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(b)
	if err == nil {
		err = l.w.Flush()
	}
	return n, err
}

type session struct {
	plan []acp.PlanEntry // only the session's one running turn uses it
	// mcpPlan are the statuses of [[mcp-plan]]'s items, kept through
	// todosh's MCP server; nil without it.
	mcpPlan []string
	mcp     []acp.McpServer
	// mode and model are the session's settings (session/set_mode,
	// session/set_model, session/set_config_option), under mu.
	mode, model string

	mu sync.Mutex // guards cancelled: session/cancel runs beside the turn
	// stale: the last turn was cancelled and FAKEACP_STALE=1, so the next
	// prompt ends at once, as if it were the end of that turn.
	stale bool
	// cancelled is closed by session/cancel and replaced when a turn has
	// waited on it; a cancel that comes while no turn waits is kept for
	// the next one that does.
	cancelled chan struct{}
}

// cancel marks the session cancelled: the turn waiting in awaitCancel, or
// the next one to wait, ends.
func (s *session) cancel() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.cancelled: // already cancelled, not yet consumed
	default:
		close(s.cancelled)
	}
}

// awaitCancel holds a turn until session/cancel (or the connection's
// end) and readies the session for the next one. It waits for the fake's
// own Cancel, not for the turn's context: the SDK cancels that context
// before it calls Cancel, and a turn woken by it would ready the session
// before that Cancel came, which would then end the next turn at once.
func (s *session) awaitCancel(done <-chan struct{}) (acp.PromptResponse, error) {
	s.mu.Lock()
	c := s.cancelled
	s.mu.Unlock()
	select {
	case <-c:
	case <-done:
	}
	s.mu.Lock()
	if s.cancelled == c {
		select {
		case <-c:
			s.cancelled = make(chan struct{})
			s.stale = os.Getenv("FAKEACP_STALE") == "1"
		default: // the connection ended
		}
	}
	s.mu.Unlock()
	return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
}

type fake struct {
	conn     *acp.AgentSideConnection
	caps     acp.ClientCapabilities // what the client offered
	out      *lockedWriter
	mu       sync.Mutex
	sessions map[acp.SessionId]*session
	n        int
	works    atomic.Int64 // the commands work ran, to number their calls
}

var internal = &acp.RequestError{Code: -32603, Message: "Internal error", Data: map[string]any{"details": "Query closed before response received"}}

func (a *fake) Initialize(_ context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	a.mu.Lock()
	a.caps = p.ClientCapabilities
	a.mu.Unlock()
	if os.Getenv("FAKEACP_FAIL") == "initialize" {
		fmt.Fprintln(os.Stderr, "Error: --dangerously-skip-permissions cannot be used with root/sudo privileges")
		return acp.InitializeResponse{}, internal
	}
	caps := acp.AgentCapabilities{}
	switch os.Getenv("FAKEACP_CAPS") {
	case "load":
		caps.LoadSession = true
	case "resume":
		caps.SessionCapabilities.Resume = &acp.SessionResumeCapabilities{}
	}
	for _, t := range strings.Split(os.Getenv("FAKEACP_MCP"), ",") {
		switch t {
		case "http":
			caps.McpCapabilities.Http = true
		case "sse":
			caps.McpCapabilities.Sse = true
		}
	}
	info := map[string]*acp.Implementation{
		"claude": {Name: "@zed-industries/claude-agent-acp", Title: ptr("Claude Agent"), Version: "0.23.1"},
		"codex":  {Name: "codex-acp", Title: ptr("Codex"), Version: "0.16.0"},
		"gemini": {Name: "gemini-cli", Version: "0.61.0"},
	}[plays()]
	return acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersionNumber, AgentCapabilities: caps, AgentInfo: info, AuthMethods: []acp.AuthMethod{}}, nil
}

func ptr(s string) *string { return &s }

// plays is the agent whose shapes the fake speaks (FAKEACP_PLAYS).
func plays() string {
	if p := os.Getenv("FAKEACP_PLAYS"); p != "" {
		return p
	}
	return "claude"
}

func (a *fake) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (a *fake) newSession(id acp.SessionId, servers []acp.McpServer) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := &session{mcp: servers, cancelled: make(chan struct{}), mode: "default", model: "fast"}
	a.sessions[id] = s
	return s
}

// The fake's modes and models, which it offers as claude-agent-acp 0.23.1
// does: as modes and models, and again as config options.
var (
	fakeModes  = []acp.SessionMode{{Id: "default", Name: "Default"}, {Id: "plan", Name: "Plan Mode"}}
	fakeModels = []acp.ModelInfo{{ModelId: "fast", Name: "Fast"}, {ModelId: "smart", Name: "Smart"}}
)

// settings are a session's modes, models and config options as its
// answers carry them.
func (s *session) settings() (*acp.SessionModeState, *acp.SessionModelState, []acp.SessionConfigOption) {
	s.mu.Lock()
	defer s.mu.Unlock()
	modeOpts := acp.SessionConfigSelectOptionsUngrouped{}
	for _, m := range fakeModes {
		modeOpts = append(modeOpts, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(m.Id), Name: m.Name})
	}
	modelOpts := acp.SessionConfigSelectOptionsUngrouped{}
	for _, m := range fakeModels {
		modelOpts = append(modelOpts, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(m.ModelId), Name: m.Name})
	}
	mode, model := acp.SessionConfigOptionCategory("mode"), acp.SessionConfigOptionCategory("model")
	opts := []acp.SessionConfigOption{
		{Select: &acp.SessionConfigOptionSelect{Id: "mode", Name: "Mode", Type: "select", Category: &mode, CurrentValue: acp.SessionConfigValueId(s.mode),
			Options: acp.SessionConfigSelectOptions{Ungrouped: &modeOpts}}},
		{Select: &acp.SessionConfigOptionSelect{Id: "model", Name: "Model", Type: "select", Category: &model, CurrentValue: acp.SessionConfigValueId(s.model),
			Options: acp.SessionConfigSelectOptions{Ungrouped: &modelOpts}}},
	}
	if os.Getenv("FAKEACP_SETTINGS") == "modes" { // as Gemini CLI 0.61: no config options
		opts = nil
	}
	return &acp.SessionModeState{AvailableModes: fakeModes, CurrentModeId: acp.SessionModeId(s.mode)},
		&acp.SessionModelState{AvailableModels: fakeModels, CurrentModelId: acp.ModelId(s.model)}, opts
}

func (a *fake) session(id acp.SessionId) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

func (a *fake) NewSession(_ context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	if os.Getenv("FAKEACP_FAIL") == "session/new" {
		fmt.Fprintln(os.Stderr, "fatal: no API key configured")
		return acp.NewSessionResponse{}, internal
	}
	a.mu.Lock()
	a.n++
	id := acp.SessionId(fmt.Sprintf("fake-%d-%d", os.Getpid(), a.n))
	a.mu.Unlock()
	s := a.newSession(id, p.McpServers)
	go a.send(context.Background(), id, acp.SessionUpdate{AvailableCommandsUpdate: &acp.SessionAvailableCommandsUpdate{
		AvailableCommands: []acp.AvailableCommand{{Name: "compact", Description: "Compact the conversation"}}}})
	modes, models, opts := s.settings()
	return acp.NewSessionResponse{SessionId: id, Modes: modes, Models: models, ConfigOptions: opts}, nil
}

// LoadSession replays the history as Codex does (update_plan tool calls)
// before answering; with FAKEACP_REPLAY_LATE=1, as Gemini was seen to,
// after answering.
func (a *fake) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	s := a.newSession(p.SessionId, p.McpServers)
	modes, models, opts := s.settings()
	if os.Getenv("FAKEACP_REPLAY_LATE") == "1" {
		go func() {
			time.Sleep(50 * time.Millisecond)
			a.replay(context.Background(), p.SessionId)
		}()
		return acp.LoadSessionResponse{Modes: modes, Models: models, ConfigOptions: opts}, nil
	}
	a.replay(ctx, p.SessionId)
	return acp.LoadSessionResponse{Modes: modes, Models: models, ConfigOptions: opts}, nil
}

// replay sends a session's history: the earlier prompt, the replies and
// the plan's tool call.
func (a *fake) replay(ctx context.Context, id acp.SessionId) {
	p := struct{ SessionId acp.SessionId }{id}
	a.send(ctx, p.SessionId, acp.UpdateUserMessageText("[[plan]] earlier prompt"))
	a.send(ctx, p.SessionId, acp.UpdateAgentMessageText("An old reply from the earlier run."))
	a.send(ctx, p.SessionId, acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{ToolCallId: "call_old", Title: "update_plan", Status: acp.ToolCallStatusCompleted,
		RawInput: map[string]any{"plan": []map[string]any{{"step": "Replayed item", "status": "completed"}}}}})
	a.send(ctx, p.SessionId, acp.SessionUpdate{Plan: &acp.SessionUpdatePlan{Entries: []acp.PlanEntry{{Content: "Replayed item", Status: acp.PlanEntryStatusCompleted, Priority: "medium"}}}})
}

func (a *fake) ResumeSession(_ context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	s := a.newSession(p.SessionId, p.McpServers)
	modes, models, opts := s.settings()
	return acp.ResumeSessionResponse{Modes: modes, Models: models, ConfigOptions: opts}, nil
}

func (a *fake) Cancel(_ context.Context, p acp.CancelNotification) error {
	if s := a.session(p.SessionId); s != nil {
		s.cancel()
	}
	return nil
}

func (a *fake) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, nil
}

func (a *fake) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, nil
}

// SetSessionConfigOption sets the mode or the model, and answers with the
// options as they are now.
func (a *fake) SetSessionConfigOption(_ context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	if p.ValueId == nil {
		return acp.SetSessionConfigOptionResponse{}, acp.NewInvalidParams(map[string]any{"error": "want a value id"})
	}
	s := a.session(p.ValueId.SessionId)
	if s == nil {
		return acp.SetSessionConfigOptionResponse{}, acp.NewInvalidParams(map[string]any{"error": "unknown session"})
	}
	v := string(p.ValueId.Value)
	s.mu.Lock()
	switch {
	case p.ValueId.ConfigId == "mode" && (v == "default" || v == "plan"):
		s.mode = v
	case p.ValueId.ConfigId == "model" && (v == "fast" || v == "smart"):
		s.model = v
	default:
		s.mu.Unlock()
		return acp.SetSessionConfigOptionResponse{}, acp.NewInvalidParams(map[string]any{"error": "no option " + string(p.ValueId.ConfigId) + "=" + v})
	}
	s.mu.Unlock()
	_, _, opts := s.settings()
	return acp.SetSessionConfigOptionResponse{ConfigOptions: opts}, nil
}

// SetSessionMode sets the mode and says so, as claude-agent-acp does.
func (a *fake) SetSessionMode(ctx context.Context, p acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	s := a.session(p.SessionId)
	if s == nil || (p.ModeId != "default" && p.ModeId != "plan") {
		return acp.SetSessionModeResponse{}, acp.NewInvalidParams(map[string]any{"error": "no mode " + string(p.ModeId)})
	}
	s.mu.Lock()
	s.mode = string(p.ModeId)
	s.mu.Unlock()
	go a.send(context.Background(), p.SessionId, acp.SessionUpdate{CurrentModeUpdate: &acp.SessionCurrentModeUpdate{CurrentModeId: p.ModeId}})
	return acp.SetSessionModeResponse{}, nil
}

// UnstableSetSessionModel is session/set_model.
func (a *fake) UnstableSetSessionModel(_ context.Context, p acp.UnstableSetSessionModelRequest) (acp.UnstableSetSessionModelResponse, error) {
	s := a.session(p.SessionId)
	if s == nil || (p.ModelId != "fast" && p.ModelId != "smart") {
		return acp.UnstableSetSessionModelResponse{}, acp.NewInvalidParams(map[string]any{"error": "no model " + string(p.ModelId)})
	}
	s.mu.Lock()
	s.model = string(p.ModelId)
	s.mu.Unlock()
	return acp.UnstableSetSessionModelResponse{}, nil
}

func (a *fake) send(ctx context.Context, id acp.SessionId, u acp.SessionUpdate) {
	_ = a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: id, Update: u})
}

// say streams text in two chunks, after an empty one as Claude does.
func (a *fake) say(ctx context.Context, id acp.SessionId, text string) {
	pace, _ := time.ParseDuration(os.Getenv("FAKEACP_PACE"))
	half := len(text) / 2
	for _, c := range []string{"", text[:half], text[half:]} {
		if pace > 0 {
			time.Sleep(pace)
		}
		a.send(ctx, id, acp.UpdateAgentMessageText(c))
	}
}

// work runs a command that succeeds, as an execute tool call and its
// completion ("runs a command, then marks done"), unless FAKEACP_WORK is
// 0 ("marks done without working") or remark.
func (a *fake) work(ctx context.Context, id acp.SessionId) {
	if w := os.Getenv("FAKEACP_WORK"); w == "0" || w == "remark" {
		return
	}
	call := acp.ToolCallId(fmt.Sprintf("work_%d", a.works.Add(1)))
	a.send(ctx, id, acp.StartToolCall(call, "Run "+WorkCommand, acp.WithStartKind(acp.ToolKindExecute),
		acp.WithStartStatus(acp.ToolCallStatusInProgress), acp.WithStartRawInput(map[string]any{"command": WorkCommand})))
	a.send(ctx, id, acp.UpdateToolCall(call, acp.WithUpdateStatus(acp.ToolCallStatusCompleted),
		acp.WithUpdateRawOutput(map[string]any{"exit_code": 0})))
}

// WorkCommand is the command work runs.
const WorkCommand = "fake-work"

func (a *fake) sendPlan(ctx context.Context, id acp.SessionId, s *session) {
	a.send(ctx, id, acp.SessionUpdate{Plan: &acp.SessionUpdatePlan{Entries: append([]acp.PlanEntry(nil), s.plan...)}})
}

var planTexts = []string{"Create project skeleton for csvkit-lite", "Implement CSV parser with quoted-field support", "Write unit tests for the parser"}

// Prompt answers a prompt (prompt); with FAKEACP_USAGE=IN,OUT (the
// "reports usage" scenario) every answer carries the turn's usage as
// claude-agent-acp 0.23.1 writes it, after a usage_update of the context.
func (a *fake) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	resp, err := a.prompt(ctx, p)
	in, out, ok := strings.Cut(os.Getenv("FAKEACP_USAGE"), ",")
	if err != nil || !ok {
		return resp, err
	}
	i, _ := strconv.Atoi(in)
	o, _ := strconv.Atoi(out)
	a.send(ctx, p.SessionId, acp.SessionUpdate{UsageUpdate: &acp.SessionUsageUpdate{Used: i + 1, Size: 200000}})
	zero := 0
	resp.Usage = &acp.Usage{InputTokens: i, OutputTokens: o, CachedReadTokens: &zero, CachedWriteTokens: &zero, TotalTokens: i + o}
	return resp, nil
}

func (a *fake) prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	s := a.session(p.SessionId)
	if s == nil {
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"error": "unknown session"})
	}
	var text strings.Builder
	for _, b := range p.Prompt {
		if b.Text != nil {
			text.WriteString(b.Text.Text)
		}
	}
	prompt := text.String()
	id := p.SessionId
	end := acp.PromptResponse{StopReason: acp.StopReasonEndTurn}
	s.mu.Lock()
	stale := s.stale
	s.stale = false
	s.mu.Unlock()
	if stale {
		return end, nil
	}
	has := func(m string) bool { return strings.Contains(prompt, "[["+m+"]]") }
	switch {
	case has("plan") && plays() == "gemini":
		return a.geminiTodos(ctx, id)
	case has("plan"):
		s.plan = nil
		for i, t := range planTexts {
			st := acp.PlanEntryStatusPending
			if i == 0 {
				st = acp.PlanEntryStatusInProgress
			}
			s.plan = append(s.plan, acp.PlanEntry{Content: t, Status: st, Priority: "medium"})
		}
		a.say(ctx, id, "I'll break this work into a todo list first.\n")
		a.sendPlan(ctx, id, s)
		a.work(ctx, id)
		s.plan[0].Status, s.plan[1].Status = acp.PlanEntryStatusCompleted, acp.PlanEntryStatusInProgress
		a.say(ctx, id, "Skeleton is in place; moving on to the parser.\n")
		a.sendPlan(ctx, id, s)
		a.send(ctx, id, acp.SessionUpdate{UsageUpdate: &acp.SessionUsageUpdate{Used: 121, Size: 200000}})
		a.say(ctx, id, "I'll stop here for now.\n")
	case strings.Contains(prompt, "You stopped") || strings.Contains(prompt, "has still not changed"):
		if os.Getenv("FAKEACP_LAZY") == "slow" {
			a.say(ctx, id, "Continuing slowly.\n")
			return s.awaitCancel(a.conn.Done())
		}
		if s.mcpPlan != nil && os.Getenv("FAKEACP_LAZY") != "1" {
			a.work(ctx, id)
			if i := slices.Index(s.mcpPlan, "in_progress"); i >= 0 {
				s.mcpPlan[i] = "completed"
			}
			if i := slices.Index(s.mcpPlan, "pending"); i >= 0 {
				s.mcpPlan[i] = "in_progress"
			}
			if err := a.writeMCPPlan(ctx, id, s); err != nil {
				return end, err
			}
			a.say(ctx, id, "Done with one more item.\n")
			return end, nil
		}
		if os.Getenv("FAKEACP_LAZY") == "1" || s.plan == nil {
			a.say(ctx, id, "Still thinking about it.\n")
			return end, nil
		}
		if os.Getenv("FAKEACP_WORK") == "remark" {
			// Re-marks the first finished item: back in progress, then
			// completed again, and nothing else.
			s.plan[0].Status = acp.PlanEntryStatusInProgress
			a.sendPlan(ctx, id, s)
			s.plan[0].Status = acp.PlanEntryStatusCompleted
			a.sendPlan(ctx, id, s)
			a.say(ctx, id, "Item 1 is done.\n")
			return end, nil
		}
		a.work(ctx, id)
		for i := range s.plan {
			if s.plan[i].Status != acp.PlanEntryStatusCompleted {
				s.plan[i].Status = acp.PlanEntryStatusCompleted
				if i+1 < len(s.plan) {
					s.plan[i+1].Status = acp.PlanEntryStatusInProgress
				}
				break
			}
		}
		a.sendPlan(ctx, id, s)
		a.say(ctx, id, "Done with one more item.\n")
	case has("perm"):
		a.send(ctx, id, acp.StartToolCall("call_1", "Run ls -la", acp.WithStartKind(acp.ToolKindExecute), acp.WithStartStatus(acp.ToolCallStatusPending)))
		title := "Run ls -la"
		kind := acp.ToolKindExecute
		resp, err := a.conn.RequestPermission(ctx, acp.RequestPermissionRequest{SessionId: id,
			ToolCall: acp.ToolCallUpdate{ToolCallId: "call_1", Title: &title, Kind: &kind},
			Options: []acp.PermissionOption{
				{OptionId: "allow_always", Name: "Always Allow", Kind: acp.PermissionOptionKindAllowAlways},
				{OptionId: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
				{OptionId: "reject", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
			}})
		outcome := "cancelled"
		if err == nil && resp.Outcome.Selected != nil {
			outcome = string(resp.Outcome.Selected.OptionId)
		}
		if err != nil {
			outcome = "error " + err.Error()
		}
		status := acp.ToolCallStatusFailed
		if strings.HasPrefix(outcome, "allow") {
			status = acp.ToolCallStatusCompleted
		}
		a.send(ctx, id, acp.UpdateToolCall("call_1", acp.WithUpdateStatus(status)))
		a.say(ctx, id, "permission: "+outcome+"\n")
	case has("slow"):
		a.say(ctx, id, "working on it\n")
		return s.awaitCancel(a.conn.Done())
	case has("hang"):
		child := exec.Command("sleep", "300")
		if err := child.Start(); err == nil {
			if f := os.Getenv("FAKEACP_CHILD"); f != "" {
				os.WriteFile(f, []byte(strconv.Itoa(child.Process.Pid)), 0o644)
			}
		}
		a.say(ctx, id, "hanging now\n")
		select {}
	case has("die"):
		a.say(ctx, id, "about to fail\n")
		time.Sleep(50 * time.Millisecond)
		fmt.Fprintln(os.Stderr, "fatal: the model exploded")
		os.Exit(3)
	case strings.Contains(prompt, "[[stop:"):
		r := prompt[strings.Index(prompt, "[[stop:")+7:]
		r = r[:strings.Index(r, "]]")]
		a.say(ctx, id, "stopping\n")
		return acp.PromptResponse{StopReason: acp.StopReason(r)}, nil
	case has("mcp-plan"):
		s.plan, s.mcpPlan = nil, []string{"in_progress", "pending", "pending"}
		a.say(ctx, id, "I'll break this work into a todo list first.\n")
		if err := a.writeMCPPlan(ctx, id, s); err != nil {
			return end, err
		}
		a.work(ctx, id)
		s.mcpPlan[0], s.mcpPlan[1] = "completed", "in_progress"
		if err := a.writeMCPPlan(ctx, id, s); err != nil {
			return end, err
		}
		a.say(ctx, id, "I'll stop here for now.\n")
	case has("mcp") || has("mcp-pause"):
		if err := a.useMCP(ctx, id, s, has("mcp-pause")); err != nil {
			a.say(ctx, id, "mcp failed: "+err.Error()+"\n")
		}
	case has("garbage"):
		a.out.Write([]byte("this is not json{\n"))
		// An update of a kind no SDK knows yet is skipped quietly.
		a.out.Write([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + string(id) + `","update":{"sessionUpdate":"future_kind","x":1}}}` + "\n"))
		a.say(ctx, id, "after garbage\n")
	case has("settings"):
		s.mu.Lock()
		mode, model := s.mode, s.model
		s.mu.Unlock()
		a.say(ctx, id, "mode="+mode+" model="+model+"\n")
	case has("think"):
		a.send(ctx, id, acp.UpdateAgentThoughtText("Thinking about the files."))
		a.send(ctx, id, acp.StartToolCall("call_t", "Read main.go", acp.WithStartKind(acp.ToolKindRead),
			acp.WithStartContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock("package main"))})))
		a.send(ctx, id, acp.UpdateToolCall("call_t", acp.WithUpdateStatus(acp.ToolCallStatusCompleted)))
		a.say(ctx, id, "thought and read\n")
	case has("fs"):
		a.mu.Lock()
		offered := a.caps.Fs.ReadTextFile
		a.mu.Unlock()
		if !offered {
			a.say(ctx, id, "fs: not offered\n")
			break
		}
		path := strings.TrimSpace(prompt[strings.Index(prompt, "[[fs]]")+6:])
		resp, err := a.conn.ReadTextFile(ctx, acp.ReadTextFileRequest{SessionId: id, Path: path})
		if err != nil {
			a.say(ctx, id, "fs: error "+err.Error()+"\n")
			break
		}
		a.say(ctx, id, "fs: "+resp.Content+"\n")
	case has("huge"):
		a.out.Write([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"x":"` + strings.Repeat("x", 11<<20) + "\"}}\n"))
		a.say(ctx, id, "after huge\n")
	default:
		a.say(ctx, id, "echo: "+lastLine(prompt)+"\n")
	}
	return end, nil
}

// writeMCPPlan writes [[mcp-plan]]'s items with their statuses through
// todosh's MCP server.
func (a *fake) writeMCPPlan(ctx context.Context, id acp.SessionId, s *session) error {
	call, _, done, err := a.mcpClient(ctx, id, s)
	if err != nil {
		return err
	}
	defer done()
	var todos []map[string]any
	for i, t := range planTexts {
		todos = append(todos, map[string]any{"content": t, "status": s.mcpPlan[i]})
	}
	return call("todo_write", map[string]any{"todos": todos})
}

// useMCP calls the todo tools of the first stdio MCP server session/new
// named, as an agent whose own list never reaches the client would.
func (a *fake) useMCP(ctx context.Context, id acp.SessionId, s *session, pause bool) error {
	call, answers, done, err := a.mcpClient(ctx, id, s)
	if err != nil {
		return err
	}
	defer done()
	if pause {
		if err := call("todo_pause", map[string]any{"reason": "Which CSV dialect should I support?"}); err != nil {
			return err
		}
		a.say(ctx, id, "Which CSV dialect should I support?\n")
		return nil
	}
	s.plan = nil // the list is todosh's now
	if err := call("todo_write", map[string]any{"todos": []map[string]any{
		{"content": "Parse quoted fields", "status": "in_progress", "subtasks": []map[string]any{
			{"content": "double quotes", "status": "pending"}, {"content": "escaped quotes", "status": "pending"}}},
		{"content": "Write the README", "status": "pending"},
	}}); err != nil {
		return err
	}
	if err := call("todo_tick", map[string]any{"id": "1.1"}); err != nil {
		return err
	}
	a.say(ctx, id, "Used todosh's tools; permission answers: "+strings.Join(*answers, ",")+".\n")
	return nil
}

// mcpClient connects to the first stdio MCP server session/new named:
// call asks permission as the agent it plays does (once for the
// connection when allowed for the server) and calls a tool; answers are
// the permission answers given; done closes the connection.
func (a *fake) mcpClient(ctx context.Context, id acp.SessionId, s *session) (call func(name string, args map[string]any) error, answers *[]string, done func(), err error) {
	if len(s.mcp) == 0 || s.mcp[0].Stdio == nil {
		return nil, nil, nil, errors.New("no stdio MCP server in session/new")
	}
	srv := s.mcp[0].Stdio
	cmd := exec.Command(srv.Command, srv.Args...)
	cmd.Env = os.Environ()
	for _, e := range srv.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fakeacp", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	allowed := false // for the session: no more questions
	answers = new([]string)
	call = func(name string, args map[string]any) error {
		title := "mcp__" + srv.Name + "__" + name
		if plays() == "gemini" {
			title = name + " (" + srv.Name + " MCP Server)"
		}
		noCall := os.Getenv("FAKEACP_NOCALL") == "1"
		if !noCall {
			a.send(ctx, id, acp.StartToolCall(acp.ToolCallId("mcp_"+name), title, acp.WithStartKind(acp.ToolKindOther)))
		}
		if !allowed {
			req := mcpPermission(srv.Name, name, title)
			req.SessionId = id
			resp, err := a.conn.RequestPermission(ctx, req)
			if err != nil || resp.Outcome.Selected == nil {
				return fmt.Errorf("%s not allowed", title)
			}
			answer := string(resp.Outcome.Selected.OptionId)
			*answers = append(*answers, answer)
			switch answer {
			case "allow_always", "approved-for-session", "proceed_always_server":
				allowed = true
			case "approved-always", "proceed_always_tool":
				return fmt.Errorf("%s: %s saves the approval in the person's configuration", title, answer)
			case "allow", "approved", "proceed_once":
			default:
				return fmt.Errorf("%s not allowed (%s)", title, answer)
			}
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("%s refused: %v", name, res.Content)
		}
		if noCall { // as Gemini CLI: an update of a call the client was only asked about
			a.send(ctx, id, acp.UpdateToolCall(acp.ToolCallId("mcp_"+name), acp.WithUpdateStatus(acp.ToolCallStatusCompleted)))
		}
		return nil
	}
	return call, answers, func() { cs.Close() }, nil
}

// mcpPermission is the request each agent sends before a call of an MCP
// server's tool.
func mcpPermission(server, tool, title string) acp.RequestPermissionRequest {
	tc := acp.ToolCallUpdate{ToolCallId: acp.ToolCallId("mcp_" + tool), Title: &title}
	switch plays() {
	case "codex":
		t := "Approve MCP tool call"
		tc.Title = &t
		tc.RawInput = map[string]any{"server_name": server, "tool_name": tool, "message": "Allow the " + server + " MCP server to run tool \"" + tool + "\"?"}
		return acp.RequestPermissionRequest{ToolCall: tc, Options: []acp.PermissionOption{
			{OptionId: "approved", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionId: "approved-for-session", Name: "Allow for this session", Kind: acp.PermissionOptionKindAllowAlways},
			{OptionId: "approved-always", Name: "Allow and don't ask again", Kind: acp.PermissionOptionKindAllowAlways},
			{OptionId: "cancel", Name: "Cancel", Kind: acp.PermissionOptionKindRejectOnce},
		}}
	case "gemini":
		return acp.RequestPermissionRequest{ToolCall: tc, Options: geminiOptions(server, tool)}
	}
	return acp.RequestPermissionRequest{ToolCall: tc, Options: []acp.PermissionOption{
		{OptionId: "allow_always", Name: "Always Allow", Kind: acp.PermissionOptionKindAllowAlways},
		{OptionId: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
		{OptionId: "reject", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
	}}
}

// geminiOptions are Gemini CLI's answers to a permission request.
func geminiOptions(server, tool string) []acp.PermissionOption {
	opts := []acp.PermissionOption{}
	if server != "" {
		opts = append(opts, acp.PermissionOption{OptionId: "proceed_always_server", Name: "Always Allow all tools from server " + server, Kind: acp.PermissionOptionKindAllowAlways})
	}
	return append(opts,
		acp.PermissionOption{OptionId: "proceed_always_tool", Name: "Always Allow " + tool, Kind: acp.PermissionOptionKindAllowAlways},
		acp.PermissionOption{OptionId: "proceed_once", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
		acp.PermissionOption{OptionId: "cancel", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce})
}

// geminiTodos plays Gemini CLI keeping its list with write_todos: a
// permission request for the first call, then a tool call titled "Set 3
// todo(s)" whose content is empty (its items reach the client only with
// FAKEACP_RAW=1, in rawInput), and no plan.
func (a *fake) geminiTodos(ctx context.Context, id acp.SessionId) (acp.PromptResponse, error) {
	title := "Set 3 todo(s)"
	kind := acp.ToolKindOther
	resp, err := a.conn.RequestPermission(ctx, acp.RequestPermissionRequest{SessionId: id,
		ToolCall: acp.ToolCallUpdate{ToolCallId: "write_todos_1", Title: &title, Kind: &kind}, Options: geminiOptions("", "write_todos")})
	if err != nil || resp.Outcome.Selected == nil || resp.Outcome.Selected.OptionId == "cancel" {
		a.say(ctx, id, "write_todos was refused.\n")
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
	}
	var raw any
	if os.Getenv("FAKEACP_RAW") == "1" {
		var todos []any
		for i, t := range planTexts {
			st := "pending"
			if i == 0 {
				st = "in_progress"
			}
			todos = append(todos, map[string]any{"description": t, "status": st})
		}
		raw = map[string]any{"todos": todos}
	}
	if os.Getenv("FAKEACP_CHAT") == "1" {
		if err := writeGeminiChat(id); err != nil {
			a.say(ctx, id, "chat recording failed: "+err.Error()+"\n")
		}
	}
	a.send(ctx, id, acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{ToolCallId: "write_todos_1", Title: title, Kind: kind,
		Status: acp.ToolCallStatusCompleted, Content: []acp.ToolCallContent{}, RawInput: raw}})
	a.say(ctx, id, "I have set the todo list and started on the first item.\n")
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndex(s, "\n"); i >= 0 {
		return s[i+1:]
	}
	return s
}

// writeGeminiChat writes Gemini CLI 0.61's chat recording of a session
// whose write_todos set the plan's items, where Gemini keeps it:
// $HOME/.gemini/tmp/<project>/chats/session-<time>-<id's first 8>.jsonl,
// a header line, messages, and {"$set"} edits.
func writeGeminiChat(id acp.SessionId) error {
	dir := filepath.Join(os.Getenv("HOME"), ".gemini", "tmp", "proj", "chats")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var todos []map[string]any
	for i, t := range planTexts {
		st := "pending"
		if i == 0 {
			st = "in_progress"
		}
		todos = append(todos, map[string]any{"description": t, "status": st})
	}
	lines := []any{
		map[string]any{"sessionId": string(id), "projectHash": "29fd98cd", "startTime": "2026-11-26T13:27:44.397Z", "kind": "main"},
		map[string]any{"id": "u1", "type": "user", "content": []any{map[string]any{"text": "[[plan]]"}}},
		map[string]any{"$set": map[string]any{"lastUpdated": "2026-11-26T13:27:45.004Z"}},
		map[string]any{"id": "g1", "type": "gemini", "content": "", "toolCalls": []any{
			map[string]any{"id": "write_todos_1", "name": "write_todos", "args": map[string]any{"todos": todos}, "status": "success"}}},
	}
	var b strings.Builder
	for _, l := range lines {
		j, _ := json.Marshal(l)
		b.Write(j)
		b.WriteByte('\n')
	}
	id8 := string(id)
	if len(id8) > 8 {
		id8 = id8[:8]
	}
	return os.WriteFile(filepath.Join(dir, "session-2026-11-26T13-27-"+id8+".jsonl"), []byte(b.String()), 0o644)
}
