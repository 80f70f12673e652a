package continuation

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/todosh/todosh/todolist"
)

// list builds a normalised list whose item i is "item i" with the given
// status, so tests read as a row of statuses.
func list(statuses ...todolist.Status) []todolist.Todo {
	out := make([]todolist.Todo, len(statuses))
	for i, s := range statuses {
		out[i] = todolist.Todo{Content: "item " + string(rune('A'+i)), Status: s}
	}
	todolist.Normalize(out)
	return out
}

const (
	P = todolist.Pending
	I = todolist.InProgress
	C = todolist.Completed
	X = todolist.Cancelled
)

var (
	open2     = list(C, I, P)
	open1     = list(C, C, P)
	allDone   = list(C, C, X)
	stuck     = Turn{Before: open2, After: open2}
	progress  = Turn{Before: open2, After: open1}
	question  = "I looked at the parser.\n\nShould I also handle CRLF?"
	serverErr = errors.New("post http://127.0.0.1:11434/v1/chat/completions: connection refused")
)

// step is one event of a scenario: a prompt from the person, a replaced list,
// or a finished turn and the line its decision must show.
type step struct {
	person, load bool
	turn         Turn
	want         string     // Decision.Line
	reason       StopReason // checked when the decision stops
}

func turn(t Turn, want string) step { return step{turn: t, want: want} }

var personPrompt = step{person: true}

// repeat returns n copies of s.
func repeat(n int, s step) []step {
	out := make([]step, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func join(parts ...[]step) []step {
	var out []step
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// progressTurns are n turns that each complete one more item of a long list
// and so always make progress and always leave open items.
func progressTurns(n int) []step {
	out := make([]step, n)
	for i := range out {
		before := make([]todolist.Status, n+1)
		for j := range before {
			before[j] = P
			if j < i {
				before[j] = C
			}
		}
		after := append([]todolist.Status(nil), before...)
		after[i] = C
		out[i] = step{turn: Turn{Before: list(before...), After: list(after...)}}
	}
	return out
}

func TestDecideRules(t *testing.T) {
	cont := func(a, open int) string {
		return "continuing " + string(rune('0'+a)) + "/3 — " + todolist.Plural(open, "open item")
	}
	tests := []struct {
		name  string
		steps []step
	}{
		// ARCHITECTURE.md §7, one rule at a time.
		{"aborted stops", []step{{turn: Turn{Aborted: true, Before: open2, After: open2}, want: "stopped: turn cancelled", reason: Aborted}}},
		{"failed stops", []step{{turn: Turn{Err: serverErr, Before: open2, After: open2},
			want: "stopped: error: " + serverErr.Error(), reason: Failed}}},
		{"error is one clean line", []step{{turn: Turn{Err: errors.New("bad\nstream\x1b[2J \u202eline"), After: open2},
			want: "stopped: error: bad stream [2J line", reason: Failed}}},
		{"pause stops", []step{{turn: Turn{Paused: true, PauseReason: "need the API key", Before: open2, After: open2},
			want: `stopped: paused — "need the API key"`, reason: Paused}}},
		{"pause without reason", []step{{turn: Turn{Paused: true, After: open2}, want: "stopped: paused", reason: Paused}}},
		{"all done stops", []step{{turn: Turn{Before: open1, After: allDone}, want: "all done", reason: NoOpenItems}}},
		{"emptied list stops", []step{{turn: Turn{Before: open1, After: nil}, want: "stopped: the list is empty", reason: NoOpenItems}}},
		{"no list, nothing to say", []step{{turn: Turn{FinalText: "Hello!"}, want: "", reason: NoOpenItems}}},
		{"open items continue", []step{turn(stuck, cont(1, 2))}},
		{"question stops", []step{{turn: Turn{Before: open2, After: open2, FinalText: question},
			want: "stopped: the agent asked a question", reason: AskedQuestion}}},
		{"three without progress stop", join(repeat(3, turn(stuck, "")),
			[]step{{turn: stuck, want: "stopped: 3 attempts without progress", reason: NoProgress}})},
		{"counter climbs 1/3 2/3 3/3", []step{turn(stuck, cont(1, 2)), turn(stuck, cont(2, 2)), turn(stuck, cont(3, 2))}},
		{"progress resets the counter", []step{turn(stuck, cont(1, 2)), turn(stuck, cont(2, 2)), turn(progress, cont(1, 1))}},
		{"progress at the cap still resets", join(repeat(3, turn(stuck, "")), []step{turn(progress, cont(1, 1))})},
		{"twenty per prompt", join(progressTurns(MaxPerPrompt),
			[]step{{turn: progressTurns(MaxPerPrompt + 1)[MaxPerPrompt].turn, want: "stopped: 20 continuations for this prompt", reason: PromptLimit}})},

		// Rule order.
		{"aborted beats failed", []step{{turn: Turn{Aborted: true, Err: context.Canceled, After: open2}, want: "stopped: turn cancelled", reason: Aborted}}},
		{"aborted beats pause", []step{{turn: Turn{Aborted: true, Paused: true, After: open2}, reason: Aborted, want: "stopped: turn cancelled"}}},
		{"a cancelled turn that paused stays paused", []step{{turn: Turn{Aborted: true, Paused: true, PauseReason: "r", After: open2}, reason: Aborted},
			{turn: stuck, reason: Paused, want: `stopped: paused — "r"`}}},
		{"failed beats all done", []step{{turn: Turn{Err: serverErr, Before: open1, After: allDone}, reason: Failed, want: "stopped: error: " + serverErr.Error()}}},
		{"pause beats no open items", []step{{turn: Turn{Paused: true, PauseReason: "check", Before: open1, After: allDone},
			reason: Paused, want: `stopped: paused — "check"`}}},
		{"pause beats question", []step{{turn: Turn{Paused: true, PauseReason: "which db?", After: open2, FinalText: question},
			reason: Paused, want: `stopped: paused — "which db?"`}}},
		{"no open items beats question", []step{{turn: Turn{Before: open1, After: allDone, FinalText: question}, reason: NoOpenItems, want: "all done"}}},
		{"question beats progress", []step{{turn: Turn{Before: open2, After: open1, FinalText: question},
			reason: AskedQuestion, want: "stopped: the agent asked a question"}}},
		{"question beats no-progress cap", join(repeat(3, turn(stuck, "")), []step{{turn: Turn{Before: open2, After: open2, FinalText: question},
			reason: AskedQuestion, want: "stopped: the agent asked a question"}})},
		{"no-progress cap beats prompt cap", join(progressTurns(MaxPerPrompt-3), repeat(3, turn(stuck, "")),
			[]step{{turn: stuck, reason: NoProgress, want: "stopped: 3 attempts without progress"}})},
		{"prompt cap beats progress", join(progressTurns(MaxPerPrompt-1), []step{turn(stuck, "")},
			[]step{{turn: progress, reason: PromptLimit, want: "stopped: 20 continuations for this prompt"}})},
		{"all done beats prompt cap", join(progressTurns(MaxPerPrompt),
			[]step{{turn: Turn{Before: open1, After: allDone}, reason: NoOpenItems, want: "all done"}})},

		// ARCHITECTURE.md §7 rows that concern continuation.
		{"person prompt resets attempts", join(repeat(3, turn(stuck, "")), []step{turn(stuck, "stopped: 3 attempts without progress"),
			personPrompt, turn(stuck, cont(1, 2))})},
		{"person prompt resets the per-prompt count", join(progressTurns(MaxPerPrompt), []step{personPrompt, turn(progress, cont(1, 1))})},
		{"person prompt lifts a pause", []step{{turn: Turn{Paused: true, PauseReason: "r", After: open2}, want: `stopped: paused — "r"`},
			personPrompt, turn(stuck, cont(1, 2))}},
		{"person prompt, all done", []step{personPrompt, {turn: Turn{Before: nil, After: nil}, reason: NoOpenItems}}},
		{"pause holds until the person prompts", []step{{turn: Turn{Paused: true, PauseReason: "r", After: open2}, want: `stopped: paused — "r"`},
			{turn: progress, reason: Paused, want: `stopped: paused — "r"`}}},
		{"stopped after 3 stays stopped", join(repeat(3, turn(stuck, "")), repeat(2, step{turn: stuck, reason: NoProgress, want: "stopped: 3 attempts without progress"}))},
		{"/todo clear", []step{turn(stuck, cont(1, 2)), {turn: Turn{Before: open2, After: []todolist.Todo{}}, reason: NoOpenItems, want: "stopped: the list is empty"}}},
		{"/todo load resets attempts", join(repeat(3, turn(stuck, "")), []step{{load: true}, turn(stuck, cont(1, 2))})},
		{"/todo load keeps a pause", []step{{turn: Turn{Paused: true, PauseReason: "r", After: open2}}, {load: true},
			{turn: stuck, reason: Paused, want: `stopped: paused — "r"`}}},
		{"/todo load keeps the per-prompt cap", join(progressTurns(MaxPerPrompt), []step{{load: true},
			{turn: progress, reason: PromptLimit, want: "stopped: 20 continuations for this prompt"}})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runSteps(t, New(), tt.steps)
		})
	}
}

// runSteps plays a scenario against p and checks each decision whose step
// names a line or a reason.
func runSteps(t *testing.T, p *Policy, steps []step) {
	t.Helper()
	for i, s := range steps {
		switch {
		case s.person:
			p.PersonPrompt()
			continue
		case s.load:
			p.ListReplaced()
			continue
		}
		d := p.Decide(s.turn, toolsFor("todo_write"))
		if s.want != "" && d.Line != s.want {
			t.Fatalf("step %d: line %q, want %q", i, d.Line, s.want)
		}
		if s.reason != "" && (d.Continue || d.Reason != s.reason) {
			t.Fatalf("step %d: continue=%v reason %q, want stop %q (%s)", i, d.Continue, d.Reason, s.reason, d.Line)
		}
		if d.Continue != strings.HasPrefix(d.Line, "continuing ") || d.Continue != (d.Prompt != "") || d.Continue == (d.Reason != "") {
			t.Fatalf("step %d: inconsistent decision %+v", i, d)
		}
	}
}

func TestDisabled(t *testing.T) {
	tests := []struct {
		name string
		turn Turn
		want string
	}{
		{"open items", stuck, "stopped: continuation is off — 2 open items"},
		{"one open item", Turn{Before: open2, After: open1}, "stopped: continuation is off — 1 open item"},
		{"all done is still said", Turn{Before: open1, After: allDone}, "all done"},
		{"a pause is still shown", Turn{Paused: true, PauseReason: "key", After: open2}, `stopped: paused — "key"`},
		{"a question is still named", Turn{After: open2, FinalText: question}, "stopped: the agent asked a question"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New()
			p.SetEnabled(false)
			p.PersonPrompt() // must not turn it back on
			if d := p.Decide(tt.turn, toolsFor("TodoWrite")); d.Continue || d.Line != tt.want {
				t.Fatalf("got %+v, want stop %q", d, tt.want)
			}
		})
	}
	p := New()
	p.SetEnabled(false)
	p.SetEnabled(true)
	if d := p.Decide(stuck, toolsFor("TodoWrite")); !d.Continue {
		t.Fatalf("re-enabled policy stopped: %s", d.Line)
	}
}

func TestIsPaused(t *testing.T) {
	p := New()
	p.Decide(Turn{Paused: true, PauseReason: "need the API key", After: open2}, toolsFor("todo_write"))
	if ok, r := p.IsPaused(); !ok || r != "need the API key" {
		t.Fatalf("IsPaused = %v %q", ok, r)
	}
	p.PersonPrompt()
	if ok, _ := p.IsPaused(); ok {
		t.Fatal("a prompt from the person did not lift the pause")
	}
}

func TestEscalation(t *testing.T) {
	started := list(C, I, I) // item 3 started: a change, not progress
	tests := []struct {
		name  string
		turns []Turn
		want  []int // Wording of each decision
	}{
		{"unchanged list escalates", []Turn{stuck, stuck, stuck}, []int{1, 2, 3}},
		{"a change without progress starts again", []Turn{stuck, stuck, {Before: open2, After: started}}, []int{1, 2, 1}},
		{"progress starts again", []Turn{stuck, progress, {Before: open1, After: open1}}, []int{1, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New()
			for i, tr := range tt.turns {
				d := p.Decide(tr, toolsFor("todo_write"))
				if !d.Continue || d.Wording != tt.want[i] {
					t.Fatalf("turn %d: continue=%v wording %d, want %d (%s)", i, d.Continue, d.Wording, tt.want[i], d.Line)
				}
			}
		})
	}
	p := New()
	p.Decide(stuck, toolsFor("todo_write"))
	p.PersonPrompt()
	if d := p.Decide(stuck, toolsFor("todo_write")); d.Wording != WordingFirst {
		t.Fatalf("wording %d after a prompt from the person, want %d", d.Wording, WordingFirst)
	}
}

func BenchmarkDecide(b *testing.B) {
	l := make([]todolist.Status, 20)
	for i := range l {
		l[i] = P
	}
	todos := list(l...)
	for b.Loop() {
		p := New()
		p.Decide(Turn{Before: todos, After: todos, FinalText: question[:20]}, toolsFor("todo_write"))
	}
}

func BenchmarkProgressed(b *testing.B) {
	before := make([]todolist.Todo, todolist.MaxTodos)
	for i := range before {
		before[i] = td("item number "+string(rune('a'+i%26))+string(rune('a'+i/26)), P, "x", P, "y", P)
	}
	after := append(todolist.CloneTodos(before[1:]), before[0]) // moved, nothing done
	for b.Loop() {
		if Progressed(before, after) {
			b.Fatal("progress")
		}
	}
}

// A turn that writes the list and finishes one of its items made progress
// (Turn.First); items that were done already when the list was written are
// not progress, however the turn began.
func TestFirstListProgress(t *testing.T) {
	item := func(s string, st todolist.Status) todolist.Todo { return todolist.Todo{Content: s, Status: st} }
	written := []todolist.Todo{item("skeleton", todolist.InProgress), item("parser", todolist.Pending)}
	finished := []todolist.Todo{item("skeleton", todolist.Completed), item("parser", todolist.Pending)}
	for _, c := range []struct {
		name string
		turn Turn
		want bool
	}{
		{"list written and an item finished", Turn{Before: nil, First: written, After: finished}, true},
		{"list written done already", Turn{Before: nil, First: finished, After: finished}, false},
		{"no list written", Turn{Before: written, After: written}, false},
		{"finished from Before", Turn{Before: written, After: finished}, true},
	} {
		if got := New().Decide(c.turn, Tools{Todo: "todo_write"}).Progress; got != c.want {
			t.Errorf("%s: progress %v, want %v", c.name, got, c.want)
		}
	}
}
