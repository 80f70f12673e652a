package continuation

import (
	"fmt"
	"strings"
	"time"

	"github.com/todosh/todosh/todolist"
)

// Budget is what one prompt from the person may spend on the turns it
// runs, its continuations included, before the policy stops continuing
// (--budget-tokens, --budget-time): tokens the agent reported (input and
// output), and time the agent's turns took (not the countdown, not the
// person's wait). A zero limit is none. The turn that crosses a limit is
// not cut short; no continuation follows it.
type Budget struct {
	Tokens int64
	Time   time.Duration
}

// IsZero reports whether the budget sets no limit.
func (b Budget) IsZero() bool { return b.Tokens == 0 && b.Time == 0 }

// The stop reasons of a budget.
const (
	TokenBudget StopReason = "token budget"
	TimeBudget  StopReason = "time budget"
)

// SetBudget sets the budget of every prompt from the person (the flags').
// It holds from the next prompt; /todo budget's raises last one prompt.
func (p *Policy) SetBudget(b Budget) { p.budget = b }

// Budget is the current prompt's budget: the flags' with its raises.
func (p *Policy) Budget() Budget {
	return Budget{Tokens: p.budget.Tokens + p.raised.Tokens, Time: p.budget.Time + p.raised.Time}
}

// Spent is what the current prompt's turns spent.
func (p *Policy) Spent() Budget { return p.spent }

// Raise adds to the current prompt's budget (/todo budget +N): a limit
// the prompt has none of stays none. It returns an error, and changes
// nothing, for a raise of nothing, below zero, or of a limit not set.
func (p *Policy) Raise(more Budget) error {
	cur := p.Budget()
	switch {
	case more.Tokens < 0 || more.Time < 0 || more.IsZero():
		return fmt.Errorf("raise by a positive count of tokens (+5000) or a duration (+10m)")
	case more.Tokens > 0 && cur.Tokens == 0:
		return fmt.Errorf("there is no token budget to raise (start todosh with --budget-tokens N)")
	case more.Time > 0 && cur.Time == 0:
		return fmt.Errorf("there is no time budget to raise (start todosh with --budget-time DURATION)")
	case more.Tokens > 0 && cur.Tokens+more.Tokens > maxBudgetTokens:
		return fmt.Errorf("a token budget above %s is no budget", todolist.Thousands(maxBudgetTokens))
	}
	p.raised.Tokens += more.Tokens
	p.raised.Time += more.Time
	return nil
}

// maxBudgetTokens bounds a token budget, as usage counts are bounded
// (agent.MaxUsage), so sums never overflow.
const maxBudgetTokens = 1_000_000_000_000

// CheckBudget says whether b can be a budget: counts below zero, or a
// token budget beyond what any agent reports, cannot.
func CheckBudget(b Budget) error {
	switch {
	case b.Tokens < 0:
		return fmt.Errorf("a token budget of %d is below zero (give a count such as 100000, or none)", b.Tokens)
	case b.Tokens > maxBudgetTokens:
		return fmt.Errorf("a token budget above %s is no budget (leave it out for none)", todolist.Thousands(maxBudgetTokens))
	case b.Time < 0:
		return fmt.Errorf("a time budget of %s is below zero (give a duration such as 30m, or none)", b.Time)
	}
	return nil
}

// StoppedAtBudget reports whether the last decision stopped at the budget:
// a raise then continues the same list (Resume).
func (p *Policy) StoppedAtBudget() bool {
	return p.lastStop == TokenBudget || p.lastStop == TimeBudget
}

// overBudget reports whether the prompt spent its budget.
func (p *Policy) overBudget() bool {
	b := p.Budget()
	return b.Tokens > 0 && p.spent.Tokens >= b.Tokens || b.Time > 0 && p.spent.Time >= b.Time
}

// budgetStop is the stop of a spent budget and its line, the tokens' first.
func (p *Policy) budgetStop() (StopReason, string) {
	b := p.Budget()
	if b.Tokens > 0 && p.spent.Tokens >= b.Tokens {
		return TokenBudget, fmt.Sprintf("stopped: token budget reached: %s of %s", todolist.Thousands(p.spent.Tokens), todolist.Thousands(b.Tokens))
	}
	return TimeBudget, fmt.Sprintf("stopped: time budget reached: %s of %s", roundTime(p.spent.Time), roundTime(b.Time))
}

// Resume is what follows a raise of the budget after a prompt stopped at
// it (StoppedAtBudget): the next continuation of after, the list now, as
// Decide would have sent it, or a stop when the list is done, a pause
// came meanwhile, the budget is still spent, or the prompt had its
// MaxPerPrompt continuations. The continuations without progress before
// the stop still count: a raise buys tokens, not attempts.
func (p *Policy) Resume(after []todolist.Todo, tools Tools) Decision {
	stop := func(r StopReason, line string) Decision {
		p.lastStop = r
		return Decision{Reason: r, Line: line}
	}
	switch {
	case p.paused:
		return stop(Paused, pauseLine(p.reason))
	case openCount(after) == 0:
		return stop(NoOpenItems, doneLine(after, after))
	case p.overBudget():
		return stop(p.budgetStop())
	case p.perPrompt >= MaxPerPrompt:
		return stop(PromptLimit, fmt.Sprintf("stopped: %d continuations for this prompt", MaxPerPrompt))
	}
	return p.proceed(after, tools, false, nil)
}

// BudgetLines is what /todo budget shows: each limit with what the
// prompt spent of it and what is left, or that there is none.
func (p *Policy) BudgetLines() string {
	b, s := p.Budget(), p.spent
	var out strings.Builder
	if b.Tokens > 0 {
		fmt.Fprintf(&out, "tokens: %s of %s spent, %s left\n", todolist.Thousands(s.Tokens), todolist.Thousands(b.Tokens), todolist.Thousands(max(0, b.Tokens-s.Tokens)))
	} else {
		fmt.Fprintf(&out, "tokens: %s spent, no budget (--budget-tokens N sets one)\n", todolist.Thousands(s.Tokens))
	}
	if b.Time > 0 {
		fmt.Fprintf(&out, "time: %s of %s spent, %s left\n", roundTime(s.Time), roundTime(b.Time), roundTime(max(0, b.Time-s.Time)))
	} else {
		fmt.Fprintf(&out, "time: %s spent, no budget (--budget-time DURATION sets one)\n", roundTime(s.Time))
	}
	return out.String()
}

// roundTime writes a duration to the second, or to the millisecond below
// one (below that, as it is): 5m2s, 340ms, 1ns.
func roundTime(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return d.String()
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
