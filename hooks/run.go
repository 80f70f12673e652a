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
	"syscall"
	"time"

	"github.com/todosh/todosh/todolist"

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
	// BudgetTokens is the stop gate's token budget per prompt, 0 for none
	// (`todosh hook AGENT stop --budget-tokens N`, usage.go).
	BudgetTokens int64
	// Sleep waits between reads of a transcript that does not show the
	// agent's last message yet (usage.go); time.Sleep when nil.
	Sleep func(time.Duration)
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

// ExitStoreUnusable is a hook's exit code when it cannot read or write
// todosh's store: every agent shows the stderr line of a hook that exits
// with it, and none is blocked by it.
const ExitStoreUnusable = 1

// storeUnusable reports whether err says the store cannot be written or
// read at all (its permissions, a read-only or full disk, a file where a
// directory should be), which the person must fix; a held lock or bad
// input is not.
func storeUnusable(err error) bool {
	for _, e := range []error{fs.ErrPermission, syscall.EROFS, syscall.ENOSPC, syscall.ENOTDIR, syscall.EDQUOT} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// Run is `todosh hook AGENT KIND`: it reads the agent's hook input on
// stdin and writes the agent's hook output on stdout. It is never in the
// way: on any error it writes nothing on stdout (the agent goes on as
// without the hook) and one line on stderr, and exits 0, except when the
// store cannot be used (ExitStoreUnusable), so that the agent shows the
// line.
func Run(cfg Config, agentName, kind string, stdin io.Reader, stdout, stderr io.Writer) int {
	if Off(cfg.Getenv) != "" {
		return 0
	}
	out, notices, err := run(cfg, agentName, kind, stdin)
	for _, n := range notices {
		fmt.Fprintf(stderr, "todosh hook %s %s: %s\n", agentName, kind, todolist.ShortLine(n, 300))
	}
	if err != nil && storeUnusable(err) {
		// The agents show a hook's stderr when it exits 1 (a non-blocking
		// error; 2 would block): the person learns that todosh is not
		// keeping the list, and how to find out why.
		fmt.Fprintf(stderr, "todosh hook %s %s: todosh cannot use its store, the list is not kept: run todosh hooks status (%s)\n",
			agentName, kind, todolist.ShortLine(err.Error(), 240))
		return ExitStoreUnusable
	}
	if err != nil {
		fmt.Fprintf(stderr, "todosh hook %s %s: %s\n", agentName, kind, todolist.ShortLine(err.Error(), 300))
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
	_, _, err := h.cfg.Store.Commit(h.id, todolist.ByAgent, fn)
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
	if h.in.AgentID != "" {
		return nil, nil, nil // a sub-agent's stop is never held for the session's list
	}
	if ok, err := h.exists(); !ok {
		return nil, nil, err
	}
	msgs, notices, read := h.promptUsage()
	if h.cfg.BudgetTokens <= 0 {
		notices = nil // the ledger's tokens alone are no cause to speak up
	}
	if read {
		if err := h.recordUsage(msgs); err != nil {
			notices = append(notices, "token usage not recorded: "+err.Error())
		}
	}
	spent, more := h.spent(msgs, read)
	notices = append(notices, more...)
	var out StopOut
	receipt, werr := h.receipts()
	if werr != nil {
		notices = append(notices, "receipts unreadable, completions count by status: "+werr.Error())
	}
	var ans continueOut
	err := h.commit(func(s *todostore.Session) error {
		tools := h.tools(s)
		in := StopIn{Todos: s.Todos, Paused: s.Paused, PauseReason: s.PauseReason, Reply: h.in.Reply(),
			State: s.Hooks, Tools: tools, Receipt: receipt, BudgetTokens: h.cfg.BudgetTokens, Spent: spent}
		if receipt != nil {
			mark := 0
			if s.Hooks != nil {
				mark = s.Hooks.Mark
			}
			in.Known = h.known(mark)
		}
		n, all := waiting(s.Todos, s.Hooks)
		if all {
			in.Todos = offeredOnly(s.Todos, s.Hooks)
		}
		out = Stop(in)
		if all {
			out.Say = "todosh: the agent gets your " + todolist.Plural(n, "new item") + " with your next prompt"
		}
		if out.Continue {
			add, next := offer(s.Todos, &out.State, addTool(tools.Todo))
			out.Prompt, out.State = add+out.Prompt, next
			ans = h.a.continueAnswer("todosh: "+out.Line, out.Prompt, h.cfg.Getenv)
			if ans.Sent != "" {
				out.State.Sent = digest(ans.Sent)
			}
		}
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
		return nil, notices, err
	}
	var res []byte
	switch {
	case out.Continue:
		res, _, err = encode(ans.Out)
	case out.Say != "":
		res, _, err = encode(map[string]string{"systemMessage": out.Say})
	}
	return res, notices, err
}

func (h *hook) tool() ([]byte, []string, error) {
	if h.in.AgentID != "" {
		return nil, nil, nil // a sub-agent's list, as the stream parsers skip it
	}
	call := clis.HookCall{Tool: h.in.ToolName, Input: h.in.ToolInput, Response: h.in.ToolResponse}
	if todo, _ := clis.HookTodoTools(h.a.Name); !slices.Contains(todo, call.Tool) {
		return h.work(call)
	}
	defer h.work(call) // the todo tool's call is a call too, after its list
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
		var texts []string // what the agent's tool holds after the call
		if res.HasList {
			if _, err := agent.MergeInto(s, res.Todos, nil); err != nil {
				return err
			}
			next = Given(res.Todos, s.Hooks)
			for _, t := range res.Todos {
				texts = append(texts, t.Content)
			}
		} else {
			ct := clis.ClaudeTasks{Session: h.in.SessionID, Tasks: ref.Tasks, View: agent.ViewOf(s)}
			out, archived, err := ct.Apply(s.Todos, *res.Task)
			if err != nil {
				return err
			}
			s.AppendArchive(agent.DroppedReason, archived)
			s.Todos, ref.Tasks = out, ct.Tasks
			next = Given(out, s.Hooks)
			for _, t := range ct.Tasks {
				texts = append(texts, t.Subject)
			}
		}
		next = afterCall(s.Todos, texts, next)
		keepFirst(&next, s.Hooks, s.Todos)
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
		if h.owed(prompt, s) {
			// The continuation itself, which the stop's answer only named
			// (byPromptHook).
			tools := h.tools(s)
			add, _ := offer(s.Todos, s.Hooks, addTool(tools.Todo))
			ctx = add + continuation.PromptUnverified(s.Todos, tools, s.Hooks.Level, s.Hooks.Unverified)
			return nil
		}
		if !IsPersonPrompt(prompt, s.Hooks) {
			return nil
		}
		mark := 0
		if s.Change != nil {
			mark = s.Change.N
		}
		st := PersonPrompt(s.Todos, s.Hooks, mark)
		s.Paused, s.PauseReason = false, ""
		var next todostore.HookState
		ctx, next = Context(s.Todos, &st, false)
		ctx, next = h.withOffer(ctx, s, next)
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
		ctx, next = h.withOffer(ctx, s, next)
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

// owed reports whether prompt is the line a stop sent the agent on with
// while the continuation itself is still to be given (byPromptHook: the
// agent runs its prompt hook for the continuation, with that line).
func (h *hook) owed(prompt string, s *todostore.Session) bool {
	return h.a.continueBy == byPromptHook && s.Hooks != nil && s.Hooks.Sent != "" && strings.TrimSpace(prompt) != "" &&
		digest(prompt) == s.Hooks.Sent
}

// withOffer puts before ctx, the list given to the agent, the items its
// tool does not hold, to add with its own tool; nothing when no list is
// given.
func (h *hook) withOffer(ctx string, s *todostore.Session, st todostore.HookState) (string, todostore.HookState) {
	if ctx == "" {
		return ctx, st
	}
	add, next := offer(s.Todos, &st, addTool(h.tools(s).Todo))
	return add + ctx, next
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
