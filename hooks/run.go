package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/clis"
	"github.com/todosh/todosh/continuation"
	"github.com/todosh/todosh/todostore"
)

// LockTimeout is the longest a hook waits for another process that holds
// the session's lock; then it lets the agent go on as if it were not there.
const LockTimeout = 2 * time.Second

// OffEnv turns the hooks off for one run when set to off (or 0, false, no).
const OffEnv = "TODOSH_HOOKS"

// Config is what a hook needs besides its input.
type Config struct {
	Store  *todostore.Store
	Getenv func(string) string
	Now    func() time.Time
}

// Off reports why the hooks do nothing in this environment, "" when they
// work: inside an agent todosh itself runs (it sets agent.SessionEnv in
// every agent's environment, and continues the agent itself), or switched
// off with OffEnv.
func Off(getenv func(string) string) string {
	if getenv(agent.SessionEnv) != "" {
		return "inside todosh"
	}
	switch strings.ToLower(strings.TrimSpace(getenv(OffEnv))) {
	case "off", "0", "false", "no":
		return OffEnv + "=off"
	}
	return ""
}

// Run is `todosh hook AGENT KIND`: it reads the agent's hook input on
// stdin and writes the agent's hook output on stdout. It is never in the
// way: it always exits 0, and on any error it writes nothing on stdout
// (the agent goes on as without the hook) and one line on stderr.
func Run(cfg Config, agentName, kind string, stdin io.Reader, stdout, stderr io.Writer) int {
	if Off(cfg.Getenv) != "" {
		return 0
	}
	out, notices, err := run(cfg, agentName, kind, stdin)
	for _, n := range notices {
		fmt.Fprintf(stderr, "todosh hook %s %s: %s\n", agentName, kind, todostore.ShortLine(n, 300))
	}
	if err != nil {
		fmt.Fprintf(stderr, "todosh hook %s %s: %s\n", agentName, kind, todostore.ShortLine(err.Error(), 300))
		return 0
	}
	if len(out) > 0 {
		stdout.Write(append(out, '\n'))
	}
	return 0
}

// hook is one run's agent, event, input and store.
type hook struct {
	cfg Config
	a   Agent
	ev  Event
	in  Input
	id  string // the todosh session
}

// handlers is what each kind of event does: the output for the agent (nil
// for none) and notices for stderr.
var handlers = map[Kind]func(h *hook) ([]byte, []string, error){
	KindStop:   (*hook).stop,
	KindTool:   (*hook).tool,
	KindPrompt: (*hook).prompt,
	KindStart:  (*hook).start,
}

func run(cfg Config, agentName, kind string, stdin io.Reader) ([]byte, []string, error) {
	a, err := Lookup(agentName)
	if err != nil {
		return nil, nil, err
	}
	k, err := ParseKind(kind)
	if err != nil {
		return nil, nil, err
	}
	ev, _ := a.Event(k)
	data, err := io.ReadAll(io.LimitReader(stdin, MaxInput+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read input: %w", err)
	}
	in, err := ParseInput(a.Name, data)
	if err != nil {
		return nil, nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Store.LockTimeout == 0 || cfg.Store.LockTimeout > LockTimeout {
		cfg.Store.LockTimeout = LockTimeout
	}
	h := &hook{cfg: cfg, a: a, ev: ev, in: in, id: SessionID(a.Name, in.SessionID)}
	return handlers[k](h)
}

// exists reports whether the agent's session has a todosh session: only
// the agent's todo tool makes one, so an agent that never used it is left
// alone at no cost.
func (h *hook) exists() (bool, error) {
	_, err := h.cfg.Store.Load(h.id)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// commit changes the session as the agent's change.
func (h *hook) commit(fn func(s *todostore.Session) error) error {
	_, _, err := h.cfg.Store.Commit(h.id, todostore.ByAgent, fn)
	return err
}

// tools are the agent's todo tools for the continuation prompt: the
// first of its row, or TaskUpdate once the session holds Task ids.
func (h *hook) tools(s *todostore.Session) continuation.Tools {
	names, _ := clis.HookTodoTools(h.a.Name)
	t := continuation.Tools{}
	if len(names) > 0 {
		t.Todo = names[0]
	}
	if s.Agent != nil && len(s.Agent.Tasks) > 0 && slices.Contains(names, "TaskUpdate") {
		t.Todo = "TaskUpdate"
	}
	return t
}

func (h *hook) stop() ([]byte, []string, error) {
	if ok, err := h.exists(); !ok {
		return nil, nil, err
	}
	var out StopOut
	err := h.commit(func(s *todostore.Session) error {
		out = Stop(StopIn{Todos: s.Todos, Paused: s.Paused, PauseReason: s.PauseReason, Reply: h.in.Reply(),
			State: s.Hooks, Tools: h.tools(s)})
		next := out.State
		s.Hooks = &next
		if out.Continue {
			s.MarkAgentRead() // the continuation shows the agent the list
		}
		if out.Line != "" {
			s.Note(h.a.Name + " hook: " + out.Line)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	switch {
	case out.Continue:
		return encode(map[string]string{"decision": h.a.Continue, "reason": out.Prompt})
	case out.Say != "":
		return encode(map[string]string{"systemMessage": out.Say})
	}
	return nil, nil, nil
}

func (h *hook) tool() ([]byte, []string, error) {
	if h.in.AgentID != "" {
		return nil, nil, nil // a sub-agent's list, as the stream parsers skip it
	}
	call := clis.HookCall{Tool: h.in.ToolName, Input: h.in.ToolInput, Response: h.in.ToolResponse}
	var notices []string
	err := h.commit(func(s *todostore.Session) error {
		res, err := clis.MapHookCall(h.a.Name, call, s.Todos)
		if err != nil {
			return err
		}
		notices = res.Notices
		if !res.HasList && res.Task == nil {
			return nil
		}
		ref := &todostore.AgentRef{Kind: h.a.Name, Session: h.in.SessionID}
		if s.Agent != nil && s.Agent.Kind == h.a.Name && s.Agent.Session == h.in.SessionID {
			ref.Tasks = slices.Clone(s.Agent.Tasks)
		}
		var next todostore.HookState
		if res.HasList {
			if _, err := agent.MergeInto(s, res.Todos, h.cfg.Now(), nil); err != nil {
				return err
			}
			next = Given(res.Todos, s.Hooks)
		} else {
			ct := clis.ClaudeTasks{Session: h.in.SessionID, Tasks: ref.Tasks, View: agent.ViewOf(s)}
			out, archived, err := ct.Apply(s.Todos, *res.Task)
			if err != nil {
				return err
			}
			s.AppendArchive(agent.DroppedReason, archived, h.cfg.Now())
			s.Todos, ref.Tasks = out, ct.Tasks
			next = Given(out, s.Hooks)
		}
		s.Agent, s.Hooks = ref, &next
		if s.Cwd == "" {
			s.Cwd = h.in.Cwd
		}
		return nil
	})
	return nil, notices, err
}

func (h *hook) prompt() ([]byte, []string, error) {
	if ok, err := h.exists(); !ok {
		return nil, nil, err
	}
	prompt := ""
	if h.in.Prompt != nil {
		prompt = *h.in.Prompt
	}
	var ctx string
	err := h.commit(func(s *todostore.Session) error {
		ctx = ""
		if !IsPersonPrompt(prompt, s.Hooks) {
			return nil
		}
		st := PersonPrompt(s.Todos, s.Hooks)
		s.Paused, s.PauseReason = false, ""
		var next todostore.HookState
		ctx, next = Context(s.Todos, &st, false)
		s.Hooks = &next
		if ctx != "" {
			s.MarkAgentRead() // the agent is shown the list with the prompt
		}
		return nil
	})
	if err != nil || ctx == "" {
		return nil, nil, err
	}
	return h.context(ctx)
}

func (h *hook) start() ([]byte, []string, error) {
	if ok, err := h.exists(); !ok {
		return nil, nil, err
	}
	var ctx string
	err := h.commit(func(s *todostore.Session) error {
		var next todostore.HookState
		ctx, next = Context(s.Todos, s.Hooks, true)
		s.Hooks = &next
		if ctx != "" {
			s.MarkAgentRead()
		}
		return nil
	})
	if err != nil || ctx == "" {
		return nil, nil, err
	}
	return h.context(ctx)
}

// context is the output that adds text to the agent's context.
func (h *hook) context(text string) ([]byte, []string, error) {
	return encode(map[string]any{"hookSpecificOutput": map[string]string{"hookEventName": h.ev.Name, "additionalContext": text}})
}

// encode is v as one line of JSON.
func encode(v any) ([]byte, []string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil, nil
}
