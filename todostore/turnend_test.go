package todostore

import (
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"
)

// TestChargeTurns: a usage report given only at a turn's end is charged to
// the items in progress during the turn, never to the one it ended on
// (issue 26: Codex's tokens all unattributed, Gemini's and acp:claude's
// one item late).
func TestChargeTurns(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	call := func(s int, item, next string) WorkLine {
		return WorkLine{At: at(s), Item: item, Next: next, Tool: "Bash", Kind: WorkExecute, OK: true}
	}
	type charge struct {
		item    string
		in, out int64
	}
	cases := []struct {
		name  string
		lines []WorkLine
		want  []charge
	}{
		{"per-request report stays where it was written",
			[]WorkLine{call(1, "a", ""), {At: at(2), Item: "a", In: 100, Out: 20}},
			[]charge{{"a", 100, 20}}},
		{"gemini turn 1: worked on a, ended with b in progress",
			[]WorkLine{call(1, "a", ""), call(2, "a", ""), {At: at(3), Item: "b", In: 300, Out: 30, Since: at(0)}},
			[]charge{{"a", 300, 30}}},
		{"last turn: ended with nothing in progress",
			[]WorkLine{call(11, "c", ""), {At: at(12), In: 100, Out: 10, Since: at(10), Began: "c"}},
			[]charge{{"c", 100, 10}}},
		{"codex: nothing in progress on the stream, calls name the next item",
			[]WorkLine{call(1, "", "a"), call(2, "", "b"), call(3, "", "b"), {At: at(4), Next: "c", In: 300, Out: 31, Since: at(0)}},
			[]charge{{"a", 100, 11}, {"b", 200, 20}}},
		{"began on one item, called for another",
			[]WorkLine{call(6, "b", ""), {At: at(7), In: 101, Out: 0, Since: at(5), Began: "a"}},
			[]charge{{"a", 51, 0}, {"b", 50, 0}}},
		{"the calls of an earlier turn are not this turn's",
			[]WorkLine{call(1, "a", ""), {At: at(2), In: 10, Since: at(0)}, call(6, "b", ""), {At: at(7), In: 40, Since: at(5)}},
			[]charge{{"a", 10, 0}, {"b", 40, 0}}},
		{"no calls, nothing at the start: the item in progress at the end",
			[]WorkLine{{At: at(2), Item: "a", In: 7, Out: 1, Since: at(0)}},
			[]charge{{"a", 7, 1}}},
		{"no item at all: unattributed",
			[]WorkLine{{At: at(2), In: 7, Out: 1, Since: at(0)}},
			[]charge{{"", 7, 1}}},
		{"a share of nothing is no line",
			[]WorkLine{call(1, "a", ""), call(1, "b", ""), {At: at(2), In: 1, Since: at(0)}},
			[]charge{{"a", 1, 0}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []charge
			for _, l := range ChargeTurns(c.lines) {
				if l.In != 0 || l.Out != 0 {
					if !l.Since.IsZero() {
						t.Errorf("charged line keeps since: %+v", l)
					}
					got = append(got, charge{l.Item, l.In, l.Out})
				}
			}
			if len(got) != len(c.want) {
				t.Fatalf("charged %+v, want %+v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("charged %+v, want %+v", got, c.want)
				}
			}
		})
	}
}

// TestSplitTokensAddsUp: the shares always add up to what is split.
func TestSplitTokensAddsUp(t *testing.T) {
	for _, c := range []struct {
		n int64
		w []int64
	}{{0, []int64{1}}, {1, []int64{1, 1, 1}}, {MaxTokens, []int64{3, 7, 1}}, {10, []int64{1, 2}}, {999_999_999_999, []int64{200_000, 1}}} {
		var sum int64
		for _, s := range splitTokens(c.n, c.w) {
			if s < 0 {
				t.Fatalf("split %d by %v: a negative share", c.n, c.w)
			}
			sum += s
		}
		if sum != c.n {
			t.Errorf("split %d by %v: shares add up to %d", c.n, c.w, sum)
		}
	}
}

// TestAttributeAt: usage read after it was spent (a transcript's message)
// goes to the item in progress when it was written, by the history.
func TestAttributeAt(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	hist := []HistoryLine{
		{At: t0.Add(time.Second), Todos: []todolist.Todo{{UID: "a", Status: todolist.InProgress}, {UID: "b", Status: todolist.Pending}}},
		{At: t0.Add(3 * time.Second), Todos: []todolist.Todo{{UID: "a", Status: todolist.Completed}, {UID: "b", Status: todolist.Pending}}},
	}
	for _, c := range []struct {
		at         int
		item, next string
	}{{0, "", ""}, {1, "a", ""}, {2, "a", ""}, {3, "", "b"}, {9, "", "b"}} {
		l := WorkLine{Item: "x", Next: "y"}
		AttributeAt(&l, hist, t0.Add(time.Duration(c.at)*time.Second))
		if l.Item != c.item || l.Next != c.next {
			t.Errorf("at %ds: item %q next %q, want %q %q", c.at, l.Item, l.Next, c.item, c.next)
		}
	}
}
