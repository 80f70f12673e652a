// Package continuation is the lazy-model policy (ARCHITECTURE.md §7): after every
// agent turn it decides whether todosh sends a continuation prompt or stops,
// and it writes that prompt. It is pure: no I/O, no clock, no goroutines; the
// shell owns the countdown, the store and the agent.
//
// Rules, in order: an aborted or failed turn stops; a successful pause stops
// (and keeps stopping until the person's next prompt); no open items stops;
// progress resets the no-progress counter; a reply that ends by asking the
// person a question stops; continuation switched off stops; MaxNoProgress
// continuations in a row without progress stop; the prompt's budget spent
// stops (budget.go); MaxPerPrompt continuations
// per prompt from the person stop whatever else happens; otherwise continue.
// Progress and a pause are recorded even by a turn that an earlier rule
// stops (a cancelled turn that paused stays paused); that changes no reason,
// because the stopping rules before them do not read the counter.
//
// Progress from facts (issue 26). A turn makes progress only when an item
// or subtask reaches completed for the first time since the person's
// prompt: a high-water mark of stable uids (State.Done). Re-marking a
// finished item, toggling it back and forth, rewording, reordering,
// adding, cancelling or removing items never count. Where the backend
// shows todosh the agent's work (Turn.Receipt), a completed item counts
// only with a receipt: a successful edit or command seen while it was in
// progress. One completed without is "done (reported)": it is not
// progress, and while one remains the policy keeps going as for an open
// item, naming it in the prompt, until it has a receipt or is reopened.
// Backends that show no work keep the status rule with the high-water
// mark.
//
// An item the agent writes already completed, never seen open (no
// partner before the turn, nor open in the first list it wrote), is no
// completion and never progress: a model could keep itself going by
// adding finished items. Where the backend shows its work and the caller
// knows the session's history (Turn.Known), such an item whose text was
// not an item of the session before the person's prompt is new work: done
// without a receipt, named and kept going for as above, so an agent that
// writes its whole list done in one go without work is not "all done".
// One whose text is known is a finished item re-sent and stays
// uncounted.
//
// Matching items across a turn. Lists read from the store carry stable
// uids, and items pair by them. A list without uids (tests, a list never
// written) pairs by content first (case and runs of white space ignored;
// the same position is preferred, then the first unused occurrence, so
// duplicates pair in order and a moved item keeps its history), and what
// is left pairs by position (an item reworded in place is the same item).
// An item with no partner is new: a new item that is already completed is
// not progress, because nothing became completed. Subtasks of a paired
// item pair the same way.
//
// Question heuristic. See EndsWithQuestion: the last non-blank line outside
// fenced code blocks, without inline code spans and trailing markdown or
// closing quotes, ends with '?'.
//
// Escalation. Each continuation remembers the list it was sent with. When
// the next continuation finds the same list (compared as FormatList renders
// it), the wording rises one level: first a plain reminder, then a firmer
// one, then a final one that names the exact next position and says to call
// todo_pause (model API) or to ask the person (wrapped CLIs) when blocked.
// Any change to the list, or a prompt from the person, starts again at the
// first wording.
//
// Prompts are built from structure: instructions contain counts, positions
// ("item 2", "subtask 2.1") and tool names only; todo text appears only
// inside the Block between BlockOpen and BlockClose, where no todo text can
// close the block.
package continuation

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"
)

// MaxNoProgress is how many continuations in a row may go without progress
// before the policy stops and waits for the person (seed 004's 3 attempts).
const MaxNoProgress = 3

// MaxPerPrompt caps the continuations after one prompt from the person,
// whatever else happens, so even a model that makes a little progress each
// turn cannot loop forever (seed 001's circuit breaker).
const MaxPerPrompt = 20

// Turn is what happened in one agent turn, as the shell saw it.
type Turn struct {
	Aborted     bool   // the person pressed Ctrl-C
	Err         error  // the turn failed (server down, CLI exited non-zero...)
	Paused      bool   // the agent successfully called its pause tool
	PauseReason string // why it paused, shown to the person
	// Before and After are the list before and after the turn.
	Before, After []todolist.Todo
	// First is the first list the agent wrote during the turn, nil when
	// it wrote none: an agent that writes its list and finishes an item
	// in one turn made progress from that list, though every item is new
	// to Before.
	First     []todolist.Todo
	FinalText string // the agent's last reply text (question detection)
	// Receipt reports whether the item with this key (Completion.Item)
	// has a receipt: a successful edit or command todosh saw while the
	// item was in progress. nil when the backend shows todosh no work
	// (the model API with only the todo tools, the demo): then a
	// completion counts by its status alone.
	Receipt func(item string) bool
	// Known reports whether an item text (given as TextKey makes it) was
	// an item of the session's lists before the person's prompt: its
	// history, which keeps every archived list. An item the agent writes
	// already completed, never seen open, is finished work it re-sends
	// when its text is known (Claude Code's TodoWrite after the finished
	// list was archived) and is not counted; when its text is new, it is
	// new work done without a receipt (where Receipt is not nil). nil
	// counts no item written completed.
	Known func(key string) bool
	// Tokens and Took are what the turn spent, for the budget: the
	// tokens the agent reported, the time the turn took.
	Tokens int64
	Took   time.Duration
}

// StopReason says why the policy stopped; it is empty when it continues.
type StopReason string

// The reasons a Decision may stop with.
const (
	Aborted       StopReason = "aborted"
	Failed        StopReason = "failed"
	Paused        StopReason = "paused"
	NoOpenItems   StopReason = "no open items" // all done, or the list is empty
	AskedQuestion StopReason = "asked a question"
	NoProgress    StopReason = "no progress"
	PromptLimit   StopReason = "prompt limit"
	Disabled      StopReason = "disabled"
)

// Decision is what to do after a turn.
type Decision struct {
	Continue bool
	Prompt   string     // the continuation prompt, when Continue
	Reason   StopReason // why it stopped, when !Continue
	// Attempt is, when Continue, how many continuations in a row without
	// progress this one makes (1..MaxNoProgress): "continuing 2/3".
	Attempt int
	// Wording is, when Continue, the escalation level of Prompt
	// (WordingFirst..WordingFinal).
	Wording int
	// Progress is whether the turn made progress: something reached
	// completed for the first time since the person's prompt, with a
	// receipt where the backend shows its work.
	Progress bool
	// Unverified are the positions (1-based) of items the agent marked
	// completed since the person's prompt without a receipt, when the
	// backend shows its work: "done (reported)".
	Unverified []int
	// Line is the one line shown to the person, such as
	// "continuing 2/3 — 2 open items" or "stopped: paused — \"reason\"". It
	// is empty only when the turn neither started nor ended with a list (a
	// plain conversation), where there is nothing to say.
	Line string
}

// Policy holds the counters between turns. Create it with New; the shell
// calls PersonPrompt before each prompt from the person and Decide after
// every turn.
type Policy struct {
	noProgress int // continuations in a row without progress
	perPrompt  int // continuations since the person's last prompt
	paused     bool
	reason     string // the pause reason, shown again while paused
	disabled   bool
	// maxNoProgress is the cap on attempts without progress; 0 is
	// MaxNoProgress (SetMaxNoProgress).
	maxNoProgress int

	lastList string // ListDigest of the list the previous continuation was sent with
	hasLast  bool
	level    int // wording level of the previous continuation

	// done is the high-water mark: the keys (Completion.Key) that reached
	// completed, with a receipt where one is needed, since the person's
	// prompt. Reaching completed again is not progress.
	done map[string]bool
	// unverified are the item keys completed since the person's prompt
	// without a receipt, in the order they were completed.
	unverified []string
	// mark is the caller's position in its history at the person's
	// prompt (SetMark): what was written up to it is known (Turn.Known).
	mark int
	// budget is every prompt's (SetBudget), raised the current prompt's
	// raises, spent what its turns spent; lastStop the last decision's
	// reason, "" when it continued (budget.go).
	budget, raised, spent Budget
	lastStop              StopReason
}

// New returns a policy with continuation on and no counts.
func New() *Policy { return &Policy{} }

// SetEnabled turns continuation on or off (--no-continue). When off, Decide
// still reports why a turn stopped, and otherwise stops with Disabled.
func (p *Policy) SetEnabled(on bool) { p.disabled = !on }

// SetMaxNoProgress sets how many continuations in a row may go without
// progress (an editor's setting in `todosh acp`); n below 1 is
// MaxNoProgress.
func (p *Policy) SetMaxNoProgress(n int) {
	if n < 1 {
		n = 0
	}
	p.maxNoProgress = n
}

// MaxAttempts is the cap on continuations in a row without progress.
func (p *Policy) MaxAttempts() int {
	if p.maxNoProgress > 0 {
		return p.maxNoProgress
	}
	return MaxNoProgress
}

// Enabled reports whether continuation is on.
func (p *Policy) Enabled() bool { return !p.disabled }

// PersonPrompt records a prompt from the person: both counters and the
// escalation start again, and a pause is lifted. The settings stay.
func (p *Policy) PersonPrompt() {
	on, max := !p.disabled, p.maxNoProgress
	*p = Policy{maxNoProgress: max, budget: p.budget}
	p.SetEnabled(on)
}

// SetMark records where the person's prompt began in the caller's
// history (a change number), after PersonPrompt, which clears it: item
// texts written up to it are the ones Turn.Known reports.
func (p *Policy) SetMark(n int) { p.mark = n }

// Mark is the position SetMark recorded since the person's prompt, 0
// when none.
func (p *Policy) Mark() int { return p.mark }

// ListReplaced records that the person replaced the list (/todo load): the
// no-progress counter and the escalation start again. A pause stays, and so
// does the count per prompt, which only a prompt from the person resets.
func (p *Policy) ListReplaced() {
	p.noProgress, p.hasLast, p.level = 0, false, 0
}

// IsPaused reports whether the agent paused since the person's last prompt,
// and why.
func (p *Policy) IsPaused() (bool, string) { return p.paused, p.reason }

// Decide applies the rules of the package doc to one finished turn and
// updates the counters. tools are the agent's todo tools, named in the
// prompt; what they are decides what the prompt may ask for.
func (p *Policy) Decide(t Turn, tools Tools) Decision {
	progress, unverified := p.advance(t)
	// Recorded before the rules; see the package doc.
	if progress {
		p.noProgress = 0
	}
	if t.Paused {
		p.paused, p.reason = true, t.PauseReason
	}
	p.spent.Tokens += t.Tokens
	p.spent.Time += t.Took
	stop := func(r StopReason, line string) Decision {
		p.lastStop = r
		return Decision{Reason: r, Line: line, Progress: progress, Unverified: unverified}
	}
	open := openCount(t.After)
	left := leftLine(open, unverified)
	switch {
	case t.Aborted:
		return stop(Aborted, "stopped: turn cancelled")
	case t.Err != nil:
		return stop(Failed, "stopped: error: "+todolist.ShortLine(t.Err.Error(), 0))
	case p.paused:
		return stop(Paused, pauseLine(p.reason))
	case open == 0 && len(unverified) == 0:
		return stop(NoOpenItems, doneLine(t.Before, t.After))
	case EndsWithQuestion(t.FinalText):
		return stop(AskedQuestion, "stopped: the agent asked a question")
	case p.disabled:
		return stop(Disabled, "stopped: continuation is off — "+left)
	case p.overBudget():
		return stop(p.budgetStop())
	case p.noProgress >= p.MaxAttempts():
		return stop(NoProgress, fmt.Sprintf("stopped: %d attempts without progress", p.MaxAttempts()))
	case p.perPrompt >= MaxPerPrompt:
		return stop(PromptLimit, fmt.Sprintf("stopped: %d continuations for this prompt", MaxPerPrompt))
	}
	return p.proceed(t.After, tools, progress, unverified)
}

// proceed is the decision to continue with the next continuation of
// after, the list now.
func (p *Policy) proceed(after []todolist.Todo, tools Tools, progress bool, unverified []int) Decision {
	p.lastStop = ""
	left := leftLine(openCount(after), unverified)
	p.noProgress++
	p.perPrompt++
	list := ListDigest(after)
	if p.hasLast && list == p.lastList {
		p.level = min(p.level+1, WordingFinal)
	} else {
		p.level = WordingFirst
	}
	p.lastList, p.hasLast = list, true
	return Decision{
		Continue:   true,
		Prompt:     continuationPrompt(promptInput{todos: after, tools: tools, level: p.level, unverified: unverified}),
		Attempt:    p.noProgress,
		Wording:    p.level,
		Progress:   progress,
		Unverified: unverified,
		Line:       fmt.Sprintf("continuing %d/%d — %s", p.noProgress, p.MaxAttempts(), left),
	}
}

// leftLine says what is left: the open items and the items done without
// a receipt, each when there are any (the continuation's prompt names
// both, so the person's line does too).
func leftLine(open int, unverified []int) string {
	done := todolist.Plural(len(unverified), "item") + " done without a receipt"
	switch {
	case len(unverified) == 0:
		return todolist.Plural(open, "open item")
	case open == 0:
		return done
	}
	return todolist.Plural(open, "open item") + ", " + done
}

// advance moves the high-water mark with one turn's completions (from
// the list before the turn, and from the first list the agent wrote in
// it) and returns whether it rose, and the positions of the items done
// without a receipt. An unverified item that has a receipt now counts
// then; one no longer completed, or gone, is forgotten.
func (p *Policy) advance(t Turn) (progress bool, unverified []int) {
	if p.done == nil {
		p.done = map[string]bool{}
	}
	has := func(item string) bool { return t.Receipt == nil || t.Receipt(item) }
	fins := Completions(t.Before, t.After)
	if t.First != nil {
		fins = append(fins, Completions(t.First, t.After)...)
	}
	for _, f := range fins {
		if p.done[f.Key] {
			continue
		}
		if !has(f.Item) {
			if !slices.Contains(p.unverified, f.Item) && f.Key == f.Item {
				p.unverified = append(p.unverified, f.Item)
			}
			continue
		}
		p.done[f.Key], progress = true, true
	}
	if t.Receipt != nil && t.Known != nil {
		for _, td := range writtenDone(t) {
			k := itemKey(td)
			if !p.done[k] && !has(k) && !slices.Contains(p.unverified, k) && !t.Known(matchKey(td.Content)) {
				p.unverified = append(p.unverified, k)
			}
		}
	}
	at := make(map[string]int, len(t.After))
	for i, td := range t.After {
		at[itemKey(td)] = i
	}
	kept := p.unverified[:0]
	for _, k := range p.unverified {
		i, ok := at[k]
		if !ok || t.After[i].Status != todolist.Completed {
			continue
		}
		if has(k) {
			p.done[k], progress = true, true
			continue
		}
		kept = append(kept, k)
		unverified = append(unverified, i+1)
	}
	p.unverified = kept
	slices.Sort(unverified)
	return progress, unverified
}

// writtenDone are the items of t.After written completed in the turn,
// never seen open: no partner in t.Before, and none open in t.First.
func writtenDone(t Turn) []todolist.Todo {
	var out []todolist.Todo
	fromBefore := pairTodos(t.Before, t.After)
	var fromFirst []int
	if t.First != nil {
		fromFirst = pairTodos(t.First, t.After)
	}
	for i, td := range t.After {
		if td.Status != todolist.Completed || fromBefore[i] >= 0 {
			continue
		}
		if fromFirst != nil && fromFirst[i] >= 0 && t.First[fromFirst[i]].Status != todolist.Completed {
			continue // a completion of the first list, counted as one
		}
		out = append(out, td)
	}
	return out
}

// State is the policy's counters as plain data, for a caller that keeps
// them between processes (todosh's agent hooks keep them in the session
// file, ARCHITECTURE.md §3). Restore(p.State()) behaves as p.
type State struct {
	NoProgress  int    `json:"noProgress,omitempty"`
	PerPrompt   int    `json:"perPrompt,omitempty"`
	Paused      bool   `json:"paused,omitempty"`
	PauseReason string `json:"pauseReason,omitempty"`
	Disabled    bool   `json:"disabled,omitempty"`
	// LastList is ListDigest of the list the previous continuation was
	// sent with, "" when there was none since the person's prompt.
	LastList string `json:"lastList,omitempty"`
	Level    int    `json:"level,omitempty"`
	// Done is the high-water mark: the keys that reached completed since
	// the person's prompt; Unverified the items completed without a
	// receipt (see Policy).
	Done       []string `json:"done,omitempty"`
	Unverified []string `json:"unverified,omitempty"`
	// Mark is SetMark's position.
	Mark int `json:"mark,omitempty"`
}

// State returns the policy's counters.
func (p *Policy) State() State {
	st := State{NoProgress: p.noProgress, PerPrompt: p.perPrompt, Paused: p.paused, PauseReason: p.reason,
		Disabled: p.disabled, Level: p.level, Mark: p.mark}
	if p.hasLast {
		st.LastList = p.lastList
	}
	for k := range p.done {
		st.Done = append(st.Done, k)
	}
	slices.Sort(st.Done)
	st.Unverified = slices.Clone(p.unverified)
	return st
}

// Restore returns a policy with the counters st.
func Restore(st State) *Policy {
	p := &Policy{noProgress: st.NoProgress, perPrompt: st.PerPrompt, paused: st.Paused, reason: st.PauseReason,
		disabled: st.Disabled, lastList: st.LastList, hasLast: st.LastList != "", level: st.Level,
		unverified: slices.Clone(st.Unverified), mark: st.Mark}
	if len(st.Done) > 0 {
		p.done = make(map[string]bool, len(st.Done))
		for _, k := range st.Done {
			p.done[k] = true
		}
	}
	return p
}

// ListDigest is a short digest of a list as FormatList renders it: two
// lists a person would read alike have the same digest. It lets the policy
// (and its callers) remember a list without keeping its text.
func ListDigest(todos []todolist.Todo) string {
	sum := sha256.Sum256([]byte(todoview.FormatList(todos)))
	return hex.EncodeToString(sum[:12])
}

// doneLine is the line for a turn that left no open item: "all done" when
// items remain and all are finished, nothing for a conversation that never
// had a list.
func doneLine(before, after []todolist.Todo) string {
	switch {
	case len(after) > 0:
		return "all done"
	case len(before) > 0:
		return "stopped: the list is empty"
	}
	return ""
}

// pauseLine quotes the pause reason, which is the agent's question to the
// person: `stopped: paused — "need the API key"`.
func pauseLine(reason string) string {
	if r := todolist.ShortLine(reason, 0); r != "" {
		return "stopped: paused — \"" + r + "\""
	}
	return "stopped: paused"
}
