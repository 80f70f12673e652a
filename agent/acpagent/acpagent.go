// Package acpagent drives any agent that speaks the Agent Client Protocol
// (JSON-RPC 2.0 over the agent's stdio), with github.com/coder/acp-go-sdk:
// one agent process per todosh run, kept across prompts and continuations;
// initialize (protocol 1), session/new (or session/resume, session/load for
// a session kept in the session file) with todosh's own MCP server, then
// one session/prompt per turn. The agent's plan is mirrored into the list
// through the merge rule; its permission requests are asked of the person
// (or decided by --approve); Ctrl-C sends session/cancel, and the agent's
// whole process group ends with the turn that cannot be cancelled or with
// todosh.
package acpagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/todosh/todosh/todolist"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/todotools"
)

// Approve says how permission requests are answered.
type Approve string

// The answers to permission requests --approve can give.
const (
	// ApproveAsk asks the person in a terminal and refuses in a script.
	ApproveAsk Approve = ""
	// ApproveNever refuses every request.
	ApproveNever Approve = "never"
	// ApproveAlways allows every request with the agent's "always"
	// option where it offers one (for the session when it offers that),
	// so it does not ask again.
	ApproveAlways Approve = "always"
)

// ParseApprove reads --approve: "ask" (or nothing), "never" or "always".
func ParseApprove(s string) (Approve, error) {
	if s == "ask" {
		return ApproveAsk, nil
	}
	switch a := Approve(s); a {
	case ApproveAsk, ApproveNever, ApproveAlways:
		return a, nil
	}
	return "", fmt.Errorf("--approve %q: want ask, never or always", s)
}

// Defaults of Config's durations.
const (
	DefaultKillGrace    = 2 * time.Second
	DefaultCancelWait   = 3 * time.Second
	DefaultStartTimeout = 2 * time.Minute
)

// Config is one ACP agent.
type Config struct {
	// Name is the --agent value ("acp:claude"): it names the agent in
	// every line and is the kind kept in the session file.
	Name string
	// Bin and Args start the agent.
	Bin  string
	Args []string
	// Dir is the session's working directory; "" means todosh's.
	Dir string
	// Env, when not nil, is the agent's environment instead of todosh's.
	Env []string
	// Approve answers permission requests (--approve).
	Approve Approve
	// MCP is todosh's own MCP server for the session; nil hands none.
	MCP *agent.MCPServer
	// AskForTools: the agent's own todo list never reaches the client
	// (Gemini CLI's write_todos), so the first prompt asks it to keep the
	// list with todosh's MCP tools.
	AskForTools bool
	// Spelling is how the agent names the MCP server's tools
	// (mcp_todosh_todo_write), for the prompt that names them.
	Spelling todotools.Spelling
	// SavedList reads the agent's own list where it saves it, after a
	// turn in which it set its list without sending the items (Gemini
	// CLI's write_todos); nil for an agent whose list crosses ACP.
	SavedList SavedList
	// KillGrace is the time between SIGTERM and SIGKILL to the agent's
	// process group; CancelWait how long a cancelled turn waits for the
	// agent's stopReason cancelled; StartTimeout bounds initialize and
	// session/new. Zero means the defaults.
	KillGrace, CancelWait, StartTimeout time.Duration
}

// Agent is an ACP agent behind agent.Agent.
type Agent struct {
	cfg  Config
	sess agent.Session

	mu   sync.Mutex
	proc *process // nil until the first turn, and after the agent ended
	// live is proc for a Close that cannot wait for a hung turn.
	live atomic.Pointer[process]
	// relay is the editor of `todosh acp` (SetRelay); nil in the shell.
	relay Relay
}

// New returns the agent; its process starts with the first turn.
func New(cfg Config, sess agent.Session) (*Agent, error) {
	if cfg.Bin == "" {
		return nil, fmt.Errorf("--agent %s: no command to start the agent", cfg.Name)
	}
	if cfg.KillGrace <= 0 {
		cfg.KillGrace = DefaultKillGrace
	}
	if cfg.CancelWait <= 0 {
		cfg.CancelWait = DefaultCancelWait
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	return &Agent{cfg: cfg, sess: sess}, nil
}

// Name is the --agent value.
func (a *Agent) Name() string { return a.cfg.Name }

// TodoTool is todosh's todo_write when the agent has todosh's MCP server;
// else the agent's own tool, whose name the client never sees.
func (a *Agent) TodoTool() string {
	if a.cfg.MCP != nil {
		return todotools.Write
	}
	return ""
}

// process is one running agent and its ACP connection.
type process struct {
	cmd     *exec.Cmd
	stdin   io.Closer
	conn    *acp.ClientSideConnection
	client  *client
	stderr  *tail
	exited  chan struct{} // closed when the process has been waited for
	id      acp.SessionId
	hinted  bool // the prompt has asked for todosh's tools
	cleanup sync.Once
	in      *lineMeter
	skipped skipped
	group   groupWatch
	// label names the agent in permission lines: its name from
	// initialize's agentInfo ("Codex"), else its executable's name.
	label string
	// caps are what the agent advertised in initialize; mcpNoted: the
	// person was told which of the editor's MCP servers it cannot take.
	caps     acp.AgentCapabilities
	mcpNoted bool
	// ownList: the agent's own list was seen as items (a plan, or a
	// write_todos call that carried them); noListNote: the person was
	// told once that the agent's own list does not reach todosh.
	ownList, noListNote bool
	// state is the open session for other goroutines (config.go).
	state sessionState
	// cancelled: the last turn was cancelled, so the next may get the
	// end of it (staleTurn).
	cancelled bool
}

// RunTurn sends one session/prompt and streams its updates. See
// agent.Agent.
func (a *Agent) RunTurn(ctx context.Context, turn agent.Turn, emit func(agent.Event)) (agent.Result, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	before, err := a.sess.Load()
	if err != nil {
		return agent.Result{}, fmt.Errorf("%s: %w", a.cfg.Name, err)
	}
	p, err := a.start(ctx, before, emit)
	if err != nil {
		return agent.Result{}, err
	}
	text := a.promptText(p, turn)
	afterCancel := p.cancelled
	p.cancelled = false
	res, err, quiet := a.prompt(ctx, p, turn, text, emit)
	if afterCancel && quiet && err == nil {
		// The first turn after a cancel ended at once having said nothing:
		// the agent answered with the end of the cancelled turn (seen
		// with claude-agent-acp), not with this prompt. Taken as the
		// agent's turn it would look like a lazy end and be continued, so
		// the prompt goes once more.
		res, err, _ = a.prompt(ctx, p, turn, text, emit)
	}
	return res, err
}

// prompt sends one session/prompt on p and streams its updates until the
// agent answers; quiet says the agent sent no update at all in it.
func (a *Agent) prompt(ctx context.Context, p *process, turn agent.Turn, text string, emit func(agent.Event)) (res agent.Result, err error, quiet bool) {
	defer func() {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			p.cancelled = true
		}
	}()
	t := newTurn()
	p.client.setTurn(t)
	defer func() {
		p.client.setTurn(nil)
		close(t.done)
	}()

	pctx, stopPrompt := context.WithCancel(context.Background())
	defer stopPrompt()
	type answer struct {
		resp acp.PromptResponse
		err  error
	}
	answers := make(chan answer, 1)
	go func() {
		r, err := p.conn.Prompt(pctx, acp.PromptRequest{SessionId: p.id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
		answers <- answer{r, err}
	}()

	st := &turnState{titles: map[acp.ToolCallId]string{}, asked: map[string]bool{}, calls: toolFacts{}}
	done := ctx.Done()
	var giveUp <-chan time.Time
	for {
		select {
		case u := <-t.updates:
			st.updates++
			a.update(u, st, emit)
		case pr := <-t.perms:
			if giveUp != nil {
				pr.reply <- cancelledOutcome()
				continue
			}
			if pr.req.ToolCall.Title != nil && !a.ownTool(pr.req.ToolCall) {
				// Its line shows the title; the tool call need not again.
				st.asked[toolTitle(*pr.req.ToolCall.Title, "")] = true
			}
			out, err := a.permission(ctx, p, turn, pr.req, emit)
			pr.reply <- out
			if err != nil { // no answer: the person wants the turn to stop
				emit(agent.Event{Kind: agent.EventNotice, Text: "no answer: cancelling the turn"})
				a.cancel(p)
				done, giveUp = nil, time.After(a.cfg.CancelWait)
			}
		case <-done:
			a.cancel(p)
			done, giveUp = nil, time.After(a.cfg.CancelWait)
		case <-giveUp:
			a.stop(p)
			if ctx.Err() == nil {
				return agent.Result{}, fmt.Errorf("%s: turn cancelled: the permission request got no answer", a.cfg.Name), false
			}
			return agent.Result{}, ctx.Err(), false
		case r := <-answers:
			if giveUp != nil { // cancelled by Ctrl-C or an unanswered question
				if r.err != nil {
					a.stop(p)
				}
				if ctx.Err() == nil {
					return agent.Result{}, fmt.Errorf("%s: turn cancelled: the permission request got no answer", a.cfg.Name), false
				}
				return agent.Result{}, ctx.Err(), false
			}
			if r.err != nil {
				return agent.Result{}, a.died(p, "the agent stopped mid-turn", r.err), false
			}
			if n := p.skipped.malformed.Swap(0); n > 0 {
				emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("%s: skipped %d malformed message(s) from the agent", a.cfg.Name, n)})
			}
			a.noteLostList(p, st, emit)
			a.emitUsage(r.resp, emit)
			res, err := a.finish(st, r.resp.StopReason)
			if err != nil {
				err = &StopError{Reason: r.resp.StopReason, Err: err}
			}
			return res, err, st.updates == 0
		}
	}
}

// cancel sends session/cancel; the turn then waits for the agent's own
// stopReason cancelled, and ends its process group if it does not come.
func (a *Agent) cancel(p *process) {
	ctx, stop := context.WithTimeout(context.Background(), a.cfg.CancelWait)
	defer stop()
	_ = p.conn.Cancel(ctx, acp.CancelNotification{SessionId: p.id})
}

// finish turns the stop reason into the turn's result. A turn that ended
// for a reason other than end_turn is an error naming it, so the policy
// stops. A pause through todosh's MCP tool is in the session file, where
// the shell finds it.
func (a *Agent) finish(st *turnState, reason acp.StopReason) (agent.Result, error) {
	res := agent.Result{FinalText: strings.TrimSpace(st.lastMessage())}
	switch reason {
	case acp.StopReasonEndTurn:
		return res, nil
	case acp.StopReasonMaxTokens:
		return res, fmt.Errorf("%s: the turn stopped: max_tokens (the model reached its output limit)", a.cfg.Name)
	case acp.StopReasonMaxTurnRequests:
		return res, fmt.Errorf("%s: the turn stopped: max_turn_requests (the agent reached its limit of model requests in one turn)", a.cfg.Name)
	case acp.StopReasonRefusal:
		return res, fmt.Errorf("%s: the turn stopped: refusal (the agent refused to go on)", a.cfg.Name)
	case acp.StopReasonCancelled:
		return res, fmt.Errorf("%s: the turn stopped: cancelled by the agent", a.cfg.Name)
	}
	return res, fmt.Errorf("%s: the turn stopped: %s", a.cfg.Name, todolist.ShortLine(string(reason), 40))
}

// promptText is what session/prompt sends: the todo context (an ACP
// prompt has no system part), on the first prompt of an agent whose own
// list never reaches todosh the request to keep it with todosh's tools,
// and the prompt.
func (a *Agent) promptText(p *process, turn agent.Turn) string {
	if IsSlashCommand(turn.Prompt) {
		return turn.Prompt
	}
	var b strings.Builder
	if c := strings.TrimSpace(turn.PromptContext()); c != "" {
		b.WriteString(c + "\n\n")
	}
	if a.cfg.AskForTools && a.cfg.MCP != nil && !p.hinted {
		p.hinted = true
		b.WriteString(a.toolsHint())
	}
	b.WriteString(turn.Prompt)
	return b.String()
}

// toolsHint asks the agent to keep its list with todosh's MCP tools,
// named as it sees them, each with what it is for.
func (a *Agent) toolsHint() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Keep your todo list with the tools of the MCP server %q, not your own todo tool; the person sees that list:", a.cfg.MCP.Name)
	for _, spec := range (&todotools.Tools{}).Specs() {
		fmt.Fprintf(&b, "\n- %s: %s", a.cfg.Spelling.Of(spec.Name), spec.Description)
	}
	b.WriteString("\n\n")
	return b.String()
}

// turnState is what one turn has seen.
type turnState struct {
	text    strings.Builder // the current agent message
	lastMsg string
	titles  map[acp.ToolCallId]string
	calls   toolFacts
	// asked are the titles of this turn's permission requests: the tool
	// call that follows one is not shown a second time.
	asked map[string]bool
	// updates counts the session/updates the turn got.
	updates int
	// setTodos is the title of a call that set the agent's own list
	// without its items ("Set 3 todo(s)"), "" when none.
	setTodos string
}

func (st *turnState) lastMessage() string {
	if s := st.text.String(); strings.TrimSpace(s) != "" {
		return s
	}
	return st.lastMsg
}

// update turns one session/update into events. Kinds todosh does not show
// (available commands, usage, modes, thoughts, unknown ones) are skipped.
func (a *Agent) update(u acp.SessionUpdate, st *turnState, emit func(agent.Event)) {
	switch {
	case u.AgentMessageChunk != nil:
		if c := u.AgentMessageChunk.Content.Text; c != nil {
			if c.Text == "" && st.text.Len() > 0 { // an empty chunk starts a message
				st.lastMsg = st.text.String()
				st.text.Reset()
			}
			st.text.WriteString(c.Text)
			emit(agent.Event{Kind: agent.EventText, Text: c.Text})
		}
	case u.ToolCall != nil:
		title := toolTitle(u.ToolCall.Title, string(u.ToolCall.Kind))
		st.titles[u.ToolCall.ToolCallId] = title
		a.ownListCall(title, u.ToolCall.RawInput, st, emit)
		start, end := st.calls.begin(u.ToolCall, title)
		line := title
		if st.asked[title] {
			line = ""
		}
		emit(agent.Event{Kind: agent.EventToolCall, Text: line, Tool: start})
		if end != nil {
			emit(agent.Event{Kind: agent.EventToolCall, Tool: end})
		}
	case u.ToolCallUpdate != nil:
		a.toolUpdate(u.ToolCallUpdate, st, emit)
	case u.Plan != nil:
		a.plan(u.Plan.Entries, emit)
	}
}

// ownListCall mirrors a call of the agent's own whole-list tool whose
// input the ACP message carries (Gemini's write_todos: {"todos":
// [{"description", "status"}]}); a call that sets the list without
// carrying it ("Set 3 todo(s)", empty content) is noted for
// noteLostList.
func (a *Agent) ownListCall(title string, raw any, st *turnState, emit func(agent.Event)) {
	if entries, ok := WriteTodosInput(raw); ok {
		a.plan(entries, emit)
		return
	}
	if setTodosTitle(title) {
		st.setTodos = title
	}
}

// noteLostList reads, at the end of a turn in which the agent set its own
// todo list without its items, the list where the agent saved it
// (Config.SavedList); failing that, it tells the person once that the
// list never reached todosh, while todosh's list stayed empty.
func (a *Agent) noteLostList(p *process, st *turnState, emit func(agent.Event)) {
	if st.setTodos == "" {
		return
	}
	if a.cfg.SavedList != nil {
		if entries, ok := a.cfg.SavedList(a.home(), string(p.id)); ok {
			a.plan(entries, emit)
			return
		}
	}
	if p.noListNote || p.ownList {
		return
	}
	if s, err := a.sess.Load(); err != nil || len(s.Todos) > 0 {
		return
	}
	p.noListNote = true
	// The cause, then what the person can do, in words they would type:
	// the model knows the tool by a name the person never sees.
	fix := "todosh's MCP server was not given"
	if a.cfg.MCP != nil {
		fix = `say "keep the todo list with todosh's todo tools" in your next prompt, or add items with /todo add`
	}
	emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("%s: its own todo list never reaches todosh over ACP; %s", a.cfg.Name, fix)})
}

// toolUpdate shows a tool call update as one line when it says something
// new: a call first heard of here, or one that failed.
func (a *Agent) toolUpdate(u *acp.SessionToolCallUpdate, st *turnState, emit func(agent.Event)) {
	title, known := st.titles[u.ToolCallId]
	if u.Title != nil {
		title = toolTitle(*u.Title, "")
	}
	if title == "" {
		title = "tool call"
	}
	st.titles[u.ToolCallId] = title
	start, end := st.calls.update(u, title)
	if start != nil {
		line := title
		if known || st.asked[title] {
			line = ""
		}
		emit(agent.Event{Kind: agent.EventToolCall, Text: line, Tool: start})
	}
	if end != nil {
		line := ""
		if end.State == agent.ToolFailed {
			line = todolist.ShortLine(title+" failed", 100)
		}
		emit(agent.Event{Kind: agent.EventToolCall, Text: line, Tool: end})
	} else if u.Status != nil && *u.Status == acp.ToolCallStatusFailed {
		emit(agent.Event{Kind: agent.EventToolCall, Text: todolist.ShortLine(title+" failed", 100)})
	}
	if !known {
		a.ownListCall(title, u.RawInput, st, emit)
	}
}

// toolTitle is the one short line of a tool call.
func toolTitle(title, kind string) string {
	if strings.TrimSpace(title) == "" {
		title = kind
	}
	return todolist.ShortLine(title, 100)
}

// plan mirrors the agent's plan into the list through the merge rule.
func (a *Agent) plan(entries []acp.PlanEntry, emit func(agent.Event)) {
	if p := a.proc; p != nil {
		p.ownList = true
	}
	todos, cut := PlanTodos(entries)
	if cut {
		emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("%s: the plan was over the list's limits and was cut", a.cfg.Name)})
	}
	res, err := agent.ApplyAgentList(a.sess, todos, time.Now(), func(_ []todolist.Todo, m *agent.Merge) error {
		tickCompleted(m.Todos)
		return nil
	})
	switch {
	case err != nil:
		emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("%s: todo list not saved: %v", a.cfg.Name, err)})
	case res.Changed:
		emit(agent.Event{Kind: agent.EventTodos, Todos: res.Todos})
	}
}

// permission answers one session/request_permission: by --approve, else
// by asking the person, else (a script) a refusal. A continuation is
// asked like any turn: todosh never approves by itself what the person
// would have been asked. err is set when the person gave no answer.
func (a *Agent) permission(ctx context.Context, p *process, turn agent.Turn, req acp.RequestPermissionRequest, emit func(agent.Event)) (acp.RequestPermissionResponse, error) {
	if a.ownTool(req.ToolCall) {
		// todosh's own todo tools touch nothing but the list the person
		// sees; asking about them would only stop an agent from keeping it.
		if o, ok := AllowOption(req.Options, false); ok {
			return selected(o), nil
		}
	}
	if a.relay != nil && a.cfg.Approve == ApproveAsk {
		// Behind `todosh acp` the editor asks its person.
		resp, err := a.relay.Permission(ctx, req)
		if err != nil {
			return cancelledOutcome(), errors.New("no answer")
		}
		return resp, nil
	}
	what := permissionText(p.label, req.ToolCall)
	switch {
	case a.cfg.Approve == ApproveAlways:
		if o, ok := AllowOption(req.Options, true); ok {
			emit(agent.Event{Kind: agent.EventNotice, Text: "allowed (--approve always, " + o.Name + "): " + what})
			return selected(o), nil
		}
	case a.cfg.Approve == ApproveAsk && turn.Ask != nil:
		names := make([]string, len(req.Options))
		for i, o := range req.Options {
			names[i] = o.Name
		}
		i, err := turn.Ask(ctx, agent.Question{Text: what, Options: names})
		if err != nil || i < 0 || i >= len(req.Options) {
			return cancelledOutcome(), errors.New("no answer")
		}
		return selected(req.Options[i]), nil
	}
	why := "--approve never"
	if a.cfg.Approve == ApproveAsk {
		why = "no terminal to ask; --approve always allows"
	}
	emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("refused (%s): %s", why, what)})
	if o, ok := pickOption(req.Options, acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways); ok {
		return selected(o), nil
	}
	return cancelledOutcome(), nil
}

// ownTool reports whether a permission request is for todosh's own MCP
// server's tools.
func (a *Agent) ownTool(tc acp.ToolCallUpdate) bool {
	return a.cfg.MCP != nil && OwnTool(a.cfg.MCP.Name, tc)
}

// OwnTool reports whether a permission request is for a tool of todosh's
// MCP server, named server: its raw input names the server
// (codex-acp's "Approve MCP tool call" carries {"server_name":"todosh",
// "tool_name":"todo_write"}), or its title, content or raw input names the
// server and one of todosh's todo tools, as agents title MCP calls
// ("mcp__todosh__todo_write", "todo_write (todosh MCP Server)").
func OwnTool(server string, tc acp.ToolCallUpdate) bool {
	if raw, ok := tc.RawInput.(map[string]any); ok {
		for _, k := range []string{"server_name", "serverName", "server"} {
			if v, _ := raw[k].(string); v == server {
				return true
			}
		}
	}
	var text strings.Builder
	if tc.Title != nil {
		text.WriteString(*tc.Title + "\n")
	}
	for _, c := range tc.Content {
		if c.Content != nil && c.Content.Content.Text != nil {
			text.WriteString(c.Content.Content.Text.Text + "\n")
		}
	}
	if tc.RawInput != nil {
		if b, err := json.Marshal(tc.RawInput); err == nil {
			text.Write(b)
		}
	}
	if !containsWord(text.String(), server) {
		return false
	}
	for _, name := range todotools.Names() {
		if containsWord(text.String(), name) {
			return true
		}
	}
	return false
}

// containsWord reports whether s holds w with no letter or digit right
// before or after it (an underscore counts as a separator: mcp_todosh_).
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !isAlnum(s[j-1])) && (end == len(s) || !isAlnum(s[end])) {
			return true
		}
		i = j + 1
	}
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// AllowOption picks the option that allows a request for good: an
// "always" option limited to this session or this server first (codex-acp's
// "Allow for this session", Gemini's proceed_always_server), then any
// other "always" one that is not saved beyond the session, then "once".
// An "always" option the agent keeps in the person's configuration
// ("Allow and don't ask again") is picked before "once" only when
// persist is true (--approve always, which the person chose).
func AllowOption(opts []acp.PermissionOption, persist bool) (acp.PermissionOption, bool) {
	best, score := acp.PermissionOption{}, 0
	for _, o := range opts {
		s := 0
		text := strings.ToLower(string(o.OptionId) + " " + o.Name)
		saved := strings.Contains(text, "don't ask again") || strings.Contains(text, "save") || strings.Contains(text, "approved-always")
		switch {
		case o.Kind == acp.PermissionOptionKindAllowAlways && strings.Contains(text, "session"):
			s = 6
		case o.Kind == acp.PermissionOptionKindAllowAlways && strings.Contains(text, "server") && !saved:
			s = 5
		case o.Kind == acp.PermissionOptionKindAllowAlways && !saved:
			s = 4
		case o.Kind == acp.PermissionOptionKindAllowAlways && persist:
			s = 3
		case o.Kind == acp.PermissionOptionKindAllowOnce:
			s = 2
		case o.Kind == acp.PermissionOptionKindAllowAlways:
			s = 1
		}
		if s > score {
			best, score = o, s
		}
	}
	return best, score > 0
}

// permissionText names the agent, the tool and what it wants, on one line.
func permissionText(name string, tc acp.ToolCallUpdate) string {
	title := ""
	if tc.Title != nil {
		title = *tc.Title
	}
	kind := ""
	if tc.Kind != nil {
		kind = string(*tc.Kind)
	}
	if strings.TrimSpace(title) == "" {
		title = "a tool call"
	}
	s := name + " wants permission: " + todolist.ShortLine(title, 80)
	if kind != "" && kind != "other" {
		s += " (" + kind + ")"
	}
	return s
}

// pickOption returns the first option of the first kind present.
func pickOption(opts []acp.PermissionOption, kinds ...acp.PermissionOptionKind) (acp.PermissionOption, bool) {
	for _, k := range kinds {
		for _, o := range opts {
			if o.Kind == k {
				return o, true
			}
		}
	}
	return acp.PermissionOption{}, false
}

func selected(o acp.PermissionOption) acp.RequestPermissionResponse {
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Selected: &acp.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}
}

func cancelledOutcome() acp.RequestPermissionResponse {
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{}}}
}

// Close ends the agent's process group (todosh exits). A turn still
// running (one that did not end on cancel) is not waited for: its process
// group is killed at once.
func (a *Agent) Close() error {
	if !a.mu.TryLock() {
		if p := a.live.Load(); p != nil {
			killGroup(p.cmd, true)
		}
		return nil
	}
	defer a.mu.Unlock()
	if a.proc != nil {
		a.stop(a.proc)
	}
	return nil
}

// emptyList is the mcpServers of an agent without todosh's server.
var emptyList = []acp.McpServer{}

// mcpServers is todosh's MCP server as a stdio entry, which the SDK
// writes without a "type" field (one adapter rejects it), then the
// editor's servers of a transport the agent p advertised (MCPTakes).
func (a *Agent) mcpServers(p *process) []acp.McpServer {
	var editor []acp.McpServer
	if a.relay != nil {
		editor = slices.DeleteFunc(slices.Clone(a.relay.MCPServers()), func(m acp.McpServer) bool {
			return !MCPTakes(p.caps.McpCapabilities, m)
		})
	}
	m := a.cfg.MCP
	if m == nil {
		return append(emptyList[:0:0], editor...)
	}
	env := []acp.EnvVariable{}
	for k, v := range m.Env {
		env = append(env, acp.EnvVariable{Name: k, Value: v})
	}
	return append([]acp.McpServer{{Stdio: &acp.McpServerStdio{Name: m.Name, Command: m.Command, Args: m.Args, Env: env}}}, editor...)
}

// mcpDropped is the notice, once per process, that the editor's MCP
// servers of a transport the agent did not advertise were not passed to
// it; "" when there were none.
func (a *Agent) mcpDropped(p *process) string {
	if a.relay == nil || p.mcpNoted {
		return ""
	}
	var dropped []acp.McpServer
	for _, m := range a.relay.MCPServers() {
		if !MCPTakes(p.caps.McpCapabilities, m) {
			dropped = append(dropped, m)
		}
	}
	if len(dropped) == 0 {
		return ""
	}
	p.mcpNoted = true
	return fmt.Sprintf("%s: the editor's MCP %s not passed to it: it takes only %s servers",
		a.cfg.Name, MCPNames(dropped), MCPTransports(p.caps.McpCapabilities))
}

// mcpTransports is the one table of the transports an editor may give an
// MCP server in: its name, the server's name when the server uses it, and
// whether an agent that advertised caps takes it (stdio: every agent, as
// ACP requires).
var mcpTransports = []struct {
	name   string
	server func(acp.McpServer) (string, bool)
	takes  func(acp.McpCapabilities) bool
}{
	{"stdio", func(m acp.McpServer) (string, bool) {
		return nameOf(m.Stdio, func(x *acp.McpServerStdio) string { return x.Name })
	},
		func(acp.McpCapabilities) bool { return true }},
	{"http", func(m acp.McpServer) (string, bool) {
		return nameOf(m.Http, func(x *acp.McpServerHttpInline) string { return x.Name })
	},
		func(c acp.McpCapabilities) bool { return c.Http }},
	{"sse", func(m acp.McpServer) (string, bool) {
		return nameOf(m.Sse, func(x *acp.McpServerSseInline) string { return x.Name })
	},
		func(c acp.McpCapabilities) bool { return c.Sse }},
	{"acp", func(m acp.McpServer) (string, bool) {
		return nameOf(m.Acp, func(x *acp.McpServerAcpInline) string { return x.Name })
	},
		func(c acp.McpCapabilities) bool { return c.Acp }},
}

// nameOf is the name of a server's variant x, and whether it is set.
func nameOf[T any](x *T, name func(*T) string) (string, bool) {
	if x == nil {
		return "", false
	}
	return name(x), true
}

// MCPTakes reports whether an agent that advertised caps takes the MCP
// server m.
func MCPTakes(caps acp.McpCapabilities, m acp.McpServer) bool {
	for _, t := range mcpTransports {
		if _, ok := t.server(m); ok {
			return t.takes(caps)
		}
	}
	return false
}

// MCPTransports names the transports an agent that advertised caps takes:
// "stdio and http".
func MCPTransports(caps acp.McpCapabilities) string {
	var names []string
	for _, t := range mcpTransports {
		if t.takes(caps) {
			names = append(names, t.name)
		}
	}
	return andList(names)
}

// MCPNames names MCP servers for a notice: `server "docs" (http)`,
// `servers "docs" (http) and "logs" (sse)`.
func MCPNames(servers []acp.McpServer) string {
	var parts []string
	for _, m := range servers {
		for _, t := range mcpTransports {
			if name, ok := t.server(m); ok {
				parts = append(parts, fmt.Sprintf("%q (%s)", todolist.ShortLine(name, 40), t.name))
			}
		}
	}
	if len(parts) == 1 {
		return "server " + parts[0]
	}
	return "servers " + andList(parts)
}

// andList joins words as a sentence does: "a, b and c".
func andList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

func (a *Agent) dir() string {
	if a.cfg.Dir != "" {
		return a.cfg.Dir
	}
	d, _ := os.Getwd()
	return d
}

// ShowsWork is true: an ACP agent reports its tool calls and how they
// ended (agent.WorkShower).
func (a *Agent) ShowsWork() bool { return true }

// home is the agent's HOME: from its own environment when it has one.
func (a *Agent) home() string {
	if a.cfg.Env != nil {
		for i := len(a.cfg.Env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(a.cfg.Env[i], "HOME="); ok {
				return v
			}
		}
		return ""
	}
	return os.Getenv("HOME")
}
