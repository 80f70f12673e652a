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
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
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
