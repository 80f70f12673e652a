package todostore

import (
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"
)

// The ledger's rules (issue 26): time in progress from the history,
// tokens and calls from the work log by the item in progress then, and
// items plus unattributed equal to the total exactly.
func TestBuildLedger(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	item := func(uid, text string, st todolist.Status) todolist.Todo {
		return todolist.Todo{UID: uid, Content: text, Status: st}
	}
	hist := []HistoryLine{
		{N: 1, At: at(0), Todos: []todolist.Todo{item("t1", "parser", todolist.InProgress), item("t2", "tests", todolist.Pending), item("t3", "gone", todolist.Pending)}},
		{N: 2, At: at(60), Todos: []todolist.Todo{item("t1", "parser", todolist.Completed), item("t2", "tests", todolist.InProgress), item("t3", "gone", todolist.Pending)}},
		{N: 3, At: at(30), Todos: []todolist.Todo{item("t1", "parser", todolist.InProgress)}}, // the clock went back: ignored
		{N: 4, At: at(90), Todos: []todolist.Todo{item("t1", "parser", todolist.Completed), item("t2", "tests", todolist.InProgress), item("t3", "gone", todolist.InProgress)}},
		{N: 5, At: at(100), Todos: []todolist.Todo{item("t1", "parser", todolist.Completed), item("t2", "tests", todolist.InProgress)}},
	}
	work := WorkLog{Lines: []WorkLine{
		{At: at(1), Item: "t1", Tool: "Bash", Kind: WorkExecute, OK: true},
		{At: at(2), Item: "t1", In: 1000, Out: 200},
		{At: at(61), Item: "t2", In: 50, Out: 5},
		{At: at(62), In: 7, Out: 1}, // nothing in progress
		{At: at(63), Next: "t2", Tool: "Edit", Kind: WorkEdit, OK: true},
		{At: at(95), Item: "t3", In: 11, Out: 3, Tool: ""},
	}, Bad: 2}
	now := at(160)
	todos := []todolist.Todo{item("t1", "parser", todolist.Completed), item("t2", "tests", todolist.InProgress)}
	l := BuildLedger(todos, hist, work, now)
	if len(l.Items) != 3 {
		t.Fatalf("rows %+v", l.Items)
	}
	p, ts, gone := l.Items[0], l.Items[1], l.Items[2]
	if p.Pos != 1 || p.InProgress != 60*time.Second || p.In != 1000 || p.Out != 200 || p.Calls != 1 {
		t.Errorf("parser %+v", p)
	}
	if ts.Pos != 2 || ts.InProgress != 100*time.Second || ts.In != 50 || ts.Calls != 0 {
		t.Errorf("tests %+v", ts)
	}
	if gone.Pos != 0 || gone.Content != "gone" || gone.InProgress != 10*time.Second || gone.In != 11 {
		t.Errorf("removed item %+v", gone)
	}
	if u := l.Unattributed; u.In != 7 || u.Out != 1 || u.Calls != 1 {
		t.Errorf("unattributed %+v", u)
	}
	if l.Total.In != 1000+50+7+11 || l.Total.Out != 200+5+1+3 || l.Total.Calls != 2 {
		t.Errorf("total %+v", l.Total)
	}
	if len(l.Notices) != 2 {
		t.Errorf("notices %q, want the bad lines and the clock", l.Notices)
	}
}

// FuzzLedgerAddsUp: whatever the work log holds, the rows add up to the
// total exactly, and the total is what the log's lines add up to (a
// turn-end report split over items loses and gains no token).
func FuzzLedgerAddsUp(f *testing.F) {
	f.Add([]byte(`{"at":"2026-01-01T00:00:02Z","item":"t1","in":5,"out":2}` + "\n" + `{"at":"2026-01-01T00:00:03Z","in":1,"tool":"x"}` + "\n"))
	f.Add([]byte(`{"at":"2026-01-01T00:00:02Z","next":"t2","tool":"x"}` + "\n" + `{"at":"2026-01-01T00:00:02Z","item":"t1","tool":"y"}` + "\n" +
		`{"at":"2026-01-01T00:00:03Z","in":1001,"out":7,"since":"2026-01-01T00:00:01Z","began":"t3"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		w := ParseWork(data)
		l := BuildLedger([]todolist.Todo{{UID: "t1", Content: "a", Status: todolist.InProgress}}, nil, w, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
		var in, out int64
		calls := l.Unattributed.Calls
		in, out = l.Unattributed.In, l.Unattributed.Out
		for _, c := range l.Items {
			in, out, calls = in+c.In, out+c.Out, calls+c.Calls
		}
		if in != l.Total.In || out != l.Total.Out || calls != l.Total.Calls {
			t.Fatalf("rows add up to %d/%d/%d, total %+v", in, out, calls, l.Total)
		}
		var logIn, logOut int64
		for _, line := range w.Lines {
			logIn, logOut = logIn+line.In, logOut+line.Out
		}
		if logIn != l.Total.In || logOut != l.Total.Out {
			t.Fatalf("log adds up to %d/%d, total %+v", logIn, logOut, l.Total)
		}
	})
}
