package continuation

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"
)

// sim plays a sequence of events against a Policy, keeping its own count of
// what happened (ground truth from the mutations it makes, not from
// Progressed) and checking every decision against the invariants.
type sim struct {
	t     *testing.T
	p     *Policy
	list  []todolist.Todo
	text  string // fuzzer text: todo content and final reply text
	names int    // counter that keeps every content unique

	done          map[string]bool // the high-water mark: contents completed since the person's prompt
	sinceProgress int             // continuations since progress or the person's prompt
	sincePrompt   int             // continuations since the person's prompt
	paused        bool
}

// finals are the reply texts a simulated turn may end with.
var finals = []string{"", "Working on it.", "Should I go on?", "Here:\n```\nx?\n```"}

// play runs one sequence. Each byte is an event: the low five bits choose a
// prompt from the person, a replaced list, or a turn and its change to the
// list; the high three bits choose how the turn ends.
func (s *sim) play(ops []byte) {
	s.list = s.fresh(3)
	for _, b := range ops {
		kind, extra := int(b%32), int(b>>5)
		switch kind {
		case 0:
			s.p.PersonPrompt()
			s.sinceProgress, s.sincePrompt, s.paused = 0, 0, false
			clear(s.done)
			if openCount(s.list) == 0 {
				s.list = s.fresh(extra + 1)
			}
		case 1:
			s.p.ListReplaced()
			s.sinceProgress = 0
			s.list = s.fresh(extra + 1)
		default:
			s.turn(kind-2, extra)
		}
	}
}

// content is a unique todo text; with fuzzer text it is that text plus a
// '#'-marker, and instructions never contain '#'.
func (s *sim) content() string {
	s.names++
	return s.text + " #" + strconv.Itoa(s.names)
}

func (s *sim) fresh(n int) []todolist.Todo {
	out := make([]todolist.Todo, n)
	for i := range out {
		out[i] = todolist.Todo{Content: s.content(), Status: P}
		if i%2 == 1 {
			out[i].Subtasks = []todolist.Subtask{{Content: s.content(), Status: P}, {Content: s.content(), Status: P}}
		}
	}
	todolist.Normalize(out)
	return out
}

// mutate changes s.list the way one turn might and reports whether that is
// progress by the definition: an item or subtask reached completed for the
// first time since the person's prompt (contents are unique, so the
// content is the key).
func (s *sim) mutate(m, extra int) bool {
	l := todolist.CloneTodos(s.list)
	firstOpen := firstIndex(l, todolist.Todo.IsOpen)
	firstClosed := firstIndex(l, func(t todolist.Todo) bool { return !t.IsOpen() })
	progress := false
	switch m % 14 {
	case 1: // start the next item
		if i := firstIndex(l, func(t todolist.Todo) bool { return t.Status == P }); i >= 0 {
			l[i].Status = I
		}
	case 2: // complete the next item, or tick its next subtask
		if firstOpen >= 0 {
			t := &l[firstOpen]
			if j := firstIndexSub(t.Subtasks); j >= 0 {
				t.Subtasks[j].Status = C
				progress = s.reach(t.Content + "/" + t.Subtasks[j].Content)
				if firstIndexSub(t.Subtasks) < 0 {
					progress = s.reach(t.Content) || progress
				}
			} else {
				t.Status = C
				progress = s.reach(t.Content)
			}
		}
	case 3: // cancel the next item: not progress
		if firstOpen >= 0 {
			l[firstOpen].Status = X
		}
	case 4: // add a pending item
		l = append(l, todolist.Todo{Content: s.content(), Status: P})
	case 5: // insert an item that is already completed
		at := extra % (len(l) + 1)
		l = append(l[:at], append([]todolist.Todo{{Content: s.content(), Status: C}}, l[at:]...)...)
	case 6: // rotate the list
		if len(l) > 1 {
			l = append(l[1:], l[0])
		}
	case 7: // reword the next item in place
		if firstOpen >= 0 {
			l[firstOpen].Content = s.content()
		}
	case 8: // remove the next open item
		if firstOpen >= 0 {
			l = append(l[:firstOpen], l[firstOpen+1:]...)
		}
	case 9: // remove a finished item
		if firstClosed >= 0 {
			l = append(l[:firstClosed], l[firstClosed+1:]...)
		}
	case 10: // reopen a finished item
		if firstClosed >= 0 {
			l[firstClosed].Status = P
			for j := range l[firstClosed].Subtasks {
				l[firstClosed].Subtasks[j].Status = P
			}
		}
	case 11: // clear the list
		l = nil
	case 12: // add a subtask to the next item
		if firstOpen >= 0 {
			l[firstOpen].Subtasks = append(l[firstOpen].Subtasks, todolist.Subtask{Content: s.content(), Status: P})
		}
	case 13: // replace the list with as many new open items
		l = s.fresh(len(l))
	}
	todolist.Normalize(l)
	s.list = l
	return progress
}

// reach records that the entry with content key reached completed and
// reports whether that raised the high-water mark.
func (s *sim) reach(key string) bool {
	if s.done == nil {
		s.done = map[string]bool{}
	}
	k := matchKey(key)
	if s.done[k] {
		return false
	}
	s.done[k] = true
	return true
}

func firstIndexSub(subs []todolist.Subtask) int {
	for j, sub := range subs {
		if sub.Status != C {
			return j
		}
	}
	return -1
}

// turn plays one agent turn and checks the decision.
func (s *sim) turn(m, extra int) {
	t := s.t
	before := todolist.CloneTodos(s.list)
	progress := s.mutate(m, extra)
	tr := Turn{Before: before, After: todolist.CloneTodos(s.list), FinalText: finals[extra%len(finals)]}
	switch extra {
	case 7:
		tr.Aborted = true
	case 6:
		tr.Err = errors.New("boom\n" + s.text)
	case 5:
		tr.Paused, tr.PauseReason = true, s.text
	case 4:
		tr.FinalText = s.text
	}
	tool := []string{"todo_write", "TodoWrite", "update_plan", "write_todos", ""}[m%5]
	d := s.p.Decide(tr, toolsFor(tool))

	if d.Progress != progress {
		t.Fatalf("Progress = %v, want %v (mutation %d)\nbefore:\n%safter:\n%s", d.Progress, progress, m%14,
			todoview.FormatList(before), todoview.FormatList(tr.After))
	}
	if progress {
		s.sinceProgress = 0
	}
	if tr.Paused {
		s.paused = true
	}
	if !d.Continue {
		if d.Reason == "" || d.Prompt != "" || d.Attempt != 0 {
			t.Fatalf("stop without a reason or with a prompt: %+v", d)
		}
		if d.Line == "" && (len(tr.Before) > 0 || len(tr.After) > 0) {
			t.Fatalf("stop %q with no line although a list exists", d.Reason)
		}
		return
	}
	s.sinceProgress++
	s.sincePrompt++
	switch {
	case s.sinceProgress > MaxNoProgress:
		t.Fatalf("%d continuations in a row without progress", s.sinceProgress)
	case s.sincePrompt > MaxPerPrompt:
		t.Fatalf("%d continuations for one prompt", s.sincePrompt)
	case d.Attempt != s.sinceProgress:
		t.Fatalf("Attempt %d, want %d", d.Attempt, s.sinceProgress)
	case d.Wording < WordingFirst || d.Wording > WordingFinal:
		t.Fatalf("Wording %d", d.Wording)
	case s.paused || tr.Aborted || tr.Err != nil:
		t.Fatalf("continued after a pause, an abort or an error: %+v", tr)
	case openCount(tr.After) == 0:
		t.Fatal("continued with no open items")
	case EndsWithQuestion(tr.FinalText):
		t.Fatal("continued after a question")
	case !strings.HasPrefix(d.Line, "continuing "):
		t.Fatalf("line %q", d.Line)
	}
	head, inner, _ := splitPrompt(t, d.Prompt)
	if strings.Contains(head, "#") {
		t.Fatalf("todo text outside the block:\n%s", d.Prompt)
	}
	checkBlock(t, inner, tr.After)
}

// FuzzPolicy checks the invariants for any sequence of events and any todo
// or reply text.
func FuzzPolicy(f *testing.F) {
	// Seeds: testdata/fuzz/FuzzPolicy (lazy model, busy model at the cap,
	// pause, question, abort/error/load, every mutation with hostile text).
	f.Fuzz(func(t *testing.T, ops []byte, text string) {
		if len(ops) > 500 {
			ops = ops[:500]
		}
		(&sim{t: t, p: New(), text: text}).play(ops)
	})
}

// TestRandomWalk runs the same checks over many generated sequences from
// fixed seeds, so plain go test covers more than the fuzz corpus. Walks come
// in three kinds: any event at all; a lazy model that mostly changes nothing;
// and a busy model that adds and finishes items with no prompt from the
// person, which reaches the per-prompt cap.
func TestRandomWalk(t *testing.T) {
	walks := 1000
	if testing.Short() {
		walks = 200
	}
	texts := append([]string{"item", "write tests"}, hostile...)
	op := func(kind, extra int) byte { return byte(extra<<5 | kind) }
	for seed := range uint64(walks) {
		rng := rand.New(rand.NewPCG(seed, 0x7d05))
		ops := make([]byte, 1+rng.IntN(100))
		for i := range ops {
			switch seed % 3 {
			case 0:
				ops[i] = byte(rng.IntN(256))
			case 1: // lazy: no change, a start, a reword, now and then a prompt
				ops[i] = op([]int{2, 2, 2, 3, 9, 0}[rng.IntN(6)], rng.IntN(5))
			case 2: // busy: add, complete, tick, reorder; plain replies only
				ops[i] = op([]int{6, 4, 4, 8, 14}[rng.IntN(5)], rng.IntN(2))
			}
		}
		s := &sim{t: t, p: New(), text: texts[rng.IntN(len(texts))]}
		s.play(ops)
		if t.Failed() {
			t.Fatalf("seed %d: ops %v", seed, ops)
		}
	}
}

// FuzzEndsWithQuestion checks that the heuristic never panics and only
// looks at the end of the reply: white space after it and a finished line
// before it change nothing.
func FuzzEndsWithQuestion(f *testing.F) {
	// Seeds: testdata/fuzz/FuzzEndsWithQuestion.
	f.Fuzz(func(t *testing.T, text string) {
		got := EndsWithQuestion(text)
		if EndsWithQuestion(text+" \n\t\n") != got {
			t.Fatalf("trailing white space changed the answer for %q", text)
		}
		if EndsWithQuestion("Done.\n"+text) != got {
			t.Fatalf("a line before changed the answer for %q", text)
		}
	})
}

// FuzzBlock checks that no todo text can end the list block or start a line
// of its own, whatever field it is in.
func FuzzBlock(f *testing.F) {
	for _, h := range hostile {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, text string) {
		l := []todolist.Todo{{Content: text, Status: I, Evidence: text,
			Subtasks: []todolist.Subtask{{Content: text, Status: P, Evidence: text}}}}
		_, inner, tail := splitPrompt(t, Block(l))
		if tail != "" {
			t.Fatalf("text after the block: %q", tail)
		}
		checkBlock(t, inner, l)
	})
}
