package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/continuation"
	"github.com/todosh/todosh/todostore"
)

// The pure decisions of the hooks: what the stop gate does, whether a
// prompt is the person's, what the agent is given. They read the session
// as the store has it and return the session's next hook state; run.go
// writes it in one Commit with whatever else changed.

// StopIn is what the stop gate decides from.
type StopIn struct {
	// Todos is the session's list now; Paused and PauseReason its pause.
	Todos       []todolist.Todo
	Paused      bool
	PauseReason string
	// Reply is the agent's last reply text (a question stops the gate).
	Reply string
	// State is the hook state kept in the session, nil when none yet.
	State *todostore.HookState
	// Tools name the agent's todo tools in the continuation prompt.
	Tools continuation.Tools
	// Receipt is continuation.Turn.Receipt: whether the work log holds a
	// receipt for an item (the deterministic goal check of issue 26); nil
	// counts completions by status.
	Receipt func(item string) bool
	// Known is continuation.Turn.Known: whether an item text was the
	// session's before the person's prompt (State.Mark); nil counts no
	// item written completed.
	Known func(key string) bool
	// BudgetTokens is the token budget of the person's prompt (0: none)
	// and Spent what the prompt spent so far (usage.go).
	BudgetTokens, Spent int64
}

// StopOut is the gate's decision.
type StopOut struct {
	// Continue: block the stop and send Prompt.
	Continue bool
	Prompt   string
	// Say is the line the person sees when the gate lets the agent stop
	// with work left, or after it had continued it: "todosh: stopped: 3
	// attempts without progress". Empty when there is nothing to say.
	Say string
	// Reason is why it stopped, when it did.
	Reason continuation.StopReason
	// Line is the policy's line for the decision ("continuing 2/3 — 2
	// open items"), for the session's history.
	Line string
	// State is the hook state to keep.
	State todostore.HookState
}

// Stop decides one stop of the agent with the continuation policy
// (continuation/policy.go), from the counters the session keeps: at most
// continuation.MaxNoProgress continuations in a row without progress,
// continuation.MaxPerPrompt per prompt of the person, none while paused,
// with no open item or after a question.
func Stop(in StopIn) StopOut {
	var st todostore.HookState
	if in.State != nil {
		st = *in.State
	}
	p := continuation.Restore(continuation.State{NoProgress: st.NoProgress, PerPrompt: st.PerPrompt,
		LastList: st.LastList, Level: st.Level, Paused: in.Paused, PauseReason: in.PauseReason,
		Done: st.Done, Unverified: st.Unverified, Mark: st.Mark})
	// The restored policy has spent nothing: the turn's tokens are all
	// the prompt spent.
	p.SetBudget(continuation.Budget{Tokens: in.BudgetTokens})
	d := p.Decide(continuation.Turn{Before: st.Before, After: in.Todos, Paused: in.Paused, PauseReason: in.PauseReason,
		FinalText: in.Reply, Receipt: in.Receipt, Known: in.Known, First: st.First, Tokens: in.Spent}, in.Tools)
	ps := p.State()
	next := todostore.HookState{NoProgress: ps.NoProgress, PerPrompt: ps.PerPrompt, LastList: ps.LastList, Level: ps.Level,
		Before: snapshot(in.Todos), Sent: st.Sent, Given: st.Given, Held: st.Held, Offered: st.Offered,
		Done: ps.Done, Unverified: ps.Unverified, Mark: ps.Mark}
	out := StopOut{Continue: d.Continue, Prompt: d.Prompt, Reason: d.Reason, Line: d.Line, State: next}
	if d.Continue {
		out.State.Sent = digest(d.Prompt)
		return out
	}
	// The policy's line names the stop; the person needs it when work is
	// left or when the gate had been continuing.
	if d.Line != "" && (st.PerPrompt > 0 || todolist.CountTodos(in.Todos).Open() > 0) {
		out.Say = "todosh: " + d.Line
	}
	return out
}

// snapshot keeps of a list what progress is measured by: each item's and
// subtask's stable id, text and status.
func snapshot(todos []todolist.Todo) []todolist.Todo {
	out := make([]todolist.Todo, len(todos))
	for i, t := range todos {
		out[i] = todolist.Todo{Content: t.Content, Status: t.Status, UID: t.UID}
		for _, s := range t.Subtasks {
			out[i].Subtasks = append(out[i].Subtasks, todolist.Subtask{Content: s.Content, Status: s.Status, UID: s.UID})
		}
	}
	return out
}

// digest is a short digest of a text todosh sent, kept instead of it.
func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:12])
}

// IsPersonPrompt reports whether a prompt hook's prompt is the person's.
// Some agents run the prompt hook for more than the person's prompts:
// Gemini CLI and Qwen Code for the continuation todosh asked for (the
// same text), Qwen Code for each tool result (an empty text). Neither
// resets the counters, or a lazy agent would be continued for ever.
func IsPersonPrompt(prompt string, st *todostore.HookState) bool {
	if strings.TrimSpace(prompt) == "" {
		return false
	}
	if st != nil && st.Sent != "" && digest(prompt) == st.Sent {
		return false
	}
	// todosh's own continuation and context always hold the list block;
	// a prompt that carries it came from todosh, not from the person.
	return !strings.Contains(prompt, continuation.BlockOpen+"\n")
}

// PersonPrompt is the hook state after the person's prompt: the counters
// and the escalation start again, progress is measured from the list as
// it is now, and the item texts of the history so far are known.
// mark is the session's change then (HookState.Mark).
func PersonPrompt(todos []todolist.Todo, st *todostore.HookState, mark int) todostore.HookState {
	next := todostore.HookState{Before: snapshot(todos), Mark: mark}
	if st != nil {
		next.Given, next.Held, next.Offered = st.Given, st.Held, st.Offered
	}
	return next
}

// contextLead opens the list given back to the agent when someone else
// changed it (the person's /todo edits, another todosh).
const contextLead = "The todo list of this session was changed outside your todo tool since you last wrote it " +
	"(by the person, in todosh). Update your todo tool to match it before you go on.\n"

// Context is the text given to the agent at a prompt or at the start of
// a session, and the hook state after it. always gives the list whenever
// items are open (a resume or a compaction, when the agent may have lost
// it); otherwise it is given only when it differs from what the agent
// last wrote or was given. "" when there is nothing to give.
func Context(todos []todolist.Todo, st *todostore.HookState, always bool) (string, todostore.HookState) {
	var next todostore.HookState
	if st != nil {
		next = *st
	}
	ctx := continuation.TodoContext(todos)
	if ctx == "" {
		return "", next
	}
	cur := continuation.ListDigest(todos)
	if !always && next.Given == cur {
		return "", next
	}
	next.Given = cur
	if !always {
		ctx = contextLead + ctx
	}
	return ctx, next
}

// Given is the hook state after the agent wrote list through its own
// tool: that is the list it knows.
func Given(list []todolist.Todo, st *todostore.HookState) todostore.HookState {
	var next todostore.HookState
	if st != nil {
		next = *st
		next.Before = todolist.CloneTodos(st.Before)
	}
	l := todolist.CloneTodos(list)
	todolist.Normalize(l)
	next.Given = continuation.ListDigest(l)
	return next
}
