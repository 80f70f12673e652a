package acpserve

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/agent/acpagent"
	"github.com/todosh/todosh/continuation"
)

func TestTitle(t *testing.T) {
	todos := func(st ...todolist.Status) []todolist.Todo {
		var out []todolist.Todo
		for i, s := range st {
			out = append(out, todolist.Todo{Content: "item " + string(rune('a'+i)), Status: s})
		}
		return out
	}
	for _, c := range []struct {
		prompt string
		todos  []todolist.Todo
		want   string
	}{
		{"csv parser", todos(todolist.Completed, todolist.Pending, todolist.Cancelled), "csv parser · 2/3 done"},
		{"csv parser\nwith tests", nil, "csv parser"},
		{"", todos(todolist.Pending), "item a · 0/1 done"},
		{`/todo add "x"`, todos(todolist.Pending), "item a · 0/1 done"},
		{"", nil, "todosh session"},
		{strings.Repeat("long ", 30), nil, strings.TrimSpace(todolist.ShortLine(strings.Repeat("long ", 30), 50))},
	} {
		if got := Title(c.prompt, c.todos); got != c.want {
			t.Errorf("Title(%q) = %q, want %q", c.prompt, got, c.want)
		}
	}
	if got := Title("\x1b[31mred", nil); strings.ContainsRune(got, 0x1b) {
		t.Errorf("an escape sequence in a title: %q", got)
	}
}

func TestMergeOptions(t *testing.T) {
	cat := acp.SessionConfigOptionCategory("model")
	inner := []acp.SessionConfigOption{
		{Select: &acp.SessionConfigOptionSelect{Id: "model", Name: "Model", Type: "select", Category: &cat}},
		{Boolean: &acp.SessionConfigOptionBoolean{Id: "todosh_continue", Name: "the agent's own", Type: "boolean"}},
	}
	got := MergeOptions(inner, settings{Continue: true, Attempts: 3})
	var ids []string
	for _, o := range got {
		ids = append(ids, optionID(o))
	}
	if strings.Join(ids, " ") != "model todosh_continue todosh_attempts todosh_budget_time" || got[1].Boolean.Name == "the agent's own" || !got[1].Boolean.CurrentValue {
		t.Errorf("MergeOptions = %v", ids)
	}
	if got[2].Select.CurrentValue != "3" {
		t.Errorf("attempts = %q, want 3", got[2].Select.CurrentValue)
	}
}

// TestPromptQueue: prompts begin in their numbers' order, whatever order
// their goroutines come in; a new prompt cancels the running one, and
// cancelAll every prompt that came.
func TestPromptQueue(t *testing.T) {
	q := &promptQueue{}
	q.cond = newCond(q)
	one, two, three := q.arrive(), q.arrive(), q.arrive()
	began := make(chan uint64, 3)
	for _, seq := range []uint64{three, two} {
		go func() {
			_, _, end := q.begin(context.Background(), seq)
			began <- seq
			end()
		}()
	}
	select {
	case s := <-began:
		t.Fatalf("prompt %d began before prompt 1", s)
	case <-time.After(50 * time.Millisecond):
	}
	ctx, cancelled, end := q.begin(context.Background(), one)
	if !cancelled || ctx.Err() == nil {
		t.Errorf("prompt 1 not cancelled by the prompts after it")
	}
	end()
	if a, b := <-began, <-began; a != two || b != three {
		t.Errorf("began %d then %d, want 2 then 3", a, b)
	}
	four := q.arrive()
	ctx, cancelled, end = q.begin(context.Background(), four)
	if cancelled {
		t.Fatalf("the newest prompt began cancelled")
	}
	q.cancelAll()
	if ctx.Err() == nil {
		t.Errorf("cancelAll left the running prompt")
	}
	end()
}

// TestInnerOptions: an agent's own options are its options; modes and
// models without options become mode and model, current values kept.
func TestInnerOptions(t *testing.T) {
	own := []acp.SessionConfigOption{{Boolean: &acp.SessionConfigOptionBoolean{Id: "x", Name: "X", Type: "boolean"}}}
	modes := &acp.SessionModeState{AvailableModes: []acp.SessionMode{{Id: "default", Name: "Default"}, {Id: "plan", Name: "Plan"}}, CurrentModeId: "plan"}
	models := &acp.SessionModelState{AvailableModels: []acp.ModelInfo{{ModelId: "pro", Name: "Pro"}}, CurrentModelId: "pro"}
	if got := InnerOptions(acpagent.SessionConfig{Options: own, Modes: modes}); len(got) != 1 || optionID(got[0]) != "x" {
		t.Errorf("an agent's own options: %v", got)
	}
	got := InnerOptions(acpagent.SessionConfig{Modes: modes, Models: models})
	if len(got) != 2 || got[0].Select.CurrentValue != "plan" || got[1].Select.CurrentValue != "pro" || len(*got[0].Select.Options.Ungrouped) != 2 {
		t.Errorf("options made of modes and models: %+v", got)
	}
	if got := InnerOptions(acpagent.SessionConfig{}); len(got) != 0 {
		t.Errorf("nothing told: %v", got)
	}
}

// TestBudgetOptions: the token budget is offered only with an agent that
// reports usage; each budget's values are none, the fixed choices and the
// flag's, in order, and a value outside them is refused.
func TestBudgetOptions(t *testing.T) {
	flag := continuation.Budget{Tokens: 600, Time: 90 * time.Second}
	s := settings{Continue: true, Attempts: 3, Budget: flag, flagBudget: flag, usage: true}
	byID := map[string]acp.SessionConfigOption{}
	for _, o := range MergeOptions(nil, s) {
		byID[optionID(o)] = o
	}
	values := func(id string) string {
		o, ok := byID[id]
		if !ok {
			return "(not offered)"
		}
		var vs []string
		for _, x := range *o.Select.Options.Ungrouped {
			vs = append(vs, string(x.Value)+"="+x.Name)
		}
		return string(o.Select.CurrentValue) + ": " + strings.Join(vs, " ")
	}
	for id, want := range map[string]string{
		optBudgetTokens: "600: none=none 600=600 tokens 10000=10k tokens 50000=50k tokens 200000=200k tokens",
		optBudgetTime:   "1m30s: none=none 1m30s=1m30s 5m=5m 15m=15m 1h=1h",
	} {
		if got := values(id); got != want {
			t.Errorf("%s = %s, want %s", id, got, want)
		}
	}
	for _, c := range []struct {
		id, value string
		want      continuation.Budget
		bad       bool
	}{
		{optBudgetTokens, "50000", continuation.Budget{Tokens: 50_000, Time: flag.Time}, false},
		{optBudgetTokens, "none", continuation.Budget{Time: flag.Time}, false},
		{optBudgetTime, "1h", continuation.Budget{Tokens: 600, Time: time.Hour}, false},
		{optBudgetTime, "none", continuation.Budget{Tokens: 600}, false},
		{optBudgetTokens, "123", flag, true},
		{optBudgetTime, "-5m", flag, true},
		{optBudgetTime, "5m0s", flag, true},
	} {
		next := s
		for _, o := range ownOptions {
			if o.id == c.id {
				err := o.set(&next, acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{ConfigId: acp.SessionConfigId(c.id), Value: acp.SessionConfigValueId(c.value)}})
				if (err != nil) != c.bad {
					t.Errorf("%s=%s: error %v, want an error %v", c.id, c.value, err, c.bad)
				}
			}
		}
		if !c.bad && next.Budget != c.want {
			t.Errorf("%s=%s: budget %+v, want %+v", c.id, c.value, next.Budget, c.want)
		}
	}
	s.usage = false
	for _, o := range MergeOptions(nil, s) {
		if optionID(o) == optBudgetTokens {
			t.Errorf("a token budget offered with an agent that reports no usage")
		}
	}
}
