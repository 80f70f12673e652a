// Package acpserve is `todosh acp`: todosh speaks the Agent Client
// Protocol as an agent to an editor on stdio (coder/acp-go-sdk's agent
// side) and runs any todosh backend behind it, built as the shell builds
// it (backends). The editor gets todosh's kept list as plan updates on
// every change from any source, /todo answered by todosh, and the shell's
// continuation inside one session/prompt. Its place in the whole is
// ARCHITECTURE.md §8.
package acpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/todosh/todosh/todolist"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/agent/acpagent"
	"github.com/todosh/todosh/backends"
	"github.com/todosh/todosh/continuation"
	"github.com/todosh/todosh/todostore"
)

// Config is one `todosh acp`.
type Config struct {
	// Root is $TODOSH_HOME.
	Root string
	// Backend is the inner agent's row; NewAgent builds it for a session
	// (nil: no agent, only /todo is answered).
	Backend  *backends.Backend
	NewAgent backends.Factory
	// Continue is false with --no-continue.
	Continue bool
	// Budget is what each prompt may spend (--budget-tokens,
	// --budget-time).
	Budget continuation.Budget
	// RequireEvidence is --require-evidence, the editor's setting's
	// start.
	RequireEvidence bool
	// LockTimeout is how long a change waits for another todosh's lock.
	LockTimeout time.Duration
	// Home and Getenv are for /todo list (other agents' saved lists).
	Home   string
	Getenv func(string) string
	// Version is todosh's, told to the editor in initialize.
	Version string
	// Now is the clock of new session ids; nil means time.Now.
	Now func() time.Time
}

// Server is the agent the editor talks to: one per connection.
type Server struct {
	cfg  Config
	conn *acp.AgentSideConnection
	out  *lockedWriter

	mu   sync.Mutex
	caps acp.ClientCapabilities // what the editor advertised
	// innerMCP are the MCP transports beyond stdio the inner agent takes
	// (its initialize, read by probeMCP), set before probed is closed.
	innerMCP acp.McpCapabilities
	// probeOnce starts probeMCP (or, at close, stands in for it so none
	// starts); probeCtx bounds it.
	probeOnce sync.Once
	probeCtx  context.Context
	probed    chan struct{}
	// spare is the session probeMCP built, whose inner agent it started
	// and left initialized, for the first session/new to use; nil once
	// taken or ended.
	spare    *session
	sessions map[string]*session
	closed   bool
	// initID is the id of the editor's initialize, whose answer patchInit
	// completes; lastInner the inner agent's settings as last heard.
	initID    json.RawMessage
	lastInner acpagent.SessionConfig
	hasInner  bool

	// ctx is the connection's life: prompts run in contexts of it, which
	// their queue cancels (order.go).
	ctx    context.Context
	qmu    sync.Mutex
	queues map[string]*promptQueue
	gates  gates
}

// Serve answers the editor on in and out until in ends or ctx is done,
// then ends every inner agent (their process groups) and returns.
func Serve(ctx context.Context, cfg Config, in io.Reader, out io.Writer) error {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	w := &lockedWriter{w: out}
	pctx, stopProbe := context.WithCancel(ctx)
	defer stopProbe()
	s := &Server{cfg: cfg, sessions: map[string]*session{}, out: w, probed: make(chan struct{}), probeCtx: pctx,
		ctx: pctx, queues: map[string]*promptQueue{}}
	w.rewrite, w.written = s.patchInit, s.gates.written
	// The SDK reads from the moment the connection is made and its
	// handlers use s.conn: the editor's messages flow only once s.conn and
	// its logger are set, or a session/new handled first would find
	// s.conn nil (a race -race saw in agent/acpagent/internal/fakeacp,
	// which started its connection the same way).
	frames, start := filterFrames(in, w, s.route)
	s.conn = acp.NewAgentSideConnection(s, w, frames)
	s.conn.SetLogger(slog.New(slog.DiscardHandler))
	start()
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
	}
	stopProbe()
	s.closeAll()
	return nil
}

// probeTimeout bounds the start of the inner agent that probeMCP asks.
const probeTimeout = 30 * time.Second

// startProbe starts probeMCP once: at the editor's initialize, so the
// agent it starts is offered the editor's capabilities (it is the agent
// the first session gets), or at a session/new that came without one.
func (s *Server) startProbe() {
	s.probeOnce.Do(func() { go s.probeMCP(s.probeCtx) })
}

// probeMCP learns which MCP transports beyond stdio the inner agent takes,
// from its own initialize (a backend that cannot say takes none), so that
// todosh's initialize advertises to the editor only what it can pass on.
// The agent is built for a session of its own (a new id, in todosh's
// directory) and left running as s.spare, so the first session/new in
// that directory uses it instead of starting the agent a second time. An
// agent that does not start takes none: session/new then says why.
func (s *Server) probeMCP(ctx context.Context) {
	defer close(s.probed)
	if s.cfg.NewAgent == nil || s.cfg.Backend == nil || !s.cfg.Backend.ACP {
		return
	}
	cwd, err := os.Getwd()
	if err != nil {
		cwd = "" // the agent runs in todosh's directory; no session/new takes it
	}
	ss, err := s.build(todostore.NewSessionID(s.cfg.Now()), cwd)
	if err != nil {
		return
	}
	p, ok := ss.agent.(interface {
		Probe(context.Context) (acp.AgentCapabilities, error)
	})
	if !ok {
		ss.close()
		return
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	caps, err := p.Probe(ctx)
	if err != nil {
		ss.close()
		return
	}
	// todosh relays no MCP over ACP itself, so only http and sse.
	s.innerMCP = acp.McpCapabilities{Http: caps.McpCapabilities.Http, Sse: caps.McpCapabilities.Sse}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ss.close()
		return
	}
	s.spare = ss
	s.mu.Unlock()
}

// takeSpare hands over the probe's session when a session/new in cwd can
// be it (same directory: its agent already runs there, under its id);
// otherwise it ends the spare agent, so no idle process outlives the
// first session opened, and returns nil.
func (s *Server) takeSpare(cwd string) *session {
	s.mcpCaps(context.Background()) // the probe is over
	s.mu.Lock()
	ss := s.spare
	s.spare = nil
	s.mu.Unlock()
	if ss == nil {
		return nil
	}
	if cwd != "" && sameDir(ss.cwd, cwd) {
		return ss
	}
	go ss.close()
	return nil
}

// sameDir reports whether a and b are the same directory, spelled the
// same: the session keeps the editor's spelling of its cwd, so a spare
// built with another (a symlink, todosh's resolved path) is not used.
func sameDir(a, b string) bool {
	return a != "" && b != "" && filepath.Clean(a) == filepath.Clean(b)
}

// mcpCaps are the MCP transports beyond stdio todosh passes on to the
// inner agent, once probeMCP knows them (or ctx ends: none).
func (s *Server) mcpCaps(ctx context.Context) acp.McpCapabilities {
	s.startProbe()
	select {
	case <-s.probed:
		return s.innerMCP
	case <-ctx.Done():
		return acp.McpCapabilities{}
	}
}

// lockedWriter keeps the SDK's messages and the frame filter's replies
// whole lines: each Write is one message. rewrite may change a message
// before it is written (patchInit); written sees each one after
// (the gates).
type lockedWriter struct {
	mu      sync.Mutex
	w       io.Writer
	rewrite func([]byte) []byte
	written func([]byte)
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	n := len(b)
	if l.rewrite != nil {
		b = l.rewrite(b)
	}
	l.mu.Lock()
	_, err := l.w.Write(b)
	l.mu.Unlock()
	if l.written != nil {
		l.written(b)
	}
	return n, err
}

// closeAll ends every session and the probe's spare agent; no prompt
// can open a session after it, and no probe starts.
func (s *Server) closeAll() {
	s.probeOnce.Do(func() { close(s.probed) })
	s.mu.Lock()
	s.closed = true
	all := s.sessions
	s.sessions = map[string]*session{}
	s.mu.Unlock()
	s.qmu.Lock()
	for _, q := range s.queues {
		q.close()
	}
	s.qmu.Unlock()
	<-s.probed // a probe under way ends (its context is done) or leaves a spare
	s.mu.Lock()
	spare := s.spare
	s.spare = nil
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, ss := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ss.close()
		}()
	}
	if spare != nil {
		spare.close()
	}
	wg.Wait()
}

func (s *Server) clientCaps() acp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// Initialize implements acp.Agent: todosh offers session/load (the
// conversation kept in its transcript), session/list, session/resume,
// session/close and session/delete (patchInit), and text prompts with
// embedded context (PromptText); images and audio are not passed to the
// inner agent, so they are not advertised. MCP servers over http or sse
// are advertised when the inner agent takes them (probeMCP).
func (s *Server) Initialize(ctx context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	s.mu.Lock()
	s.caps = p.ClientCapabilities
	s.mu.Unlock()
	s.startProbe()
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: acp.PromptCapabilities{EmbeddedContext: true},
			McpCapabilities:    s.mcpCaps(ctx),
			SessionCapabilities: acp.SessionCapabilities{
				List:   &acp.SessionListCapabilities{},
				Resume: &acp.SessionResumeCapabilities{},
				Close:  &acp.SessionCloseCapabilities{},
			},
		},
		AgentInfo:   &acp.Implementation{Name: "todosh", Title: acp.Ptr(s.title()), Version: s.cfg.Version},
		AuthMethods: []acp.AuthMethod{},
	}, nil
}

// title names todosh and its inner agent for the editor's header.
func (s *Server) title() string {
	if s.cfg.Backend == nil || s.cfg.NewAgent == nil {
		return "todosh"
	}
	return "todosh (" + s.cfg.Backend.Name + ")"
}

// Authenticate implements acp.Agent. todosh advertises no methods (the
// inner agent's own login is its own business), so every method id is
// unknown.
func (s *Server) Authenticate(_ context.Context, p acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, invalidParams(fmt.Sprintf("authenticate: unknown method id %q: todosh offers no authentication methods (initialize's authMethods is empty)", todoShort(p.MethodId)))
}

// NewSession implements acp.Agent: a new todosh session in the editor's
// directory, whose id is the ACP session id. The inner agent does not
// start here but with the first prompt that needs it (or a setting of its
// own), so a /todo in a new thread is answered at once; its settings are
// those it last told, and come again when it starts.
func (s *Server) NewSession(ctx context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	if err := checkCwd(p.Cwd); err != nil {
		return acp.NewSessionResponse{}, err
	}
	ss := s.takeSpare(p.Cwd)
	if ss == nil {
		var err error
		if ss, err = s.build(todostore.NewSessionID(s.cfg.Now()), p.Cwd); err != nil {
			return acp.NewSessionResponse{}, err
		}
	}
	ss.gated = true
	s.gates.holdNew(ss)
	id := ss.id
	ss, err := s.register(ss, p.McpServers)
	if err != nil {
		s.gates.forget(id)
		return acp.NewSessionResponse{}, err
	}
	ss.afterOpen()
	modes, models, opts := ss.answer()
	return acp.NewSessionResponse{SessionId: acp.SessionId(ss.id), Modes: modes, Models: models, ConfigOptions: opts}, nil
}

// LoadSession implements acp.Agent: reopens a todosh session and replays
// its conversation (the transcript) and its list as the plan before
// answering; its inner agent's session is reopened with the first prompt.
func (s *Server) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	ss, err := s.reopen(ctx, string(p.SessionId), p.Cwd, p.McpServers, acp.AgentMethodSessionLoad)
	if err != nil {
		return acp.LoadSessionResponse{}, err
	}
	if n := ss.replay(); n > 0 {
		ss.replayNow(acp.UpdateAgentMessageText(fmt.Sprintf("todosh: %s of the conversation could not be read\n\n", todolist.Plural(n, "line"))))
	}
	ss.afterOpen()
	modes, models, opts := ss.answer()
	return acp.LoadSessionResponse{Modes: modes, Models: models, ConfigOptions: opts}, nil
}

// reopen is an existing todosh session opened for the editor by
// session/load or session/resume: the one open already, or a new one on
// its files, whose updates wait for the answer (order.go).
func (s *Server) reopen(_ context.Context, id, cwd string, servers []acp.McpServer, method string) (*session, error) {
	if err := todostore.ValidSessionID(id); err != nil {
		return nil, invalidParams(method + ": " + err.Error())
	}
	if err := checkCwd(cwd); err != nil {
		return nil, err
	}
	if _, err := todostore.Open(s.cfg.Root).Load(id); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, invalidParams(fmt.Sprintf("%s: no todosh session %s (session/list lists them)", method, id))
		}
		return nil, internalError(method + ": " + err.Error())
	}
	if ss := s.session(id); ss != nil {
		return ss, nil
	}
	// The probe's agent runs under its own new id, not this one.
	s.takeSpare("")
	ss, err := s.build(id, cwd)
	if err != nil {
		return nil, err
	}
	ss.gated = true
	s.gates.holdReopen(ss)
	reg, err := s.register(ss, servers)
	if err != nil {
		s.gates.forget(id)
	}
	return reg, err
}

// checkCwd refuses a cwd that is not an absolute path, as ACP requires.
func checkCwd(cwd string) error {
	if !filepath.IsAbs(cwd) {
		return invalidParams(fmt.Sprintf("cwd %q is not an absolute path", cwd))
	}
	return nil
}

// session returns an open session, or nil.
func (s *Server) session(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// Prompt implements acp.Agent; see session.prompt. Prompts of a session
// run in the order the editor sent them, each cancelled by the next or
// by session/cancel (promptQueue).
func (s *Server) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	if seq := promptSeq(p); seq > 0 {
		qctx, cancelled, end := s.queue(string(p.SessionId)).begin(s.ctx, seq)
		defer end()
		ctx = qctx
		if cancelled && !IsTodoCommand(PromptText(p.Prompt)) {
			if s.session(string(p.SessionId)) != nil {
				return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
			}
		}
	}
	ss := s.session(string(p.SessionId))
	if ss == nil {
		return acp.PromptResponse{}, invalidParams(fmt.Sprintf("session/prompt: unknown session %q: call session/new or session/load first", p.SessionId))
	}
	return ss.prompt(ctx, PromptText(p.Prompt), LeftOut(p.Prompt))
}

// Cancel implements acp.Agent. The frame filter has cancelled the
// session's prompts by then, in the order the editor sent them (route).
func (s *Server) Cancel(context.Context, acp.CancelNotification) error { return nil }

func invalidParams(msg string) error {
	return acp.NewInvalidParams(map[string]any{"error": msg})
}

// internalError is a failure the editor shows: its message is the one
// line that says why.
func internalError(msg string) error {
	return &acp.RequestError{Code: -32603, Message: todolist.ShortLine(msg, 300)}
}
