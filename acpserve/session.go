package acpserve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/todosh/todosh/todolist"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/acpagent"
	"github.com/todosh/todosh/backends"
	"github.com/todosh/todosh/board/boardcmd"
	"github.com/todosh/todosh/commands"
	"github.com/todosh/todosh/continuation"
	"github.com/todosh/todosh/todostore"
	"github.com/todosh/todosh/turnstep"
)

// session is one editor session: one todosh session, its inner agent,
// its watcher and the plan the editor last got.
type session struct {
	srv      *Server
	id       string
	cwd      string
	mcp      []acp.McpServer // the editor's MCP servers the inner agent takes
	mcpNote  string          // which it does not take, told with the first prompt
	store    *todostore.Store
	asess    agent.Session
	agent    agent.Agent // nil: no agent
	relayed  bool        // the inner agent is an ACP agent whose updates go to the editor as they are
	policy   *continuation.Policy
	registry *commands.Registry
	watcher  *todostore.Watcher // nil when watching failed
	wrote    chan struct{}      // this process wrote the session file
	done     chan struct{}
	once     sync.Once

	// turn serialises prompts and /todo commands.
	turn sync.Mutex

	planMu   sync.Mutex
	planSent string // planKey of the plan the editor has
	hasPlan  bool

	cmdMu    sync.Mutex
	commands []acp.AvailableCommand      // the inner agent's own commands
	shown    map[acp.ToolCallId]struct{} // tool calls the editor was told of

	// gated holds the session's updates until the answer that opened it
	// has been written (order.go).
	gateMu sync.Mutex
	gated  bool
	held   []acp.SessionUpdate
	rec    *recorder // the transcript (thread.go)

	// The settings (config.go): todosh's own, and the inner agent's as it
	// last told them.
	cfgMu    sync.Mutex
	set      settings
	inner    acpagent.SessionConfig
	hasInner bool

	titleMu      sync.Mutex
	title, first string // the title last sent, the first prompt
}

// open starts a session: build, then register.
func (s *Server) open(id, cwd string, servers []acp.McpServer) (*session, error) {
	ss, err := s.build(id, cwd)
	if err != nil {
		return nil, err
	}
	return s.register(ss, servers)
}

// build makes a session's parts: its own Store value (so the hook on the
// store's writes is set before anyone shares it) and the inner agent,
// built as the shell builds it, not yet started.
func (s *Server) build(id, cwd string) (*session, error) {
	st := todostore.Open(s.cfg.Root)
	st.Now = s.cfg.Now
	if s.cfg.LockTimeout > 0 {
		st.LockTimeout = s.cfg.LockTimeout
	}
	ss := &session{
		srv: s, id: id, cwd: cwd, store: st,
		asess:    agent.Session{Store: st, ID: id, Cwd: cwd},
		policy:   continuation.New(),
		registry: commands.NewRegistry(),
		wrote:    make(chan struct{}, 1),
		done:     make(chan struct{}),
		rec:      &recorder{store: st, id: id},
		set:      initialSettings(s.cfg),
		shown:    map[acp.ToolCallId]struct{}{},
	}
	ss.policy.SetEnabled(s.cfg.Continue)
	ss.policy.SetBudget(s.cfg.Budget)
	// Every write this process makes (the agent's plan, todosh's own
	// tools in a model backend, /todo) reaches the editor through the
	// pump; another process's through the watcher.
	st.AfterWrite = func(wid string, _ []byte) {
		if wid != id {
			return
		}
		select {
		case ss.wrote <- struct{}{}:
		default:
		}
	}
	// A todo claimed from the board finishes its board item when it
	// completes (docs/board.md).
	boardcmd.Follow(st, &boardcmd.Follower{Getenv: s.cfg.Getenv, Err: os.Stderr}) // the editor's log
	if s.cfg.NewAgent != nil {
		ag, err := s.cfg.NewAgent(ss.asess)
		if err != nil {
			ss.close()
			return nil, internalError(fmt.Sprintf("start the agent %s: %v", s.cfg.Backend.Name, err))
		}
		ss.agent = ag
		if r, ok := ag.(interface{ SetRelay(acpagent.Relay) }); ok {
			r.SetRelay(relay{ss})
			ss.relayed = true
		}
	}
	return ss, nil
}

// register opens a built session to the editor (nil: nothing to do): the
// editor's MCP servers its agent takes, the watcher, the plan pump.
func (s *Server) register(ss *session, servers []acp.McpServer) (*session, error) {
	if ss == nil {
		return nil, nil
	}
	if ss.agent != nil {
		ss.mcp, ss.mcpNote = s.editorServers(servers, ss.relayed)
	}
	if w, err := ss.store.Watch(ss.id); err == nil {
		ss.watcher = w
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ss.close()
		return nil, internalError("todosh acp is shutting down")
	}
	if old := s.sessions[ss.id]; old != nil { // a racing session/load of the same id
		s.mu.Unlock()
		ss.close()
		return old, nil
	}
	s.sessions[ss.id] = ss
	s.mu.Unlock()
	go ss.pump()
	return ss, nil
}

// close ends the inner agent's processes and the watcher.
func (ss *session) close() {
	ss.once.Do(func() {
		close(ss.done)
		if c, ok := ss.agent.(interface{ Close() error }); ok {
			c.Close()
		}
		if ss.watcher != nil {
			ss.watcher.Close()
		}
	})
}

// pump sends the plan after every change: this process's writes and
// other processes' (the watcher), until the session closes.
func (ss *session) pump() {
	var changes <-chan todostore.Change
	if ss.watcher != nil {
		changes = ss.watcher.Changes()
	}
	for {
		select {
		case _, ok := <-changes:
			if !ok {
				changes = nil
				continue
			}
			ss.syncPlan(false)
		case <-ss.wrote:
			ss.syncPlan(false)
		case <-ss.done:
			return
		}
	}
}

// syncPlan sends the list as a plan when it differs from the plan the
// editor last got, or always with force (session/load). It reads the
// file, so however the list changed the editor gets it once, as todosh
// keeps it; an unreadable file sends nothing (the editor keeps the last
// good plan).
func (ss *session) syncPlan(force bool) { ss.syncPlanVia(force, ss.send) }

// syncPlanNow is syncPlan past the gate: the plan of session/load's
// replay, which comes before its answer.
func (ss *session) syncPlanNow(force bool) { ss.syncPlanVia(force, ss.replayNow) }

func (ss *session) syncPlanVia(force bool, send func(acp.SessionUpdate)) {
	ss.planMu.Lock()
	defer ss.planMu.Unlock()
	sess, err := ss.store.LoadOrNew(ss.id)
	if err != nil {
		return
	}
	entries := PlanReceipts(PlanEntries(sess.Todos), sess.Todos, ss.work())
	key := planKey(entries)
	if !force && ss.hasPlan && key == ss.planSent {
		return
	}
	if !force && !ss.hasPlan && len(entries) == 0 {
		return // nothing to show yet, and nothing shown
	}
	ss.planSent, ss.hasPlan = key, true
	send(acp.SessionUpdate{Plan: &acp.SessionUpdatePlan{Entries: entries}})
	ss.sendTitle(sess.Todos)
}

// send is one session/update to the editor, held while the gate is
// closed.
func (ss *session) send(u acp.SessionUpdate) {
	ss.gateMu.Lock()
	defer ss.gateMu.Unlock()
	if ss.gated {
		ss.held = append(ss.held, u)
		return
	}
	ss.sendNow(u)
}

// sendNow sends an update at once and keeps it in the transcript.
func (ss *session) sendNow(u acp.SessionUpdate) {
	ss.rec.record(u)
	ss.replayNow(u)
}

// replayNow sends an update at once, and nothing else.
func (ss *session) replayNow(u acp.SessionUpdate) {
	_ = ss.srv.conn.SessionUpdate(context.Background(), acp.SessionNotification{SessionId: acp.SessionId(ss.id), Update: u})
}

// say is one message chunk from todosh itself.
func (ss *session) say(text string) {
	ss.send(acp.UpdateAgentMessageText(text))
}

// sendCommands sends the command list: todosh's todo and the inner
// agent's own.
func (ss *session) sendCommands() {
	ss.cmdMu.Lock()
	inner := ss.commands
	ss.cmdMu.Unlock()
	ss.send(acp.SessionUpdate{AvailableCommandsUpdate: &acp.SessionAvailableCommandsUpdate{
		AvailableCommands: MergeCommands(inner, todoSubcommands(ss.registry.Complete))}})
}

// prompt answers one session/prompt: a /todo command by todosh, anything
// else by the inner agent under the continuation policy.
func (ss *session) prompt(ctx context.Context, text string, leftOut []string) (acp.PromptResponse, error) {
	ss.turn.Lock()
	defer ss.turn.Unlock()
	ss.notePrompt(text)
	defer ss.rec.flush()
	// The editor's settings hold from the next prompt, /todo included:
	// /todo budget shows the budget chosen, and /todo budget +N raises it.
	ss.applySettings()
	if IsTodoCommand(text) {
		return ss.todo(ctx, strings.TrimSpace(text))
	}
	if len(leftOut) > 0 {
		ss.say("todosh: " + todolist.AndList(leftOut) + " left out: todosh passes text only to the agent, and told it so\n\n")
	}
	if ctx.Err() != nil {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	if ss.agent == nil {
		return acp.PromptResponse{}, internalError("no agent is connected: start todosh acp with --agent NAME (todosh --help lists them) or -- CMD ARGS for any ACP agent; /todo works without one")
	}
	step := turnstep.Step{Agent: ss.agent, Session: ss.asess, Policy: ss.policy, Tools: ss.tools, Cwd: ss.cwd}
	if acpagent.IsSlashCommand(text) {
		return ss.slash(ctx, step, text)
	}
	if ss.mcpNote != "" {
		ss.say("todosh: " + ss.mcpNote + "\n\n")
		ss.mcpNote = ""
	}
	_, archived, err := turnstep.Begin(ss.asess, ss.policy)
	if err != nil {
		return acp.PromptResponse{}, internalError("prompt not sent: " + err.Error())
	}
	if archived > 0 {
		ss.say(fmt.Sprintf("todosh: the list was done (%s): archived, see /todo list; starting a new one\n\n", todolist.Plural(archived, "item")))
	}
	ss.syncPlan(false)
	return ss.run(ctx, step, agent.Turn{Prompt: text})
}

// run runs turn and the continuations the policy decides on.
func (ss *session) run(ctx context.Context, step turnstep.Step, turn agent.Turn) (acp.PromptResponse, error) {
	for {
		out, err := step.Run(ctx, turn, ss.event)
		if resp, done, err := ss.ended(out, err); done {
			return resp, err
		}
		dec := out.Decision
		if dec.Line != "" {
			// A blank line after it too: Markdown would join the next
			// sentence of the agent to it.
			ss.say("\n\ntodosh: " + dec.Line + "\n\n")
		}
		if !dec.Continue {
			return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
		}
		if ctx.Err() != nil {
			return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
		turn = agent.Turn{Prompt: dec.Prompt, Continuation: true}
	}
}

// slash runs one of the inner agent's own slash commands (/compact): one
// turn, not a prompt for work, so no continuation follows it and the list
// is not archived.
func (ss *session) slash(ctx context.Context, step turnstep.Step, text string) (acp.PromptResponse, error) {
	out, err := step.Run(ctx, agent.Turn{Prompt: text}, ss.event)
	if resp, done, err := ss.ended(out, err); done {
		return resp, err
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// ended shows the editor the plan after a turn and answers the prompt when
// the turn ended it (an error, a cancel, the agent's failure); done is
// false when the turn ran to its end and the caller goes on.
func (ss *session) ended(out turnstep.Outcome, err error) (resp acp.PromptResponse, done bool, rerr error) {
	ss.syncPlan(false)
	switch {
	case err != nil:
		return acp.PromptResponse{}, true, internalError(err.Error())
	case out.Aborted:
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, true, nil
	case out.Err != nil:
		resp, rerr := ss.failed(out.Err)
		return resp, true, rerr
	}
	return acp.PromptResponse{}, false, nil
}

// failed answers a turn the inner agent failed. A stop reason of its own
// (max_tokens, refusal, max_turn_requests) goes to the editor as that stop
// reason, with todosh's line saying why; anything else (it died, hung up,
// could not start) is a JSON-RPC error with the one-line cause, and the
// next prompt starts the agent again.
func (ss *session) failed(err error) (acp.PromptResponse, error) {
	var se *acpagent.StopError
	if errors.As(err, &se) && stopReasons[se.Reason] {
		ss.say("\n\ntodosh: " + se.Error() + "\n\n")
		return acp.PromptResponse{StopReason: se.Reason}, nil
	}
	return acp.PromptResponse{}, internalError(err.Error())
}

// stopReasons are the stop reasons an editor knows, passed on as they are.
var stopReasons = map[acp.StopReason]bool{
	acp.StopReasonMaxTokens:       true,
	acp.StopReasonMaxTurnRequests: true,
	acp.StopReasonRefusal:         true,
	acp.StopReasonCancelled:       true,
}

// tools are the inner agent's todo tools as its backend row declares them.
func (ss *session) tools() continuation.Tools {
	return backends.AgentTools(ss.srv.cfg.Backend, ss.agent)
}

// todo runs a /todo command as the person and answers with its output;
// the model never sees it.
func (ss *session) todo(ctx context.Context, line string) (acp.PromptResponse, error) {
	var out bytes.Buffer
	env := &commands.Env{
		Store: ss.store, SessionID: ss.id, Cwd: ss.cwd, Out: &out, Err: &out,
		Now: ss.srv.cfg.Now, Home: ss.srv.cfg.Home, Getenv: ss.srv.cfg.Getenv,
	}
	budget := &sessionBudget{policy: ss.policy}
	if ss.agent != nil {
		env.Budget = budget
	}
	if err := ss.registry.Run(env, line); err != nil && !errors.Is(err, commands.ErrQuit) {
		fmt.Fprintln(&out, err)
	}
	ss.syncPlan(false)
	text := out.String()
	if strings.TrimSpace(text) == "" {
		text = "(no output)\n"
	}
	ss.say(text)
	if budget.resumes {
		return ss.resume(ctx)
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// event shows one event of the inner agent's turn. A relayed ACP agent's
// text and tool calls reach the editor as the agent sent them (relay), so
// only what todosh adds is sent for it.
func (ss *session) event(ev agent.Event) {
	if h := eventTable[ev.Kind]; h != nil {
		h(ss, ev)
	}
}

// eventTable says what each kind of event becomes for the editor.
var eventTable = map[agent.EventKind]func(*session, agent.Event){
	agent.EventText: func(ss *session, ev agent.Event) {
		if !ss.relayed {
			ss.say(ev.Text)
		}
	},
	agent.EventToolCall: func(ss *session, ev agent.Event) {
		if !ss.relayed {
			ss.toolEvent(ev)
		}
	},
	agent.EventTodos:  func(ss *session, _ agent.Event) { ss.syncPlan(false) },
	agent.EventPause:  func(ss *session, ev agent.Event) { ss.say("\n\ntodosh: paused: " + ev.Text + "\n\n") },
	agent.EventNotice: func(ss *session, ev agent.Event) { ss.say("\n\ntodosh: " + ev.Text + "\n\n") },
	// EventStatus is a passing line (a retry, a rate limit): a thought,
	// which editors show folded.
	agent.EventStatus: func(ss *session, ev agent.Event) {
		if ev.Text != "" {
			ss.send(acp.UpdateAgentThoughtText(ev.Text + "\n"))
		}
	},
}

// toolCall shows a tool call of a backend that reports it as one line
// after it ran (model API, wrapped CLIs): a completed tool call.
func (ss *session) toolCall(title string) {
	ss.send(acp.StartToolCall(acp.ToolCallId(fmt.Sprintf("todosh-%d", calls.Add(1))), title,
		acp.WithStartKind(acp.ToolKindOther), acp.WithStartStatus(acp.ToolCallStatusCompleted)))
}

// calls numbers the tool calls todosh reports for a backend, unique in
// the process.
var calls atomic.Int64

// editorServers are the editor's MCP servers of session/new or
// session/load that the inner agent takes, and a notice naming those it
// does not: an ACP agent (relayed) takes stdio and the transports its
// initialize advertised (probeMCP), another backend none. A server that
// takes todosh's own name is left out: the agent gets todosh's under it.
func (s *Server) editorServers(servers []acp.McpServer, relayed bool) ([]acp.McpServer, string) {
	caps := s.mcpCaps(context.Background())
	var take, drop []acp.McpServer
	for _, m := range servers {
		switch {
		case m.Stdio != nil && m.Stdio.Name == agent.MCPName:
		case relayed && acpagent.MCPTakes(caps, m):
			take = append(take, m)
		default:
			drop = append(drop, m)
		}
	}
	if len(drop) == 0 {
		return take, ""
	}
	if !relayed {
		return take, fmt.Sprintf("the editor's MCP %s not passed to %s: only an ACP agent (--agent acp...) takes an editor's MCP servers",
			acpagent.MCPNames(drop), s.cfg.Backend.Name)
	}
	return take, fmt.Sprintf("the editor's MCP %s not passed to %s: it takes only %s servers",
		acpagent.MCPNames(drop), s.cfg.Backend.Name, acpagent.MCPTransports(caps))
}

// notePrompt keeps the person's prompt in the transcript, and as the
// session's first prompt (its title) when it is.
func (ss *session) notePrompt(text string) {
	ss.rec.user(text)
	ss.titleMu.Lock()
	first := ss.first == ""
	if first {
		ss.first = text
	}
	ss.titleMu.Unlock()
	if first && !IsTodoCommand(text) { // a /todo's title comes with its list
		if sess, err := ss.store.LoadOrNew(ss.id); err == nil {
			ss.sendTitle(sess.Todos)
		}
	}
}

// afterOpen sends what an opened session shows besides its answer: the
// command list, the list as the plan; held by the gate until the answer
// is written.
func (ss *session) afterOpen() {
	ss.sendCommands()
	ss.syncPlan(false)
}

// answer is the settings a session/new, session/load or session/resume
// answers with: the inner agent's modes, models and options (as its
// session last told them, or as the server last heard them from any
// session, before it started), and todosh's options.
func (ss *session) answer() (*acp.SessionModeState, *acp.SessionModelState, []acp.SessionConfigOption) {
	c, ok := ss.innerConfig()
	if !ok {
		if c, ok = ss.srv.knownInner(); ok && ss.agent != nil {
			ss.cfgMu.Lock()
			ss.inner = c
			ss.cfgMu.Unlock()
		}
	}
	if ss.agent == nil {
		c = acpagent.SessionConfig{}
	}
	return c.Modes, c.Models, ss.options()
}
