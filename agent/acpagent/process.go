package acpagent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/todosh/todosh/todolist"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/internal/procgroup"
	"github.com/todosh/todosh/todostore"
)

// start returns the running agent, starting it and opening its session
// when there is none: the agent's session kept in the session file is
// reopened (session/resume, else session/load) when the agent advertises
// it; otherwise, or when that fails, a new session starts and the open
// items go in its first prompt as the todo context. A process Probe left
// waiting is used for that session rather than a second start; if it
// died before, a fresh one takes its place.
func (a *Agent) start(ctx context.Context, cur *todostore.Session, emit func(agent.Event)) (*process, error) {
	if a.proc != nil {
		select {
		case <-a.proc.exited:
			a.stop(a.proc)
		default:
			if a.proc.id != "" {
				return a.proc, nil
			}
		}
	}
	sctx, stop := context.WithTimeout(ctx, a.cfg.StartTimeout)
	defer stop()
	if p := a.proc; p != nil { // Probe's, initialized, no session yet
		what, err := a.open(sctx, p, cur, emit)
		if err == nil {
			return p, nil
		}
		if !hungUp(p) {
			return nil, a.died(p, what, err)
		}
		a.stop(p)
	}
	p, err := a.launch(sctx)
	if err != nil {
		return nil, err
	}
	if what, err := a.open(sctx, p, cur, emit); err != nil {
		return nil, a.died(p, what, err)
	}
	return p, nil
}

// open opens p's session: the one kept in the session file, else a new
// one. On failure it says what failed and leaves p to the caller.
func (a *Agent) open(sctx context.Context, p *process, cur *todostore.Session, emit func(agent.Event)) (string, error) {
	if ref := cur.Agent; ref != nil && ref.Session != "" && ref.Kind == a.cfg.Name {
		if err := a.reopen(sctx, p, p.caps, acp.SessionId(ref.Session)); err != nil {
			if !isAlive(p) {
				return "session reopen failed", err
			}
			emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("%s: could not reopen its session (%s); starting a new one",
				a.cfg.Name, todolist.ShortLine(a.describe(p, err), 120))})
		} else if n := p.client.settle(replayQuiet, replayMax); n > 0 {
			// The history an agent replays (some after answering
			// session/load) is old: one line says it was there.
			emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("%s: resumed: %s", a.cfg.Name, todolist.Plural(n, "earlier message"))})
		}
	} else if ref != nil && ref.Session != "" {
		emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("this list was worked on with %s; starting a new %s session", ref.Kind, a.cfg.Name)})
	}
	if p.id == "" {
		resp, err := p.conn.NewSession(sctx, acp.NewSessionRequest{Cwd: a.dir(), McpServers: a.mcpServers(p)})
		if err != nil {
			return "session/new failed", err
		}
		a.setOpen(p, resp.SessionId, SessionConfig{Modes: resp.Modes, Models: resp.Models, Options: resp.ConfigOptions})
		if _, err := a.sess.Update(func(s *todostore.Session) error {
			s.Agent = &todostore.AgentRef{Kind: a.cfg.Name, Session: string(p.id)}
			return nil
		}); err != nil {
			emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("%s: session id not saved: %v", a.cfg.Name, err)})
		}
	}
	if n := a.mcpDropped(p); n != "" {
		emit(agent.Event{Kind: agent.EventNotice, Text: n})
	}
	return "", nil
}

// hangUpWait is how long a failed request waits to learn whether the
// agent hung up (its output closed, or it was reaped).
const hangUpWait = 500 * time.Millisecond

// hungUp reports whether p's connection ended by itself: the process
// died or closed its output.
func hungUp(p *process) bool {
	select {
	case <-p.conn.Done():
		return true
	case <-p.exited:
		return true
	case <-time.After(hangUpWait):
		return false
	}
}

// Probe starts the agent and reads what it advertises in initialize (its
// MCP transports, for `todosh acp`'s own initialize). It opens no session
// and writes nothing: the process stays, initialized, for the session
// Prepare or the first turn opens on it (one start, not two), until Close
// ends it. Call it once, before anything else, with the relay set.
func (a *Agent) Probe(ctx context.Context) (acp.AgentCapabilities, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.proc != nil {
		return a.proc.caps, nil
	}
	ctx, stop := context.WithTimeout(ctx, a.cfg.StartTimeout)
	defer stop()
	p, err := a.launch(ctx)
	if err != nil {
		return acp.AgentCapabilities{}, err
	}
	return p.caps, nil
}

// launch starts the agent's process as a.proc and initializes it, within
// ctx; on failure nothing of it is left running.
func (a *Agent) launch(sctx context.Context) (*process, error) {
	path, err := exec.LookPath(a.cfg.Bin)
	if err != nil {
		return nil, fmt.Errorf("%s: %s not found: install it, or give its path with --agent-bin", a.cfg.Name, a.cfg.Bin)
	}
	path = nativeBinary(path)
	cmd := exec.Command(path, a.cfg.Args...)
	cmd.Dir = a.cfg.Dir
	cmd.Env = a.cfg.Env
	// Wait returns soon after the process ends even when what it left
	// behind holds its stderr, so the group watch sees a launcher end.
	cmd.WaitDelay = 500 * time.Millisecond
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.cfg.Name, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.cfg.Name, err)
	}
	p := &process{cmd: cmd, stdin: stdin, stderr: &tail{}, client: &client{relay: a.relay}, exited: make(chan struct{}), in: &lineMeter{r: stdout, open: make(chan struct{})}}
	cmd.Stderr = p.stderr
	// Its own process group, so that ending it ends its children too (an
	// adapter runs the agent as a child), ended should todosh itself be
	// killed (procgroup.Start).
	if err := procgroup.Start(cmd, true); err != nil {
		return nil, fmt.Errorf("%s: start %s: %w", a.cfg.Name, a.cfg.Bin, err)
	}
	go func() {
		cmd.Wait()
		close(p.exited)
	}()
	p.group.done = make(chan struct{})
	go p.group.watch(p, a.cfg.KillGrace)
	p.conn = acp.NewClientSideConnection(p.client, stdin, p.in)
	p.conn.SetLogger(slog.New(&p.skipped))
	close(p.in.open) // the SDK reads only now, so every skipped line is counted
	a.proc = p
	a.live.Store(p)

	init, err := p.conn.Initialize(sctx, acp.InitializeRequest{
		ProtocolVersion:    acp.ProtocolVersionNumber,
		ClientInfo:         &acp.Implementation{Name: "todosh", Version: "1"},
		ClientCapabilities: a.capabilities(),
	})
	if err != nil {
		if sctx.Err() != nil {
			// Nothing answered: most often a command that is not started
			// as an ACP agent (gemini without --acp), which waits for a
			// person instead.
			err = fmt.Errorf("no answer within %s: is `%s` an ACP agent? (gemini needs --acp)", a.cfg.StartTimeout, strings.Join(append([]string{filepath.Base(path)}, a.cfg.Args...), " "))
		}
		return nil, a.died(p, "initialize failed", err)
	}
	p.label = filepath.Base(path) // "codex-acp", when it does not say its name
	if in := init.AgentInfo; in != nil {
		if n := todolist.ShortLine(firstNonEmpty(derefStr(in.Title), in.Name), 40); n != "" {
			p.label = n
		}
	}
	if init.ProtocolVersion != acp.ProtocolVersionNumber {
		a.stop(p)
		return nil, fmt.Errorf("%s: speaks ACP protocol version %d; todosh speaks %d", a.cfg.Name, init.ProtocolVersion, acp.ProtocolVersionNumber)
	}
	p.caps = init.AgentCapabilities
	return p, nil
}

// reopen resumes (no replay) or loads the agent's session; updates a load
// replays arrive while no turn listens and are dropped: the list is
// already in the session file.
func (a *Agent) reopen(ctx context.Context, p *process, caps acp.AgentCapabilities, id acp.SessionId) error {
	var c SessionConfig
	switch {
	case caps.SessionCapabilities.Resume != nil:
		r, err := p.conn.ResumeSession(ctx, acp.ResumeSessionRequest{SessionId: id, Cwd: a.dir(), McpServers: a.mcpServers(p)})
		if err != nil {
			return err
		}
		c = SessionConfig{Modes: r.Modes, Models: r.Models, Options: r.ConfigOptions}
	case caps.LoadSession:
		r, err := p.conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: id, Cwd: a.dir(), McpServers: a.mcpServers(p)})
		if err != nil {
			return err
		}
		c = SessionConfig{Modes: r.Modes, Models: r.Models, Options: r.ConfigOptions}
	default:
		return errors.New("the agent cannot reopen sessions")
	}
	a.setOpen(p, id, c)
	return nil
}

// died ends the agent after a failed request and says why in one line:
// the agent's own error message, or what became of the process, and the
// meaningful line of its stderr.
func (a *Agent) died(p *process, what string, err error) error {
	msg := a.describe(p, err)
	a.stop(p)
	if line := p.stderr.meaningful(); line != "" && !strings.Contains(msg, line) {
		msg += "; stderr: " + line
	}
	return fmt.Errorf("%s: %s: %s", a.cfg.Name, what, todolist.ShortLine(msg, 300))
}

// describe is a request's error as the person should read it.
func (a *Agent) describe(p *process, err error) string {
	select {
	case <-p.conn.Done():
		return a.connectionEnd(p, err)
	default:
	}
	var re *acp.RequestError
	if errors.As(err, &re) {
		msg := re.Message
		if d, ok := re.Data.(map[string]any); ok {
			for _, k := range []string{"details", "message", "error"} {
				if v, ok := d[k].(string); ok && v != "" {
					msg += " (" + v + ")"
					break
				}
			}
		}
		return msg
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within %s", a.cfg.StartTimeout)
	}
	return err.Error()
}

// connectionEnd says why the connection ended: a message over the SDK's
// limit, or how the process ended, after a moment for it to be reaped and
// its stderr read.
func (a *Agent) connectionEnd(p *process, err error) string {
	if p.in.oversized.Load() {
		return fmt.Sprintf("the agent sent a message over the limit of %d MiB", maxMessage>>20)
	}
	select {
	case <-p.exited:
	case <-time.After(500 * time.Millisecond):
	}
	st := p.cmd.ProcessState
	if st == nil {
		return "the agent closed its output"
	}
	// The process that died speaks for the agent: the leader when it
	// was alone, else the member that ended first behind it.
	leader := fmt.Sprintf("%s (pid %d)", filepath.Base(p.cmd.Path), p.cmd.Process.Pid)
	firstGone, orphans := p.group.report(a.cfg.KillGrace + time.Second)
	switch {
	case orphans != "":
		return fmt.Sprintf("its launcher %s ended (%s); todosh stopped %s, which it left running", leader, st, orphans)
	case firstGone != "" && st.Success():
		return fmt.Sprintf("%s ended first; its launcher %s then exited 0, which hides how", firstGone, leader)
	case firstGone != "":
		return fmt.Sprintf("%s ended first; its launcher %s then ended (%s)", firstGone, leader, st)
	}
	return fmt.Sprintf("%s ended (%s)", leader, st)
}

// maxMessage is the SDK's limit on one message (its scanner's buffer).
const maxMessage = 10 << 20

// lineMeter passes the agent's output to the SDK and notes a line over
// the SDK's limit, which ends the connection without saying why.
type lineMeter struct {
	r io.Reader
	// open is closed once the connection has its logger: the SDK starts
	// reading when the connection is made, before SetLogger, and a line
	// it skipped then went to the default logger (todosh's stderr),
	// uncounted, in a race -race reports.
	open      chan struct{}
	run       int // bytes since the last newline
	oversized atomic.Bool
}

func (m *lineMeter) Read(b []byte) (int, error) {
	if m.open != nil { // only the SDK's one reader uses m
		<-m.open
		m.open = nil
	}
	n, err := m.r.Read(b)
	if i := bytes.LastIndexByte(b[:n], '\n'); i >= 0 {
		m.run = n - i - 1
	} else {
		m.run += n
	}
	// The SDK gives up when a line fills its buffer, a little before the
	// limit; only a connection that ended consults this.
	if m.run >= maxMessage-maxMessage/10 {
		m.oversized.Store(true)
	}
	return n, err
}

// skipped is the SDK's logger: what it logs are messages it skipped (a
// malformed line, an update it does not know); the turn says how many of
// the malformed ones there were, and nothing else is printed.
type skipped struct {
	malformed atomic.Int64
}

func (s *skipped) Enabled(context.Context, slog.Level) bool { return true }

func (s *skipped) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "failed to parse incoming message") {
		s.malformed.Add(1)
	}
	return nil
}

func (s *skipped) WithAttrs([]slog.Attr) slog.Handler { return s }
func (s *skipped) WithGroup(string) slog.Handler      { return s }

func isAlive(p *process) bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// stop ends the agent: stdin closed, SIGTERM to its process group, and
// SIGKILL after the grace time. The next turn starts a new one.
func (a *Agent) stop(p *process) {
	p.cleanup.Do(func() {
		p.stdin.Close()
		killGroup(p.cmd, false)
		select {
		case <-p.exited:
		case <-time.After(a.cfg.KillGrace):
			killGroup(p.cmd, true)
			<-p.exited
		}
		// Children that outlived the leader still share its group.
		killGroup(p.cmd, true)
		procgroup.Release(p.cmd.Process.Pid)
	})
	if a.proc == p {
		a.proc = nil
		a.live.CompareAndSwap(p, nil)
	}
}

// killGroup asks the process group the agent leads to end, or with hard
// ends it at once.
func killGroup(cmd *exec.Cmd, hard bool) {
	switch {
	case cmd.Process == nil:
	case hard:
		procgroup.Kill(cmd.Process.Pid)
	default:
		procgroup.Terminate(cmd.Process.Pid)
	}
}

// turnChans connect the SDK's goroutines to the turn's goroutine, which
// alone emits events and asks the person.
type turnChans struct {
	updates chan acp.SessionUpdate
	perms   chan permission
	done    chan struct{} // closed when the turn ends
}

type permission struct {
	req   acp.RequestPermissionRequest
	reply chan acp.RequestPermissionResponse
}

func newTurn() *turnChans {
	return &turnChans{updates: make(chan acp.SessionUpdate), perms: make(chan permission), done: make(chan struct{})}
}

// client is todosh's side of ACP. It offers no file system and no
// terminal (the agent uses its own), passes updates and permission
// requests to the running turn, and drops what comes between turns (a
// session/load's replay, available commands).
type client struct {
	mu    sync.Mutex
	turn  *turnChans
	relay Relay // nil in the shell
	// dropped counts the messages of updates that came while no turn
	// listened; lastKind is the speaker of the last, lastDrop its time.
	dropped  int
	lastKind string
	lastDrop time.Time
}

func (c *client) setTurn(t *turnChans) {
	c.mu.Lock()
	c.turn = t
	c.mu.Unlock()
}

func (c *client) current() *turnChans {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.turn
}

// replayQuiet and replayMax bound the wait for a reopened session's
// replay: it is over once the agent has sent nothing for replayQuiet, or
// after replayMax whatever it sends.
const (
	replayQuiet = 300 * time.Millisecond
	replayMax   = 5 * time.Second
)

// SessionUpdate implements acp.Client. An update that comes while no turn
// listens (a session/load's replay of the history) is dropped and counted.
func (c *client) SessionUpdate(ctx context.Context, n acp.SessionNotification) error {
	c.relayUpdate(ctx, n.Update)
	if t := c.current(); t != nil {
		select {
		case t.updates <- n.Update:
		case <-t.done:
		case <-ctx.Done():
		}
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastDrop = time.Now()
	kind := ""
	switch {
	case n.Update.UserMessageChunk != nil:
		kind = "user"
	case n.Update.AgentMessageChunk != nil:
		kind = "agent"
	}
	if kind != "" && kind != c.lastKind {
		c.dropped++ // a new message starts where the speaker changes
	}
	if kind != "" || n.Update.ToolCall != nil {
		c.lastKind = kind
	}
	return nil
}

// settle waits until no update has been dropped for quiet since it was
// called (at most max) and returns how many messages were dropped since the last settle.
func (c *client) settle(quiet, max time.Duration) int {
	start := time.Now()
	deadline := start.Add(max)
	for {
		c.mu.Lock()
		idle := time.Since(c.lastDrop)
		c.mu.Unlock()
		idle = min(idle, time.Since(start)) // a replay may not have begun
		if idle >= quiet || !time.Now().Before(deadline) {
			break
		}
		time.Sleep(min(quiet-idle, time.Until(deadline)))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.dropped
	c.dropped, c.lastKind = 0, ""
	return n
}

// RequestPermission implements acp.Client: the turn answers it.
func (c *client) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	t := c.current()
	if t == nil {
		return cancelledOutcome(), nil
	}
	pr := permission{req: req, reply: make(chan acp.RequestPermissionResponse, 1)}
	select {
	case t.perms <- pr:
	case <-t.done:
		return cancelledOutcome(), nil
	case <-ctx.Done():
		return cancelledOutcome(), nil
	}
	select {
	case r := <-pr.reply:
		return r, nil
	case <-ctx.Done():
		return cancelledOutcome(), nil
	}
}

var errNoCapability = acp.NewMethodNotFound

// ReadTextFile implements acp.Client; todosh offers no file system.
func (c *client) ReadTextFile(ctx context.Context, req acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	if c.relay != nil {
		return c.relay.ReadTextFile(ctx, req)
	}
	return acp.ReadTextFileResponse{}, errNoCapability("fs/read_text_file")
}

// WriteTextFile implements acp.Client; todosh offers no file system.
func (c *client) WriteTextFile(ctx context.Context, req acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	if c.relay != nil {
		return c.relay.WriteTextFile(ctx, req)
	}
	return acp.WriteTextFileResponse{}, errNoCapability("fs/write_text_file")
}

// CreateTerminal implements acp.Client; todosh offers no terminal.
func (c *client) CreateTerminal(ctx context.Context, req acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	if c.relay != nil {
		return c.relay.CreateTerminal(ctx, req)
	}
	return acp.CreateTerminalResponse{}, errNoCapability("terminal/create")
}

// KillTerminal implements acp.Client.
func (c *client) KillTerminal(ctx context.Context, req acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	if c.relay != nil {
		return c.relay.KillTerminal(ctx, req)
	}
	return acp.KillTerminalResponse{}, errNoCapability("terminal/kill")
}

// TerminalOutput implements acp.Client.
func (c *client) TerminalOutput(ctx context.Context, req acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	if c.relay != nil {
		return c.relay.TerminalOutput(ctx, req)
	}
	return acp.TerminalOutputResponse{}, errNoCapability("terminal/output")
}

// ReleaseTerminal implements acp.Client.
func (c *client) ReleaseTerminal(ctx context.Context, req acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	if c.relay != nil {
		return c.relay.ReleaseTerminal(ctx, req)
	}
	return acp.ReleaseTerminalResponse{}, errNoCapability("terminal/release")
}

// WaitForTerminalExit implements acp.Client.
func (c *client) WaitForTerminalExit(ctx context.Context, req acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	if c.relay != nil {
		return c.relay.WaitForTerminalExit(ctx, req)
	}
	return acp.WaitForTerminalExitResponse{}, errNoCapability("terminal/wait_for_exit")
}

// tail keeps the end of the agent's stderr, for the one line that says
// why it failed.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 16 << 10

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > tailSize {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailSize:]...)
	}
	return len(b), nil
}

// meaningful is the last line of stderr that says something: not blank,
// not a stack frame, not a bare bracket, not a warning.
func (t *tail) meaningful() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(string(t.buf), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if len(l) < 3 || strings.HasPrefix(l, "at ") || strings.Trim(l, "{}[]()^~ ") == "" {
			continue
		}
		// A warning is no cause ("WARNING: proceeding, even though we
		// could not update PATH: ...", which codex-acp prints at start).
		if low := strings.ToLower(l); strings.HasPrefix(low, "warning") || strings.HasPrefix(low, "warn:") || strings.HasPrefix(low, "(node:") {
			continue
		}
		return todolist.ShortLine(l, 200)
	}
	return ""
}

func derefStr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
