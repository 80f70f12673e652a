// Package clis wraps the agent CLIs people already use — Claude Code, Codex
// and Gemini CLI — behind agent.Agent. Each turn runs the CLI once in its
// headless streaming mode, maps its todo events onto the session's list
// (whole lists merged with agent.ApplyAgentList so the person's items
// survive, Claude's Task tools applied one item at a time) and
// saves the CLI's own session id so every later turn resumes it.
//
// The stream parsers (ClaudeParser, CodexParser, GeminiParser) are pure and
// fast; this file is the process handling around them.
package clis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/todostore"
)

// Kinds are the CLIs New accepts.
var Kinds = []string{"claude", "codex", "gemini"}

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
}

// DefaultKillGrace is the time a cancelled CLI gets to exit on SIGTERM.
const DefaultKillGrace = 2 * time.Second

// outputLinger is how long todosh keeps reading after the CLI exited, in
// case a process it left behind still holds its standard output.
const outputLinger = 500 * time.Millisecond

// New returns the backend for kind ("claude", "codex" or "gemini") working
// on sess. The executable is looked up when a turn starts, so a missing
// CLI is a turn error the person can fix without restarting.
func New(kind string, cfg Config, sess agent.Session) (agent.Agent, error) {
	switch kind {
	case "claude", "codex", "gemini":
	default:
		return nil, fmt.Errorf("unknown agent CLI %q (want %s)", kind, strings.Join(Kinds, ", "))
	}
	if cfg.Bin == "" {
		cfg.Bin = kind
	}
	if cfg.KillGrace <= 0 {
		cfg.KillGrace = DefaultKillGrace
	}
	return &cliAgent{kind: kind, cfg: cfg, sess: sess}, nil
}

// cliAgent is one wrapped CLI. Its only state beyond the session file is
// whether the Claude session uses the Task tools, also kept on disk.
type cliAgent struct {
	kind      string
	cfg       Config
	sess      agent.Session
	usesTasks bool
}

// Name is the CLI's kind.
func (a *cliAgent) Name() string { return a.kind }

// TodoTool names the CLI's own todo tool for the continuation prompt.
func (a *cliAgent) TodoTool() string {
	switch a.kind {
	case "codex":
		return "update_plan"
	case "gemini":
		return "write_todos"
	}
	if a.usesTasks {
		return "TaskUpdate"
	}
	return "TodoWrite"
}

// turnState is what one turn has gathered from the stream.
type turnState struct {
	finalText string          // the final text the CLI's turn end named
	message   strings.Builder // text since the last other update
	lastMsg   string          // the last finished run of text
	errMsg    string          // the last error the CLI reported, cleared by a later success
	tasks     ClaudeTasks     // Claude's task ids, as saved in the session file
	// pendingSession is the CLI's session id while the session has no
	// file: it is written at the end of the turn, so a prompt that fails
	// before the list changes leaves no file.
	pendingSession string
	// applied is the last whole list the CLI sent that was applied: the
	// same list again costs no lock, read or write.
	applied []todostore.Todo
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

// RunTurn runs the CLI once for turn. See agent.Agent.
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
	var st turnState
	parser := a.newParser(s, resume, &st)
	args := buildArgs(a.kind, a.cfg.Args, turn, resume, a.kind == "codex" && !insideGitRepo(a.dirOrCwd()))
	handle := func(u Update) {
		if ctx.Err() != nil {
			return // cancelled: nothing more is shown or saved
		}
		a.handle(u, &st, emit)
	}
	runErr := a.run(ctx, args, parser, handle)
	if st.pendingSession != "" && (runErr == nil && st.errMsg == "" && ctx.Err() == nil || a.hasFile()) {
		if err := a.saveSession(st.pendingSession, st.tasks.Tasks); err != nil {
			emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("%s: session id not saved: %v", a.kind, err)})
		}
	}
	if a.kind == "claude" {
		a.usesTasks = a.usesTasks || parser.(*ClaudeParser).UsesTasks
	}
	res := agent.Result{FinalText: st.finalText}
	if res.FinalText == "" {
		res.FinalText = strings.TrimSpace(st.lastMessage())
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	var ee *exitError
	switch {
	case st.errMsg != "" && (runErr == nil || errors.As(runErr, &ee)):
		return res, fmt.Errorf("%s: %s", a.kind, todostore.ShortLine(st.errMsg, 300))
	case runErr != nil:
		return res, runErr
	}
	return res, nil
}

func (a *cliAgent) dirOrCwd() string {
	if a.cfg.Dir != "" {
		return a.cfg.Dir
	}
	wd, _ := os.Getwd()
	return wd
}

// newParser makes the turn's parser, seeded with what earlier turns left:
// Codex's previous list; for Claude, the task ids of the resumed session
// (into st.tasks) and whether it uses the Task tools.
func (a *cliAgent) newParser(s *todostore.Session, resume string, st *turnState) Parser {
	switch a.kind {
	case "codex":
		return &CodexParser{Prev: todostore.CloneTodos(s.Todos)}
	case "gemini":
		return &GeminiParser{}
	}
	st.tasks = ClaudeTasks{Session: resume}
	if resume != "" && s.Agent != nil && s.Agent.Kind == "claude" && s.Agent.Session == resume {
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
	return &ClaudeParser{UsesTasks: a.usesTasks}
}

// handle acts on one update of the stream.
func (a *cliAgent) handle(u Update, st *turnState, emit func(agent.Event)) {
	if u.Kind != UpdateText {
		st.endMessage()
	}
	switch u.Kind {
	case UpdateSession:
		if a.kind == "claude" {
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
		emit(agent.Event{Kind: agent.EventToolCall, Text: u.Text})
	case UpdateTodos:
		if st.applied != nil && agent.SameList(st.applied, u.Todos) {
			return // the same list again: nothing to do
		}
		res, err := agent.ApplyAgentList(a.sess, u.Todos, time.Now(), func(_ []todostore.Todo, m *agent.Merge) error {
			tickCompleted(m.Todos)
			return nil
		})
		if err == nil {
			st.applied = todostore.CloneTodos(u.Todos)
		}
		a.shown(res.Todos, res.Changed, err, emit)
	case UpdateTask:
		if u.Task != nil {
			a.applyTask(*u.Task, st, emit)
		}
	case UpdateError:
		st.errMsg = u.Text
	case UpdateTurnEnd:
		st.errMsg = ""
		st.finalText = strings.TrimSpace(u.Text)
	case UpdateNotice:
		emit(agent.Event{Kind: agent.EventNotice, Text: u.Text})
	}
}

// shown emits the list after a todo update when it changed, or the error
// that kept it from being saved.
func (a *cliAgent) shown(todos []todostore.Todo, changed bool, err error, emit func(agent.Event)) {
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
		next = ClaudeTasks{Session: st.tasks.Session, Tasks: slices.Clone(st.tasks.Tasks)}
		out, archived, err := next.Apply(s.Todos, op)
		if err != nil {
			return false, err
		}
		listChanged = !agent.SameList(s.Todos, out)
		if next.Session != "" && st.pendingSession == "" {
			s.Agent = &todostore.AgentRef{Kind: "claude", Session: next.Session, Tasks: next.Tasks}
		}
		s.AppendArchive(agent.DroppedReason, archived, time.Now())
		s.Todos = out
		return true, nil
	})
	if err == nil {
		st.tasks = next
	}
	var todos []todostore.Todo
	if s != nil {
		todos = s.Todos
	}
	a.shown(todos, changed && listChanged, err, emit)
}

// saveSession records the CLI's session id (and Claude's task ids) in the
// session file; the store writes nothing when they are already there.
func (a *cliAgent) saveSession(id string, tasks []ClaudeTask) error {
	_, err := a.sess.Update(func(s *todostore.Session) error {
		ref := &todostore.AgentRef{Kind: a.kind, Session: id}
		if a.kind == "claude" {
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

// run starts the CLI, feeds its output to parser, and waits for it. On
// cancellation it ends the CLI's whole process group: SIGTERM, then SIGKILL
// after the grace period; it returns only when the group is gone.
func (a *cliAgent) run(ctx context.Context, args []string, parser Parser, handle func(Update)) error {
	path, err := exec.LookPath(a.cfg.Bin)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %s not found (install it, or name it with --agent-bin PATH)", a.kind, a.cfg.Bin)
		}
		return fmt.Errorf("%s: %w", a.kind, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("%s: %w", a.kind, err)
	}
	defer pr.Close()
	stderr := &tailBuffer{max: 8 << 10}
	cmd := exec.Command(path, args...)
	cmd.Dir = a.cfg.Dir
	cmd.Env = a.cfg.Env
	cmd.Stdout = pw
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Wait returns this long after the CLI exits even if something it left
	// behind still holds its standard error open.
	cmd.WaitDelay = outputLinger
	if err := cmd.Start(); err != nil {
		pw.Close()
		return fmt.Errorf("%s: start %s: %w", a.kind, a.cfg.Bin, err)
	}
	pw.Close()
	pgid := cmd.Process.Pid

	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
		// Unblock a read that waits on a pipe a stray process still holds.
		_ = pr.SetReadDeadline(time.Now().Add(outputLinger))
	}()
	finished := make(chan struct{})
	var killer sync.WaitGroup
	killer.Add(1)
	go func() {
		defer killer.Done()
		select {
		case <-ctx.Done():
			killGroup(pgid, a.cfg.KillGrace)
		case <-finished:
		}
	}()

	readErr := ParseStream(&outputReader{f: pr, exited: exited}, a.kind, parser, handle)
	<-exited
	close(finished)
	killer.Wait()

	if ctx.Err() != nil {
		return ctx.Err()
	}
	if readErr != nil {
		return fmt.Errorf("%s: read output: %w", a.kind, readErr)
	}
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		// The CLI's own error event, when it sent one, says more than this.
		return &exitError{cli: a.kind, status: ee.ProcessState.String(), stderr: stderr.lastLine()}
	}
	if waitErr != nil && !errors.Is(waitErr, exec.ErrWaitDelay) {
		return fmt.Errorf("%s: %w", a.kind, waitErr)
	}
	return nil
}

// outputReader reads a CLI's standard output. Once the CLI has exited it
// reads on until the pipe is empty and idle for outputLinger, so output
// still buffered is never cut, while a process the CLI left behind holding
// the pipe cannot keep the turn open.
type outputReader struct {
	f      *os.File
	exited <-chan struct{}
}

func (r *outputReader) Read(p []byte) (int, error) {
	select {
	case <-r.exited:
		_ = r.f.SetReadDeadline(time.Now().Add(outputLinger))
	default:
	}
	n, err := r.f.Read(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return n, io.EOF
	}
	return n, err
}

// exitError is a CLI that ended with a non-zero status or a signal.
type exitError struct {
	cli, status, stderr string
}

func (e *exitError) Error() string {
	if e.stderr == "" {
		return e.cli + ": " + e.status
	}
	return e.cli + ": " + e.status + ": " + e.stderr
}

// killGroup ends process group pgid: SIGTERM, then SIGKILL once grace has
// passed with members still alive. It returns when no member is running.
func killGroup(pgid int, grace time.Duration) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if !groupAlive(pgid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	for i := 0; i < 500 && groupAlive(pgid); i++ {
		time.Sleep(10 * time.Millisecond)
	}
}

// groupAlive reports whether a process of group pgid is still running.
// Members that died but wait for their parent (or, orphaned, for init) to
// reap them do not count: some inits reap seconds late. Without /proc it
// asks the kernel, where such zombies still count.
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return false
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, p := range procs {
		if p.Name()[0] < '0' || p.Name()[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + p.Name() + "/stat")
		if err != nil {
			continue
		}
		if state, pg, ok := procStat(data); ok && pg == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// procStat reads the state and process group from a /proc/PID/stat line:
// "pid (comm) state ppid pgrp ...", where comm may hold spaces and parens.
func procStat(data []byte) (state byte, pgrp int, ok bool) {
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pg, err := strconv.Atoi(f[2])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pg, true
}

// tailBuffer keeps the last max bytes written to it: the end of a CLI's
// standard error, for the error line when it fails.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// lastLine is the last non-empty line written, cut to one short line.
func (t *tailBuffer) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(string(t.buf), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return todostore.ShortLine(l, 300)
		}
	}
	return ""
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
