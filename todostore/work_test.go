package todostore

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"
)

// workList writes a list of three items, the second in progress, and
// returns their uids.
func workList(t testing.TB, s *Store, id string) []string {
	t.Helper()
	sess, _, err := s.Commit(id, todolist.ByAgent, func(sess *Session) error {
		sess.Todos = []todolist.Todo{{Content: "parser", Status: todolist.Completed}, {Content: "tests", Status: todolist.InProgress}, {Content: "docs", Status: todolist.Pending}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return []string{sess.Todos[0].UID, sess.Todos[1].UID, sess.Todos[2].UID}
}

func TestRecordWorkAttributes(t *testing.T) {
	s := testStore(t)
	uids := workList(t, s, "w")
	zero := 0
	for _, l := range []WorkLine{
		{Tool: "Bash", Kind: WorkExecute, Target: "go test ./...", OK: true, Exit: &zero},
		{Tool: "Read", Kind: "read", Target: "a.go", OK: true},
		{In: 100, Out: 20},
	} {
		got, err := s.RecordWork("w", l)
		if err != nil {
			t.Fatal(err)
		}
		if got.Item != uids[1] || got.Next != "" {
			t.Fatalf("attributed to %q/%q, want the item in progress %q", got.Item, got.Next, uids[1])
		}
	}
	// Nothing in progress: unattributed, with the next open item.
	if _, _, err := s.Commit("w", todolist.ByAgent, func(sess *Session) error {
		sess.Todos[1].Status = todolist.Completed
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got, err := s.RecordWork("w", WorkLine{Tool: "Edit", Kind: WorkEdit, Target: "docs.md", OK: true})
	if err != nil || got.Item != "" || got.Next != uids[2] {
		t.Fatalf("got %+v, %v; want unattributed, next %q", got, err, uids[2])
	}
	log, err := s.Work("w")
	if err != nil || len(log.Lines) != 4 || log.Bad != 0 {
		t.Fatalf("log %+v, %v", log, err)
	}
	sum := log.Summarize()
	if !sum.Shows || !sum.Receipt(uids[1]) || sum.Receipt(uids[0]) || !sum.Receipt(uids[2]) {
		t.Fatalf("receipts: %+v", sum)
	}
	w := sum.Items[uids[1]]
	if w.Calls != 2 || w.Commands != 1 || w.Edits != 0 || w.In != 100 || w.Out != 20 || w.Last != "go test ./..." {
		t.Fatalf("item work %+v", w)
	}
	if sum.Unattributed.Calls != 1 || sum.Unattributed.Edits != 1 {
		t.Fatalf("unattributed %+v", sum.Unattributed)
	}
	if !log.Succeeded("go  test ./...") || log.Succeeded("go vet") {
		t.Fatal("Succeeded does not find the command todosh saw")
	}
}

// The receipt rule: only an edit or a command that succeeded, only
// against the item in progress (or, with none in progress, the next).
func TestReceiptRule(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	one := 1
	for _, tc := range []struct {
		name string
		line WorkLine
		want bool
	}{
		{"command succeeded", WorkLine{Item: "t1", Tool: "Bash", Kind: WorkExecute, OK: true}, true},
		{"edit succeeded", WorkLine{Item: "t1", Tool: "Edit", Kind: WorkEdit, OK: true}, true},
		{"command failed", WorkLine{Item: "t1", Tool: "Bash", Kind: WorkExecute, Exit: &one}, false},
		{"a read", WorkLine{Item: "t1", Tool: "Read", Kind: "read", OK: true}, false},
		{"another tool", WorkLine{Item: "t1", Tool: "TodoWrite", Kind: "other", OK: true}, false},
		{"tokens only", WorkLine{Item: "t1", In: 5}, false},
		{"another item's", WorkLine{Item: "t2", Tool: "Bash", Kind: WorkExecute, OK: true}, false},
		{"none in progress, next", WorkLine{Next: "t1", Tool: "Bash", Kind: WorkExecute, OK: true}, true},
		{"another in progress, next ignored", WorkLine{Item: "t2", Next: "t1", Tool: "Bash", Kind: WorkExecute, OK: true}, false},
	} {
		tc.line.At = at
		if got := (WorkLog{Lines: []WorkLine{tc.line}}).Summarize().Receipt("t1"); got != tc.want {
			t.Errorf("%s: receipt %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Bad input is skipped and counted, never a receipt: not JSON, absurd
// usage, a clock that went back; a torn last line is a crash's and is
// ignored.
func TestParseWorkBadInput(t *testing.T) {
	data := `{"at":"2026-01-01T00:00:02Z","item":"t1","tool":"Bash","kind":"execute","ok":true}
garbage
{"at":"2026-01-01T00:00:03Z","item":"t1","in":-5}
{"at":"2026-01-01T00:00:03Z","item":"t1","in":2000000000000}
{"at":"2026-01-01T00:00:01Z","item":"t2","tool":"Bash","kind":"execute","ok":true}
{"at":"2026-01-01T00:00:04Z","item":"t1","out":7}
{"at":"2026-01-01T00:00:05Z","item":"t3","tool":"Edit","kind":"edit","ok":tr`
	log := ParseWork([]byte(data))
	if len(log.Lines) != 2 || log.Bad != 4 {
		t.Fatalf("lines %d bad %d, want 2 and 4", len(log.Lines), log.Bad)
	}
	sum := log.Summarize()
	if sum.Receipt("t2") || sum.Receipt("t3") || !sum.Receipt("t1") || sum.Items["t1"].Out != 7 {
		t.Fatalf("summary %+v", sum)
	}
}

func TestRecordWorkRefusesBadUsage(t *testing.T) {
	s := testStore(t)
	for _, l := range []WorkLine{{In: -1}, {Out: MaxTokens + 1}} {
		if _, err := s.RecordWork("w", l); !errors.Is(err, ErrBadUsage) {
			t.Fatalf("%+v: err %v, want ErrBadUsage", l, err)
		}
	}
	if _, err := os.Stat(s.WorkPath("w")); !os.IsNotExist(err) {
		t.Fatalf("a refused line wrote the log: %v", err)
	}
}

// Receipts never push list changes out of the history: 1,000 list
// changes and 10,000 tool calls, and every change is still there.
func TestWorkBesideHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("11,000 durable writes")
	}
	s := memStore(t) // what it checks is what is kept, not the fsyncs
	workList(t, s, "w")
	for i := range 10_000 {
		if i%10 == 0 {
			if _, _, err := s.Commit("w", todolist.ByAgent, func(sess *Session) error {
				sess.Todos[2].Content = "docs " + strings.Repeat("x", i%7) + string(rune('a'+i%26))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.RecordWork("w", WorkLine{Tool: "Bash", Kind: WorkExecute, Target: "go test ./... -run TestSomething", OK: true}); err != nil {
			t.Fatal(err)
		}
	}
	hist, err := s.History("w")
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) < 1000 {
		t.Fatalf("%d history lines kept, want at least 1,000", len(hist))
	}
	log, err := s.Work("w")
	if err != nil || len(log.Lines) != 10_000 || log.Bad != 0 {
		t.Fatalf("work log: %d lines, %d bad, %v", len(log.Lines), log.Bad, err)
	}
}

// A log past its cap is cut to its newest half, and the log the cut
// replaced is not held open by the cache (its megabytes are freed).
func TestWorkCap(t *testing.T) {
	s := memStore(t)
	long := strings.Repeat("y", maxWorkText)
	n := 0
	for size := int64(0); ; n++ {
		if n > 2*MaxWorkBytes/maxWorkText {
			t.Fatalf("%d lines recorded, the log (%d bytes) never cut", n, size)
		}
		if _, err := s.RecordWork("w", WorkLine{Tool: "Bash", Kind: WorkExecute, Target: long, OK: true}); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(s.WorkPath("w"))
		if err != nil || info.Size() > MaxWorkBytes {
			t.Fatalf("work log not capped: %v %v", info.Size(), err)
		}
		if info.Size() < size {
			break // cut
		}
		size = info.Size()
		s.Receipts("w", false) // the log cached, its file held open
	}
	if runtime.GOOS == "linux" {
		for _, f := range openFilesOf(t, s, "w") {
			if strings.HasSuffix(f, " (deleted)") {
				t.Errorf("the log the cap replaced is still open: %s", f)
			}
		}
	}
	log, err := s.Work("w")
	if err != nil || log.Bad != 0 || len(log.Lines) < n/4 {
		t.Fatalf("after the cap: %d lines, %d bad, %v", len(log.Lines), log.Bad, err)
	}
}

func TestWorkSymlinkRefused(t *testing.T) {
	s := testStore(t)
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", s.WorkPath("w")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordWork("w", WorkLine{Tool: "Bash", OK: true}); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("err %v, want the symlink refused", err)
	}
	if _, err := s.Work("w"); err == nil {
		t.Fatal("a symlinked work log was read")
	}
}

// BenchmarkRecordWork is one tool call recorded, as a turn records each:
// it reports the durable writes (fsyncs) and writes per call, which must
// stay at one (issue 26: a turn of 100 tool events adds at most one
// durable write per event).
func BenchmarkRecordWork(b *testing.B) {
	s := testStore(b)
	workList(b, s, "w")
	w0, f0 := WriteStats()
	n := 0
	for b.Loop() {
		if _, err := s.RecordWork("w", WorkLine{Tool: "Bash", Kind: WorkExecute, Target: "go test ./...", OK: true}); err != nil {
			b.Fatal(err)
		}
		n++
	}
	w1, f1 := WriteStats()
	b.ReportMetric(float64(f1-f0)/float64(n), "fsyncs/call")
	b.ReportMetric(float64(w1-w0)/float64(n), "atomic-writes/call")
}

// A turn of 100 tool events costs 100 fsyncs and no session write.
func TestRecordWorkOneDurableWrite(t *testing.T) {
	s := memStore(t)
	workList(t, s, "w")
	s.RecordWork("w", WorkLine{Tool: "Bash", OK: true}) // creates the file
	w0, f0 := WriteStats()
	for range 100 {
		if _, err := s.RecordWork("w", WorkLine{Tool: "Bash", Kind: WorkExecute, OK: true}); err != nil {
			t.Fatal(err)
		}
	}
	if w1, f1 := WriteStats(); f1-f0 > 100 || w1 != w0 {
		t.Fatalf("100 calls: %d fsyncs, %d atomic writes; want at most 100 and none", f1-f0, w1-w0)
	}
}

func FuzzParseWork(f *testing.F) {
	f.Add([]byte(`{"at":"2026-01-01T00:00:02Z","item":"t1","tool":"Bash","kind":"execute","ok":true}` + "\n"))
	f.Add([]byte("garbage\n{\"at\":\"2026-01-01T00:00:03Z\",\"in\":5}\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		log := ParseWork(data)
		sum := log.Summarize()
		var total todolist.ItemWork
		for _, w := range sum.Items {
			total.In += w.In
			total.Calls += w.Calls
		}
		var in int64
		for _, l := range log.Lines {
			if l.In < 0 || l.Out < 0 || l.In > MaxTokens || l.Out > MaxTokens {
				t.Fatalf("line out of range kept: %+v", l)
			}
			in += l.In
		}
		if total.In+sum.Unattributed.In != in {
			t.Fatalf("items %d + unattributed %d != total %d", total.In, sum.Unattributed.In, in)
		}
	})
}
