package clis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/todostore"
)

// Config is how to run a CLI.
type Config struct {
	// Bin is the executable; empty means the kind's name looked up on PATH.
	Bin string
	// Args are passed through to every invocation (--agent-arg).
	Args []string
	// Dir is the working directory of the CLI; empty means todosh's.
	Dir string
	// KillGrace is how long a cancelled CLI has between SIGTERM and SIGKILL
	// to its process group; zero means DefaultKillGrace.
	KillGrace time.Duration
	// Env, when not nil, is the CLI's environment instead of todosh's.
	Env []string
	// IdleLimit stops a turn whose CLI has written nothing for this long;
	// zero means no limit (the --idle-limit flag defaults to
	// DefaultIdleLimit).
	IdleLimit time.Duration
	// MCPTools are todosh's MCP tools as the CLI spells them, the
	// whole-list tool first (mcp__todosh__todo_write); empty when the CLI
	// is not given todosh's MCP server.
	MCPTools []string
	// MaxRetries stops a turn whose CLI reported this many retries or
	// reconnects in a row with nothing else between them; zero means
	// DefaultMaxRetries.
	MaxRetries int
}

// DefaultKillGrace is the time a cancelled CLI gets to exit on SIGTERM.
const DefaultKillGrace = 2 * time.Second

// DefaultIdleLimit is --idle-limit's default: long enough for a slow model
// or a long build run by a tool, short enough that a CLI waiting on a
// network that never answers does not hold the shell for good.
const DefaultIdleLimit = 10 * time.Minute

// DefaultMaxRetries is how many retries or reconnects in a row end a turn:
// more than any CLI's own retry budget (Claude Code's is 10), so only a
// CLI that never gives up is stopped.
const DefaultMaxRetries = 30

// New returns the backend for kind (one of Kinds) working on sess. The
// executable is looked up when a turn starts, so a missing CLI is a turn
// error the person can fix without restarting.
func New(kind string, cfg Config, sess agent.Session) (agent.Agent, error) {
	row, err := lookup(kind)
	if err != nil {
		return nil, err
	}
	if cfg.Bin == "" {
		cfg.Bin = kind
	}
	if cfg.KillGrace <= 0 {
		cfg.KillGrace = DefaultKillGrace
	}
	if cfg.MaxRetries <= 0 {
		cfg.MaxRetries = DefaultMaxRetries
	}
	if defaults := slices.Concat(row.env, row.toolEnv); len(defaults) > 0 {
		if cfg.Env == nil {
			cfg.Env = os.Environ()
		}
		cfg.Env = WithDefaults(cfg.Env, defaults)
	}
	return &cliAgent{kind: kind, row: row, cfg: cfg, sess: sess}, nil
}

// cliAgent is one wrapped CLI. Its state beyond the session file is
// whether the Claude session uses the Task tools (also kept on disk) and
// what the person was already told this session.
type cliAgent struct {
	kind      string
	row       *cli
	cfg       Config
	sess      agent.Session
	usesTasks bool
	// tool and load are the todo tool the stream showed the session has,
	// as the CLI spells it, and the tool that loads it when deferred.
	tool, load string
	sawTodo    bool // a todo update arrived this session
	warned     bool // the person was told the list cannot be kept
	// threadUsage is, for a CLI whose usage is its session's running
	// total (the row's usageBefore), each session's total after the last
	// turn this process ran in it.
	threadUsage map[string]agent.Usage
}

// Name is the CLI's kind.
func (a *cliAgent) Name() string { return a.kind }

// TodoTool names the todo tool the continuation prompt names: the one the
// stream showed the session has, else the CLI's first.
func (a *cliAgent) TodoTool() string {
	switch {
	case a.usesTasks:
		return "TaskUpdate"
	case a.tool != "":
		return a.tool
	}
	return a.row.todoTools[0]
}

// LoadTool is the tool that loads deferred tools ("ToolSearch") when the
// stream showed the CLI has one; see agent.ToolLoader.
func (a *cliAgent) LoadTool() string { return a.load }

// turnState is what one turn has gathered from the stream.
type turnState struct {
	finalText string          // the final text the CLI's turn end named
	message   strings.Builder // text since the last other update
	lastMsg   string          // the last finished run of text
	errMsg    string          // the last error the CLI reported, cleared by a later success
	tasks     ClaudeTasks     // Claude's task ids, as saved in the session file
	lastSaid  string          // the last thing the agent said: text, a tool line, a status
	status    string          // the status shown now, "" when none
	retries   int             // statuses in a row with nothing else between them
	noTool    string          // how the stream showed there is no todo tool, "" if it did not
	// pendingSession is the CLI's session id while the session has no
	// file: it is written at the end of the turn, so a prompt that fails
	// before the list changes leaves no file.
	pendingSession string
	// session is the CLI's session id as this turn's stream reported it.
	session string
	// applied is the last whole list the CLI sent that was applied: the
	// same list again costs no lock, read or write.
	applied []todolist.Todo
	// usageBefore is the session's usage total before the turn, for a
	// CLI that reports totals of its session (cli.usageBefore); usage is
	// what the turn spent.
	usageBefore, usage agent.Usage
}

// endMessage closes the run of text pieces in progress.
func (st *turnState) endMessage() {
	if st.message.Len() > 0 {
		st.lastMsg = st.message.String()
		st.message.Reset()
	}
}

// lastMessage is the agent's last text: the run in progress or the last one.
func (st *turnState) lastMessage() string {
	st.endMessage()
	return st.lastMsg
}

// errIdle ends a turn whose CLI wrote nothing for the idle limit.
var errIdle = errors.New("idle")

// stopped is why todosh ended a turn that was going nowhere.
type stopped struct {
	cli, why, lastSaid string
}

func (e *stopped) Error() string {
	msg := e.cli + ": " + e.why + ", stopped"
	if e.lastSaid == "" {
		return msg + " (it said nothing)"
	}
	return msg + "; last it said: " + strconv.Quote(todolist.ShortLine(e.lastSaid, 160))
}

// RunTurn runs the CLI once for turn; when the CLI's own session turns out
// to be gone, it says so once and runs it again in a new session, which
// gets the open items like any first turn. See agent.Agent.
func (a *cliAgent) RunTurn(ctx context.Context, turn agent.Turn, emit func(agent.Event)) (agent.Result, error) {
	s, err := a.sess.Load()
	if err != nil {
		return agent.Result{}, fmt.Errorf("%s: %w", a.kind, err)
	}
	resume := ""
	if ref := s.Agent; ref != nil && ref.Session != "" {
		if ref.Kind == a.kind {
			resume = ref.Session
		} else {
			emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("this list was worked on with %s; starting a new %s session", ref.Kind, a.kind)})
		}
	}
	res, err, gone := a.runTurn(ctx, turn, s, resume, emit)
	if !gone {
		return res, err
	}
	emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("%s: session %s cannot be resumed; a new one starts with the open items", a.kind, resume)})
	if _, uerr := a.sess.Update(func(s *todostore.Session) error {
		s.Agent = nil
		return nil
	}); uerr != nil {
		return res, fmt.Errorf("%s: forget the gone session: %w", a.kind, uerr)
	}
	res, err, _ = a.runTurn(ctx, turn, s, "", emit)
	return res, err
}

// runTurn runs the CLI once. gone is true when it failed because the
// session it was asked to resume does not exist.
func (a *cliAgent) runTurn(ctx context.Context, turn agent.Turn, s *todostore.Session, resume string, emit func(agent.Event)) (res agent.Result, err error, gone bool) {
	var st turnState
	parser := a.newParser(s, resume, &st)
	ctxFile, err := a.contextFile(turn)
	if err != nil {
		return res, err, false
	}
	if ctxFile != "" {
		defer os.Remove(ctxFile)
	}
	args := a.row.args(argsIn{extra: a.cfg.Args, resume: resume, contextFile: ctxFile, noGit: !insideGitRepo(a.dirOrCwd())})
	wctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var idle func()
	if a.cfg.IdleLimit > 0 {
		// The timer only says why; what the agent said last is read once
		// the stream has stopped, on this goroutine.
		timer := time.AfterFunc(a.cfg.IdleLimit, func() { stop(errIdle) })
		defer timer.Stop()
		idle = func() { timer.Reset(a.cfg.IdleLimit) }
	}
	handle := func(u Update) {
		if wctx.Err() != nil {
			return // cancelled or stopped: nothing more is shown or saved
		}
		if u.Kind == UpdateStatus && idle != nil {
			idle() // a trouble line on stderr is output too
		}
		a.handle(u, &st, emit)
		if u.Kind == UpdateStatus && st.retries >= a.cfg.MaxRetries {
			stop(&stopped{cli: a.kind, why: fmt.Sprintf("%d retries or reconnects in a row", st.retries), lastSaid: st.lastSaid})
		}
	}
	out, runErr := a.run(wctx, args, a.row.stdinText(turn), activity{parser, idle}, handle)
	a.correctStatuses(wctx, resume, &st, emit)
	a.keepUsage(resume, &st)
	if st.status != "" {
		emit(agent.Event{Kind: agent.EventStatus})
		if ctx.Err() != nil {
			// The status goes away with the turn; what the agent was
			// going through when the person stopped it stays said.
			emit(agent.Event{Kind: agent.EventNotice, Text: a.kind + " last said: " + st.status})
		}
	}
	if st.pendingSession != "" && (runErr == nil && st.errMsg == "" && ctx.Err() == nil || a.hasFile()) {
		if err := a.saveSession(st.pendingSession, st.tasks.Tasks); err != nil {
			emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("%s: session id not saved: %v", a.kind, err)})
		}
	}
	if tp, ok := parser.(taskParser); ok && tp.usesTasks() {
		a.usesTasks = true
	}
	if st.noTool != "" && !a.sawTodo && !a.warned && a.row.listHint != "" && ctx.Err() == nil {
		a.warned = true
		// Two short lines: what is wrong, then what to change. A variable
		// the person set against the row's default is the likeliest cause.
		cause, hint := st.noTool, a.row.listHint
		if kv := a.row.overridden(a.cfg.Env); kv != "" {
			key, _, _ := strings.Cut(kv, "=")
			cause = kv + " in your environment hides its todo tools"
			hint = "unset " + key + " (todosh then sets it to what " + a.kind + " needs)"
		}
		emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("%s: its todo list cannot be kept: %s", a.kind, cause)})
		emit(agent.Event{Kind: agent.EventNotice, Text: a.kind + ": " + hint})
	}
	res = agent.Result{FinalText: st.finalText}
	if res.FinalText == "" {
		res.FinalText = strings.TrimSpace(st.lastMessage())
	}
	if ctx.Err() != nil {
		return res, ctx.Err(), false
	}
	var why *stopped
	if errors.As(context.Cause(wctx), &why) {
		return res, why, false
	}
	if errors.Is(context.Cause(wctx), errIdle) {
		return res, &stopped{cli: a.kind, why: "no output for " + a.cfg.IdleLimit.String(), lastSaid: st.lastSaidNow()}, false
	}
	var ee *exitError
	switch {
	case st.errMsg != "" && (runErr == nil || errors.As(runErr, &ee)):
		err = fmt.Errorf("%s: %s", a.kind, todolist.ShortLine(st.errMsg, 300))
	case runErr != nil:
		err = runErr
	}
	if err != nil && resume != "" && a.row.sessionIsGone(err.Error()+"\n"+st.errMsg+"\n"+out.stderr) {
		return res, err, true
	}
	return res, err, false
}

// correctStatuses applies the row's planStatuses to the last list the
// turn applied, once the CLI has exited (its record is then complete), so
// the list after the turn has the statuses the CLI's stream left out.
func (a *cliAgent) correctStatuses(wctx context.Context, resume string, st *turnState, emit func(agent.Event)) {
	if a.row.planStatuses == nil || st.applied == nil || wctx.Err() != nil {
		return
	}
	env := a.cfg.Env
	if env == nil {
		env = os.Environ()
	}
	id := st.session
	if id == "" {
		id = resume
	}
	if todos, ok := a.row.planStatuses(env, id, st.applied); ok {
		a.handle(Update{Kind: UpdateTodos, Todos: todos}, st, emit)
	}
}

// lastSaidNow is lastSaid with the text still being streamed.
func (st *turnState) lastSaidNow() string {
	if st.message.Len() > 0 {
		return lastLine(st.message.String())
	}
	return st.lastSaid
}

// lastLine is the last non-blank line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// sessionIsGone reports whether text holds the CLI's answer to resuming a
// session that does not exist.
func (c *cli) sessionIsGone(text string) bool {
	text = strings.ToLower(text)
	for _, s := range c.sessionGone {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// contextFile writes the turn's todo context to a new file only its owner
// can read, for a CLI that is told where to read it; "" when the CLI has
// no such flag or nothing is open. The caller removes it after the turn.
func (a *cliAgent) contextFile(turn agent.Turn) (string, error) {
	if a.row.contextFlag == "" || strings.TrimSpace(turn.TodoContext) == "" {
		return "", nil
	}
	f, err := os.CreateTemp("", "todosh-context-*.md") // mode 0600
	if err != nil {
		return "", fmt.Errorf("%s: write the todo context: %w", a.kind, err)
	}
	_, err = f.WriteString(turn.TodoContext)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("%s: write the todo context: %w", a.kind, err)
	}
	return f.Name(), nil
}

// activity passes lines to a parser and calls seen (when not nil) for each
// one, so the idle limit counts every line, not only those that matter.
type activity struct {
	Parser
	seen func()
}

func (p activity) Line(line []byte, emit func(Update)) error {
	if p.seen != nil {
		p.seen()
	}
	return p.Parser.Line(line, emit)
}

func (a *cliAgent) dirOrCwd() string {
	if a.cfg.Dir != "" {
		return a.cfg.Dir
	}
	wd, _ := os.Getwd()
	return wd
}

// newParser makes the turn's parser, seeded with what earlier turns left:
// the previous list; for a CLI with task tools (its row's tasks), the task
// ids of the resumed session (into st.tasks) and whether it uses them.
func (a *cliAgent) newParser(s *todostore.Session, resume string, st *turnState) Parser {
	if a.row.tasks {
		st.tasks = ClaudeTasks{Session: resume}
		if resume != "" && s.Agent != nil && s.Agent.Kind == a.kind && s.Agent.Session == resume {
			st.tasks.Tasks = slices.Clone(s.Agent.Tasks)
		}
		if resume != "" && len(st.tasks.Tasks) == 0 {
			// An older todosh kept the ids beside the session file; the next
			// task change writes them into the session file.
			var old ClaudeTasks
			if data, err := os.ReadFile(filepath.Join(a.sess.Store.Dir, ".todo-"+a.sess.ID+".claude-tasks.json")); err == nil &&
				json.Unmarshal(data, &old) == nil && old.Session == resume {
				st.tasks.Tasks = old.Tasks
			}
		}
		a.usesTasks = len(st.tasks.Tasks) > 0
	}
	if a.row.usageBefore != nil && resume != "" {
		var ok bool
		if st.usageBefore, ok = a.threadUsage[resume]; !ok {
			st.usageBefore = a.row.usageBefore(a.cfg.Env, resume)
		}
	}
	return a.row.parser(parserIn{prev: s.Todos, usesTasks: a.usesTasks, mcpTools: a.cfg.MCPTools, usageBefore: st.usageBefore})
}

// keepUsage remembers the session's usage total after the turn, for a CLI
// that reports totals of its session: the next turn's usage is what its
// total adds.
func (a *cliAgent) keepUsage(resume string, st *turnState) {
	id := st.session
	if id == "" {
		id = resume
	}
	if a.row.usageBefore == nil || id == "" {
		return
	}
	if a.threadUsage == nil {
		a.threadUsage = map[string]agent.Usage{}
	}
	base := st.usageBefore
	if id != resume {
		base = agent.Usage{} // a new session
	}
	a.threadUsage[id] = agent.Usage{Input: base.Input + st.usage.Input, Output: base.Output + st.usage.Output}
}

// handle acts on one update of the stream.
func (a *cliAgent) handle(u Update, st *turnState, emit func(agent.Event)) {
	if u.Kind != UpdateText {
		if st.message.Len() > 0 {
			st.lastSaid = lastLine(st.message.String())
		}
		st.endMessage()
	}
	if u.Kind == UpdateStatus {
		st.retries++
	} else {
		st.retries = 0
	}
	switch u.Kind {
	case UpdateSession:
		st.session = u.Text
		if a.row.tasks {
			// A resumed session may come back under a new id; its tasks
			// are the same tasks, and the next turn resumes the new id.
			st.tasks.Session = u.Text
		}
		if !a.hasFile() {
			st.pendingSession = u.Text
		} else if err := a.saveSession(u.Text, st.tasks.Tasks); err != nil {
			emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("%s: session id not saved: %v", a.kind, err)})
		}
	case UpdateText:
		st.message.WriteString(u.Text)
		emit(agent.Event{Kind: agent.EventText, Text: u.Text})
	case UpdateToolCall:
		if u.Text != "" {
			st.lastSaid = u.Text
		}
		emit(agent.Event{Kind: agent.EventToolCall, Text: u.Text, Tool: u.Tool})
	case UpdateStatus:
		st.lastSaid, st.status = u.Text, u.Text
		emit(agent.Event{Kind: agent.EventStatus, Text: u.Text})
	case UpdateNoTodoTool:
		st.noTool = u.Text
	case UpdateTools:
		a.tool, a.load = u.Text, u.Load
	case UpdateTodos:
		a.sawTodo = true
		if st.applied != nil && agent.SameList(st.applied, u.Todos) {
			return // the same list again: nothing to do
		}
		res, err := agent.ApplyAgentList(a.sess, u.Todos, agent.TickCompletedRule)
		if err == nil {
			st.applied = todolist.CloneTodos(u.Todos)
		}
		a.shown(res.Todos, res.Changed, err, emit)
	case UpdateTask:
		a.sawTodo = true
		if u.Task != nil {
			a.applyTask(*u.Task, st, emit)
		}
	case UpdateError:
		// Shown as it happens; if the turn fails for it, its line says so.
		st.errMsg, st.lastSaid, st.status = u.Text, u.Text, u.Text
		emit(agent.Event{Kind: agent.EventStatus, Text: u.Text})
	case UpdateTurnEnd:
		st.errMsg = ""
		st.finalText = strings.TrimSpace(u.Text)
	case UpdateNotice:
		emit(agent.Event{Kind: agent.EventNotice, Text: u.Text})
	case UpdateUsage:
		st.usage.Input += u.Usage.Input
		st.usage.Output += u.Usage.Output
		emit(agent.Event{Kind: agent.EventUsage, Usage: u.Usage, AtEnd: u.AtEnd})
	}
}

// shown emits the list after a todo update when it changed, or the error
// that kept it from being saved.
func (a *cliAgent) shown(todos []todolist.Todo, changed bool, err error, emit func(agent.Event)) {
	if err != nil {
		emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("%s: todo list not saved: %v", a.kind, err)})
	} else if changed {
		emit(agent.Event{Kind: agent.EventTodos, Todos: todos})
	}
}

// applyTask applies one Task tool call to its item, and the task ids to
// the session's agent record, in one locked change. Items it deletes are
// archived as agent.DroppedReason.
func (a *cliAgent) applyTask(op TaskOp, st *turnState, emit func(agent.Event)) {
	var next ClaudeTasks
	listChanged := false
	s, changed, err := agent.UpdateIfChanged(a.sess, func(s *todostore.Session) (bool, error) {
		next = ClaudeTasks{Session: st.tasks.Session, Tasks: slices.Clone(st.tasks.Tasks), View: agent.ViewOf(s)}
		out, archived, err := next.Apply(s.Todos, op)
		if err != nil {
			return false, err
		}
		listChanged = !agent.SameList(s.Todos, out)
		if next.Session != "" && st.pendingSession == "" {
			s.Agent = &todostore.AgentRef{Kind: a.kind, Session: next.Session, Tasks: next.Tasks}
		}
		s.AppendArchive(agent.DroppedReason, archived)
		s.Todos = out
		return true, nil
	})
	if err == nil {
		st.tasks = next
	}
	var todos []todolist.Todo
	if s != nil {
		todos = s.Todos
	}
	a.shown(todos, changed && listChanged, err, emit)
}

// saveSession records the CLI's session id (and its task ids, for a CLI
// with task tools) in the session file; the store writes nothing when they
// are already there.
func (a *cliAgent) saveSession(id string, tasks []ClaudeTask) error {
	_, err := a.sess.Update(func(s *todostore.Session) error {
		ref := &todostore.AgentRef{Kind: a.kind, Session: id}
		if a.row.tasks {
			ref.Tasks = slices.Clone(tasks)
		}
		s.Agent = ref
		return nil
	})
	return err
}

// hasFile reports whether the session has a file yet.
func (a *cliAgent) hasFile() bool {
	_, err := os.Lstat(a.sess.Store.Path(a.sess.ID))
	return err == nil
}

// insideGitRepo reports whether dir or one of its parents holds .git.
func insideGitRepo(dir string) bool {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// ShowsWork is true: a CLI's stream shows every tool call it makes and
// how it ended (agent.WorkShower).
func (a *cliAgent) ShowsWork() bool { return true }
