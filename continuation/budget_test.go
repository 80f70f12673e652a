package continuation

import (
	"strings"
	"testing"
	"time"
)

// TestBudget: the budget is one more stop, after the ones that end the
// work anyway (done, paused, a question, off) and before the counters;
// it is per prompt, spent by the turns' tokens and time, and a raise
// continues the same list.
func TestBudget(t *testing.T) {
	type turnSpend struct {
		turn   Turn
		tokens int64
		took   time.Duration
		want   string // Decision.Line, or "continue"
		reason StopReason
	}
	spend := func(tr Turn, tokens int64, took time.Duration, want string, reason StopReason) turnSpend {
		return turnSpend{tr, tokens, took, want, reason}
	}
	for _, tc := range []struct {
		name   string
		budget Budget
		turns  []turnSpend
	}{
		{"no budget: spending never stops", Budget{}, []turnSpend{spend(stuck, 1e9, time.Hour, "continue", "")}},
		{"tokens reached exactly", Budget{Tokens: 10_000}, []turnSpend{
			spend(progress, 4_000, 0, "continue", ""), spend(progress, 6_000, 0, "stopped: token budget reached: 10,000 of 10,000", TokenBudget)}},
		{"tokens crossed", Budget{Tokens: 10_000}, []turnSpend{spend(progress, 10_240, 0, "stopped: token budget reached: 10,240 of 10,000", TokenBudget)}},
		{"time reached", Budget{Time: 5 * time.Minute}, []turnSpend{
			spend(progress, 0, 3*time.Minute, "continue", ""), spend(progress, 0, 2*time.Minute+1500*time.Millisecond, "stopped: time budget reached: 5m2s of 5m0s", TimeBudget)}},
		{"both: tokens are named first", Budget{Tokens: 100, Time: time.Second}, []turnSpend{spend(stuck, 100, time.Second, "stopped: token budget reached: 100 of 100", TokenBudget)}},
		{"done wins over the budget", Budget{Tokens: 100}, []turnSpend{spend(Turn{Before: open1, After: allDone}, 500, 0, "all done", NoOpenItems)}},
		{"a question wins over the budget", Budget{Tokens: 100}, []turnSpend{spend(Turn{Before: open2, After: open2, FinalText: question}, 500, 0, "stopped: the agent asked a question", AskedQuestion)}},
		{"the budget wins over no progress", Budget{Tokens: 100}, []turnSpend{
			spend(stuck, 10, 0, "continue", ""), spend(stuck, 10, 0, "continue", ""), spend(stuck, 10, 0, "continue", ""),
			spend(stuck, 70, 0, "stopped: token budget reached: 100 of 100", TokenBudget)}},
		{"a failed turn's tokens count", Budget{Tokens: 100}, []turnSpend{
			spend(Turn{Before: open2, After: open2, Err: serverErr}, 90, 0, "stopped: error: "+serverErr.Error(), Failed), spend(progress, 10, 0, "stopped: token budget reached: 100 of 100", TokenBudget)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New()
			p.SetBudget(tc.budget)
			p.PersonPrompt()
			for i, s := range tc.turns {
				tr := s.turn
				tr.Tokens, tr.Took = s.tokens, s.took
				d := p.Decide(tr, Tools{Todo: "todo_write"})
				got := d.Line
				if d.Continue {
					got = "continue"
				}
				if got != s.want || !d.Continue && d.Reason != s.reason {
					t.Errorf("turn %d: %q (%s), want %q (%s)", i+1, got, d.Reason, s.want, s.reason)
				}
				if budgetStop := s.reason == TokenBudget || s.reason == TimeBudget; p.StoppedAtBudget() != budgetStop {
					t.Errorf("turn %d: StoppedAtBudget %v", i+1, p.StoppedAtBudget())
				}
			}
		})
	}
}

// TestBudgetRaiseAndResume: /todo budget +N raises the prompt's budget
// and the same list continues; the next prompt from the person starts
// from the flags' budget and nothing spent.
func TestBudgetRaiseAndResume(t *testing.T) {
	tools := Tools{Todo: "todo_write"}
	p := New()
	p.SetBudget(Budget{Tokens: 1000})
	p.PersonPrompt()
	if d := p.Decide(Turn{Before: open2, After: open2, Tokens: 1200}, tools); d.Reason != TokenBudget {
		t.Fatalf("decision %+v", d)
	}
	if d := p.Resume(open2, tools); d.Continue || d.Reason != TokenBudget {
		t.Errorf("resume before a raise: %+v", d)
	}
	for _, bad := range []Budget{{}, {Tokens: -5}, {Time: time.Minute}, {Tokens: 2e12}} {
		if err := p.Raise(bad); err == nil {
			t.Errorf("Raise(%+v) taken", bad)
		}
	}
	if err := p.Raise(Budget{Tokens: 500}); err != nil {
		t.Fatal(err)
	}
	if got := p.BudgetLines(); !strings.Contains(got, "tokens: 1,200 of 1,500 spent, 300 left") || !strings.Contains(got, "time: 0s spent, no budget") {
		t.Errorf("lines %q", got)
	}
	d := p.Resume(open2, tools)
	if !d.Continue || !strings.Contains(d.Prompt, "todo_write") || p.StoppedAtBudget() {
		t.Fatalf("resume: %+v", d)
	}
	if d := p.Decide(Turn{Before: open2, After: open1, Tokens: 400}, tools); d.Reason != TokenBudget || d.Line != "stopped: token budget reached: 1,600 of 1,500" {
		t.Errorf("after the raise: %+v", d)
	}
	if err := p.Raise(Budget{Tokens: 1000}); err != nil {
		t.Fatal(err)
	}
	if d := p.Resume(allDone, tools); d.Continue || d.Reason != NoOpenItems {
		t.Errorf("resume of a finished list: %+v", d)
	}
	p.PersonPrompt()
	if b, s := p.Budget(), p.Spent(); b != (Budget{Tokens: 1000}) || s != (Budget{}) {
		t.Errorf("next prompt: budget %+v spent %+v", b, s)
	}
}

func TestCheckBudget(t *testing.T) {
	for b, ok := range map[Budget]bool{{}: true, {Tokens: 1}: true, {Tokens: 1e12}: true, {Tokens: 1e12 + 1}: false, {Tokens: -1}: false, {Time: -time.Second}: false, {Time: time.Hour}: true} {
		if err := CheckBudget(b); (err == nil) != ok {
			t.Errorf("CheckBudget(%+v) = %v", b, err)
		}
	}
}
