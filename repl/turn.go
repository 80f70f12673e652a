package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/backends"
	"github.com/todosh/todosh/continuation"
	"github.com/todosh/todosh/todostore"
	"github.com/todosh/todosh/turnstep"
)

// noAgentHint is the line shown when a prompt is typed with no agent
// connected; it names every way to connect one.
const noAgentHint = "no agent is connected: start todosh with --agent demo, " +
	"--agent openai (with OPENAI_BASE_URL or --base-url) or --agent claude|codex|gemini|qwen|pi"

// errNoAgent is returned for a prompt typed with no agent connected.
var errNoAgent = errors.New("no agent is connected")

// TurnRunner runs one prompt from the person through the agent and the continuation policy.
type TurnRunner struct {
	Agent agent.Agent // nil: no agent connected
	// AgentErr is why the agent could not be started (no model chosen):
	// slash commands need no agent and run, a prompt is refused with it.
	AgentErr error
	// Backend is the agent's row of the backend table: the todo tools
	// the continuation prompt may name. nil: only the agent's own tool.
	Backend  *backends.Backend
	Session  agent.Session
	Policy   *continuation.Policy
	Out      io.Writer // receives whole lines only (the prompt may be redrawn between lines)
	Continue bool      // false with --no-continue
	Budget   continuation.Budget
	Delay    time.Duration // countdown before a continuation
	// Countdown shows "continuing in 3s — type to take over" and waits up to d. proceed=false if the person pressed a key or Ctrl-C; typed is what they typed. nil means no countdown (script mode): continue at once.
	Countdown func(ctx context.Context, d time.Duration) (proceed bool, typed string)
	// Cwd is recorded in a session the agent works on that has none yet.
	Cwd string
	// Ask asks the person a question during a turn (agent.Turn.Ask); nil
	// when not interactive.
	Ask func(ctx context.Context, q agent.Question) (int, error)
	// Err receives the lines that say a prompt failed (no agent, an agent
	// error, an unreadable list); nil means Out. A script sends them to
	// stderr, once.
	Err io.Writer

	// interrupt derives the context of one turn, cancelled by Ctrl-C; nil
	// means SIGINT via signal.NotifyContext. Tests replace it to cancel a
	// turn without sending signals.
	interrupt func(ctx context.Context) (context.Context, context.CancelFunc)
	// render is kept across prompts so an unchanged list is never shown
	// twice: the text Renderer, or the JSONL stream with --output jsonl.
	render turnView
	// todoContext keeps the todo context last sent, so an unchanged list
	// is not encoded again at every turn.
	todoContext turnstep.ContextCache
	// live, in a terminal, is the region that shows the list and the
	// agent's activity during a prompt; nil in a script.
	live *liveRegion
	// LastEnd is how the last prompt ended (one of the End* reasons),
	// for the exit status of a script; Prompts counts the prompts run,
	// resumed ones (Resume) too, so a script knows a line ran one.
	LastEnd string
	Prompts int
	// resume is set by a raise of the budget after the last prompt
	// stopped at it (/todo budget +N): the shell then runs Resume.
	resume bool
}

// How a prompt ended: the reason of the JSONL end event, and what a
// script's exit status says (see ExitFor).
const (
	EndDone       = "done"        // no open items left (or a plain conversation)
	EndNoProgress = "no_progress" // continued MaxNoProgress times without progress
	EndPaused     = "paused"      // the agent paused to ask the person
	EndQuestion   = "question"    // the reply ended with a question
	EndCap        = "cap"         // the continuation cap (or --no-continue) stopped it
	EndBudget     = "budget"      // the prompt's budget stopped it (--budget-tokens, --budget-time)
	EndCancelled  = "cancelled"   // Ctrl-C, or a key during the countdown
	EndSignal     = "signal"      // an exit signal (SIGTERM, SIGHUP, SIGQUIT); signals.go ends the stream
	EndError      = "error"       // the agent or the store failed, or no agent
)

// endReasons maps the policy's stop reasons to end reasons.
var endReasons = map[continuation.StopReason]string{
	continuation.NoOpenItems:   EndDone,
	continuation.NoProgress:    EndNoProgress,
	continuation.Paused:        EndPaused,
	continuation.AskedQuestion: EndQuestion,
	continuation.PromptLimit:   EndCap,
	continuation.Disabled:      EndCap,
	continuation.Aborted:       EndCancelled,
	continuation.Failed:        EndError,
	continuation.TokenBudget:   EndBudget,
	continuation.TimeBudget:    EndBudget,
}

// turnView is where a prompt's events, lines, decisions and errors go:
// the text Renderer, or the JSONL event stream.
type turnView interface {
	Event(agent.Event)
	Flush()
	Line(string)
	Todos([]todolist.Todo) bool
	Seen([]todolist.Todo)
	Decision(continuation.Decision)
	Error(string)
	End(reason string)
}

// RunPrompt sends prompt to the agent and keeps continuing while the policy
// says so (ARCHITECTURE.md §7). typed is what the person typed to cancel a
// countdown, to be used as the start of their next line. Every message,
// including any error's, has already been written to Out when it returns;
// a non-nil err only tells the caller the prompt failed (for the exit status
// of a script).
func (r *TurnRunner) RunPrompt(ctx context.Context, prompt string) (typed string, err error) {
	defer r.begin()()
	r.resume = false
	r.policy().SetEnabled(r.Continue)
	r.Policy.SetBudget(r.Budget)
	if r.Agent == nil && r.AgentErr != nil {
		r.errLine("prompt not sent: " + r.AgentErr.Error())
		return "", r.AgentErr
	}
	sess, err := r.startPrompt()
	if err != nil {
		r.errLine("prompt not sent: " + err.Error())
		return "", err
	}
	if r.Agent == nil {
		// ARCHITECTURE.md §7 applies to every prompt from the person, answered or
		// not, so a finished list is archived even with no agent.
		r.errLine(noAgentHint)
		return "", errNoAgent
	}
	return r.run(ctx, sess.Todos, agent.Turn{Prompt: prompt})
}

// Resume continues the last prompt after the person raised its budget
// (/todo budget +N) where it stopped at it: the policy's next continuation
// of the list as it is now, then on as RunPrompt goes, without a prompt
// from the person. It does nothing unless a raise asked for it.
func (r *TurnRunner) Resume(ctx context.Context) (typed string, err error) {
	if !r.resume || r.Agent == nil || r.Policy == nil {
		return "", nil
	}
	r.resume = false
	defer r.begin()()
	sess, err := r.Session.Load()
	if err != nil {
		r.errLine("continuation not sent: " + err.Error())
		return "", err
	}
	r.render.Seen(sess.Todos)
	dec := r.Policy.Resume(sess.Todos, r.tools())
	r.render.Decision(dec)
	if !dec.Continue {
		r.LastEnd = endReasons[dec.Reason]
		return "", nil
	}
	return r.run(ctx, sess.Todos, agent.Turn{Prompt: dec.Prompt, Continuation: true})
}

// begin readies the view for a prompt's turns and returns what ends them:
// the JSONL stream's end event with how they ended.
func (r *TurnRunner) begin() (end func()) {
	if r.render == nil {
		rd := NewRenderer(r.Out)
		rd.errOut = r.Err
		r.render = rd
	}
	if v, ok := r.render.(interface {
		SetWork(func() *todolist.Summary)
	}); ok {
		v.SetWork(r.work)
	}
	r.LastEnd = EndError
	r.Prompts++
	return func() {
		if r.LastEnd != EndSignal { // the exit's own end event follows (signals.go)
			r.render.End(r.LastEnd)
		}
	}
}

// run runs turn and the continuations the policy decides on, from the
// list todos; see RunPrompt.
func (r *TurnRunner) run(ctx context.Context, todos []todolist.Todo, turn agent.Turn) (typed string, err error) {
	r.render.Seen(todos)
	if r.live != nil {
		r.live.Start(todos)
		defer func() {
			r.live.Stop()
			// The region is replaced by the final list, printed once.
			if sess, err := r.Session.Load(); err == nil {
				r.render.Todos(sess.Todos)
			}
		}()
	}
	if r.interrupt == nil {
		// Between turns no NotifyContext is registered and readline is not
		// in raw mode, so a Ctrl-C there would kill the shell; swallow it.
		guard := make(chan os.Signal, 1)
		signal.Notify(guard, os.Interrupt)
		defer signal.Stop(guard)
	}
	for {
		dec, err := r.runTurn(ctx, turn)
		if err != nil || !dec.Continue {
			if err == nil {
				r.LastEnd = endReasons[dec.Reason]
			}
			return "", err
		}
		if r.live != nil {
			// The turn is over: its last tool call is no longer what the
			// agent does, the countdown is.
			r.live.SetActivity("")
			r.live.SetStatus(fmt.Sprintf("continuation %d/%d", dec.Attempt, continuation.MaxNoProgress))
		}
		if r.Countdown != nil {
			proceed, typed := r.Countdown(ctx, r.Delay)
			if !proceed && ctx.Err() == nil {
				// The decision line said "continuing 1/3"; this says why
				// it did not (a signal says so itself, in signals.go).
				r.render.Line(fmt.Sprintf("you took over: continuation %d/%d not sent", dec.Attempt, continuation.MaxNoProgress))
				r.LastEnd = EndCancelled
				return typed, nil
			}
		}
		if err := ctx.Err(); err != nil {
			r.LastEnd = EndCancelled
			if _, ok := endedBySignal(ctx); ok {
				r.LastEnd = EndSignal
			}
			return "", err
		}
		turn = agent.Turn{Prompt: dec.Prompt, Continuation: true}
	}
}

// policy is the runner's continuation policy, made with the flags'
// budget before the first prompt.
func (r *TurnRunner) policy() *continuation.Policy {
	if r.Policy == nil {
		r.Policy = continuation.New()
		r.Policy.SetBudget(r.Budget)
	}
	return r.Policy
}

// BudgetLines is what /todo budget shows (commands.Budget).
func (r *TurnRunner) BudgetLines() string { return r.policy().BudgetLines() }

// RaiseBudget raises the current prompt's budget (commands.Budget); when
// the prompt stopped at its budget, the shell then continues it (Resume).
func (r *TurnRunner) RaiseBudget(tokens int64, d time.Duration) (resumes bool, err error) {
	if err := r.policy().Raise(continuation.Budget{Tokens: tokens, Time: d}); err != nil {
		return false, err
	}
	r.resume = r.Policy.StoppedAtBudget() && r.Agent != nil
	return r.resume, nil
}

// startPrompt applies ARCHITECTURE.md §7 for a prompt from the person: a list whose
// items are all done is archived, a pause is lifted and the policy's
// counters are reset. The file is written only when something changes.
func (r *TurnRunner) startPrompt() (*todostore.Session, error) {
	sess, archived, err := turnstep.Begin(r.Session, r.Policy)
	if err != nil {
		return nil, err
	}
	if archived > 0 {
		r.render.Line(fmt.Sprintf("the list was done (%s): archived, see /todo list; starting a new one", todolist.Plural(archived, "item")))
	}
	return sess, nil
}

// errLine prints a line saying the prompt failed, after the reply text
// shown so far.
func (r *TurnRunner) errLine(msg string) { r.render.Error(msg) }

// runTurn runs one turn, renders it and asks the policy what comes next;
// it prints the decision's one line. err is set when the turn or the store
// failed, or ctx ended; dec.Continue is true only when the next turn should
// run with dec.Prompt.
func (r *TurnRunner) runTurn(ctx context.Context, turn agent.Turn) (continuation.Decision, error) {
	step := turnstep.Step{Agent: r.Agent, Session: r.Session, Policy: r.Policy, Tools: r.tools, Cwd: r.Cwd, Ask: r.Ask, Context: &r.todoContext}
	tctx, stop := r.turnContext(ctx)
	out, err := step.Run(tctx, turn, r.render.Event)
	stop()
	r.render.Flush()
	defer r.cost()
	if out.Listed {
		// A backend that changed the list without saying so still gets it shown.
		r.render.Todos(out.After)
	}
	if err != nil {
		r.errLine(err.Error())
		return continuation.Decision{}, err
	}
	switch {
	case out.Aborted:
		r.LastEnd = EndCancelled
		if _, ok := endedBySignal(ctx); ok {
			// The exit's one line names the signal (signals.go).
			r.LastEnd = EndSignal
		} else {
			r.render.Line("turn cancelled")
		}
		// The error tells a script to stop; the interactive shell only
		// prompts again.
		return continuation.Decision{}, fmt.Errorf("turn cancelled: %w", context.Canceled)
	case out.Err != nil:
		r.errLine("agent error: " + out.Err.Error())
		// Backends' errors already name the agent ("claude: …").
		return continuation.Decision{}, fmt.Errorf("agent error: %w", out.Err)
	}
	r.render.Decision(out.Decision)
	return out.Decision, nil
}

// tools are the agent's todo tools as its backend row declares them.
func (r *TurnRunner) tools() continuation.Tools {
	return backends.AgentTools(r.Backend, r.Agent)
}

// turnContext returns the context of one turn, cancelled by Ctrl-C: readline
// is not reading during a turn, so Ctrl-C arrives as SIGINT.
func (r *TurnRunner) turnContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if r.interrupt != nil {
		return r.interrupt(ctx)
	}
	return signal.NotifyContext(ctx, os.Interrupt)
}

// work is the session's work log summed, for the receipts a list shows;
// nil when it cannot be read (a list then shows none).
func (r *TurnRunner) work() *todolist.Summary {
	w, err := r.Session.Store.Receipts(r.Session.ID, false)
	if err != nil {
		return nil
	}
	return &w.Sum
}

// cost ends a turn's JSONL stream with the session's ledger (a cost
// event); the text views show it only on /todo cost.
func (r *TurnRunner) cost() {
	v, ok := r.render.(interface{ Cost(todostore.Ledger) })
	if !ok {
		return
	}
	if l, err := r.Session.Store.Ledger(r.Session.ID, r.Session.Store.Now()); err == nil {
		v.Cost(l)
	}
}
