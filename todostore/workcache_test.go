package todostore

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/todosh/todosh/internal/testenv"
	"github.com/todosh/todosh/todolist"
)

// The one rule of the Sees line: a caller that sees the agent's work
// records it when, and only when, the log does not show work yet.
func TestReceiptsSees(t *testing.T) {
	one := 1
	for _, tc := range []struct {
		name   string
		log    []WorkLine
		sees   bool
		record bool // the call writes the Sees line
		shows  bool // what the call's Sum.Shows says
	}{
		{"no log, not seeing", nil, false, false, false},
		{"no log, seeing", nil, true, true, true},
		{"a read, not seeing", []WorkLine{{Tool: "Read", Kind: "read", OK: true}}, false, false, false},
		{"a read, seeing", []WorkLine{{Tool: "Read", Kind: "read", OK: true}}, true, true, true},
		{"usage only, seeing", []WorkLine{{In: 10, Out: 2}}, true, true, true},
		{"an edit, not seeing", []WorkLine{{Tool: "Edit", Kind: WorkEdit, OK: true}}, false, false, true},
		{"an edit, seeing", []WorkLine{{Tool: "Edit", Kind: WorkEdit, OK: true}}, true, false, true},
		{"a failed command, seeing", []WorkLine{{Tool: "Bash", Kind: WorkExecute, Exit: &one}}, true, false, true},
		{"a sees line, seeing", []WorkLine{{Sees: true}}, true, false, true},
		{"a read by a seeing writer, seeing", []WorkLine{{Tool: "Read", Kind: "read", OK: true, Sees: true}}, true, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testStore(t)
			workList(t, s, "w")
			for _, l := range tc.log {
				if _, err := s.RecordWork("w", l); err != nil {
					t.Fatal(err)
				}
			}
			r, err := s.Receipts("w", tc.sees)
			if err != nil {
				t.Fatal(err)
			}
			if r.Recorded != tc.record || r.Sum.Shows != tc.shows {
				t.Fatalf("recorded %v, shows %v; want %v, %v", r.Recorded, r.Sum.Shows, tc.record, tc.shows)
			}
			log := readWorkUncached(t, s, "w")
			want := len(tc.log)
			if tc.record {
				want++
				if l := log.Lines[len(log.Lines)-1]; !l.Sees || l.Tool != "" || l.In != 0 {
					t.Fatalf("the line recorded is %+v, want one that is only Sees", l)
				}
			}
			if len(log.Lines) != want {
				t.Fatalf("%d lines in the log, want %d", len(log.Lines), want)
			}
			// Once is enough: the next call, of this Store or another, finds
			// the line.
			for _, other := range []*Store{s, Open(s.Root)} {
				r, err := other.Receipts("w", tc.sees)
				if err != nil || r.Recorded || r.Sum.Shows != tc.shows {
					t.Fatalf("again: recorded %v, shows %v, %v", r.Recorded, r.Sum.Shows, err)
				}
			}
		})
	}
}

// readWorkUncached is what every read did before the cache: the whole
// file read and parsed.
func readWorkUncached(t testing.TB, s *Store, id string) WorkLog {
	t.Helper()
	data, err := os.ReadFile(s.WorkPath(id))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return ParseWork(data)
}

// checkReceipts fails unless s's cached read says what a whole read of
// the file says.
func checkReceipts(t *testing.T, s *Store, id, when string) Receipts {
	t.Helper()
	r, err := s.Receipts(id, false)
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	want := readWorkUncached(t, s, id)
	if len(r.Log.Lines) != len(want.Lines) || len(want.Lines) > 0 && !reflect.DeepEqual(r.Log.Lines, want.Lines) || r.Log.Bad != want.Bad {
		t.Fatalf("%s: cached log %d lines (%d bad), the file %d lines (%d bad)", when, len(r.Log.Lines), r.Log.Bad, len(want.Lines), want.Bad)
	}
	if sum := want.Summarize(); !reflect.DeepEqual(r.Sum, sum) {
		t.Fatalf("%s: cached summary\n%+v\nthe file's\n%+v", when, r.Sum, sum)
	}
	return r
}

// appendRaw appends text to id's work log as another writer (or a crash)
// would, without the store.
func appendRaw(t *testing.T, s *Store, id, text string) {
	t.Helper()
	f, err := os.OpenFile(s.WorkPath(id), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// Whatever is appended and however, the cached read says what a whole
// read of the file says: tool calls, usage, turn-end reports split over
// the turn's items, bad lines, a torn line ended later, the list moving
// on.
func TestReceiptsCachedAsRead(t *testing.T) {
	s := testStore(t)
	uids := workList(t, s, "w")
	clock := time.Date(2026, 11, 21, 22, 33, 44, 0, time.UTC)
	s.Now = func() time.Time { clock = clock.Add(time.Second); return clock }
	checkReceipts(t, s, "w", "before any line")
	rng := rand.New(rand.NewPCG(1, 2))
	var turn time.Time
	for i := range 400 {
		switch k := rng.IntN(10); k {
		case 0, 1, 2:
			kinds := []string{WorkEdit, WorkExecute, "read", "other"}
			l := WorkLine{Tool: "T", Kind: kinds[rng.IntN(4)], Target: fmt.Sprint("t", i), OK: rng.IntN(4) > 0}
			if _, err := s.RecordWork("w", l); err != nil {
				t.Fatal(err)
			}
		case 3:
			if _, err := s.RecordWork("w", WorkLine{In: int64(rng.IntN(1000)), Out: 1}); err != nil {
				t.Fatal(err)
			}
		case 4: // a turn ends with its usage
			if !turn.IsZero() {
				if _, err := s.RecordWork("w", WorkLine{In: int64(rng.IntN(1000) + 1), Out: 7, Since: turn, Began: uids[rng.IntN(3)]}); err != nil {
					t.Fatal(err)
				}
			}
			turn = s.Now()
		case 5: // the list moves on
			if _, _, err := s.Commit("w", todolist.ByAgent, func(sess *Session) error {
				for j := range sess.Todos {
					sess.Todos[j].Status = todolist.Pending
				}
				sess.Todos[rng.IntN(3)].Status = todolist.InProgress
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			continue // the log did not change
		case 6:
			appendRaw(t, s, "w", "not json\n")
		case 7: // a line in two appends, read between them
			data, _ := json.Marshal(WorkLine{At: s.Now(), Item: uids[0], Tool: "Edit", Kind: WorkEdit, OK: true, Target: "x"})
			cut := rng.IntN(len(data))
			appendRaw(t, s, "w", string(data[:cut]))
			checkReceipts(t, s, "w", fmt.Sprintf("step %d, torn", i))
			appendRaw(t, s, "w", string(data[cut:])+"\n")
		case 8:
			if _, err := s.Receipts("w", true); err != nil {
				t.Fatal(err)
			}
		case 9: // a clock gone back: counted bad
			data, _ := json.Marshal(WorkLine{At: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), Tool: "Bash", Kind: WorkExecute, OK: true})
			appendRaw(t, s, "w", string(data)+"\n")
		}
		checkReceipts(t, s, "w", fmt.Sprint("step ", i))
	}
}

// A repeated read parses nothing; a read after an append parses the line
// appended, not the log.
func TestReceiptsReadOnlyWhatWasAppended(t *testing.T) {
	s := testStore(t)
	workList(t, s, "w")
	for range 50 {
		if _, err := s.RecordWork("w", WorkLine{Tool: "Bash", Kind: WorkExecute, Target: "go test ./...", OK: true}); err != nil {
			t.Fatal(err)
		}
	}
	checkReceipts(t, s, "w", "first read")
	size := func() int64 {
		info, err := os.Stat(s.WorkPath("w"))
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	parsed := func() int64 {
		s.work.mu.Lock()
		defer s.work.mu.Unlock()
		return s.work.parsed
	}
	if got := parsed(); got != size() {
		t.Fatalf("the first read parsed %d bytes of %d", got, size())
	}
	for range 3 {
		checkReceipts(t, s, "w", "again")
	}
	if got := parsed(); got != size() {
		t.Fatalf("3 reads of an unchanged log parsed %d bytes more", got-size())
	}
	was := size()
	if _, err := s.RecordWork("w", WorkLine{Tool: "Edit", Kind: WorkEdit, Target: "a.go", OK: true}); err != nil {
		t.Fatal(err)
	}
	before := parsed()
	if _, err := s.Receipts("w", false); err != nil {
		t.Fatal(err)
	}
	if got := parsed() - before; got != size()-was {
		t.Fatalf("a read after one line was appended parsed %d bytes, want the line's %d", got, size()-was)
	}
}

// A write by another Store is seen by the next read: an append, the cap's
// rewrite (another file), a rewrite in place, the file removed.
func TestReceiptsSeeAnotherStore(t *testing.T) {
	a := testStore(t)
	uids := workList(t, a, "w")
	b := Open(a.Root)
	b.Now = a.Now
	if r := checkReceipts(t, a, "w", "empty"); r.Sum.Shows {
		t.Fatal("an empty log shows work")
	}
	if _, err := b.RecordWork("w", WorkLine{Tool: "Bash", Kind: WorkExecute, Target: "make", OK: true}); err != nil {
		t.Fatal(err)
	}
	if r := checkReceipts(t, a, "w", "after b's append"); !r.Sum.Receipt(uids[1]) {
		t.Fatal("b's command is not a's receipt")
	}
	// The cap's rewrite: another file, shorter.
	line, _ := json.Marshal(WorkLine{At: a.Now(), Item: uids[2], Tool: "Edit", Kind: WorkEdit, Target: "docs.md", OK: true})
	if err := writeLocked(a.WorkPath("w"), append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	if r := checkReceipts(t, a, "w", "after a rewrite"); r.Sum.Receipt(uids[1]) || !r.Sum.Receipt(uids[2]) {
		t.Fatalf("after a rewrite: %+v", r.Sum.Items)
	}
	// A rewrite in place, longer: the same inode, grown, but not by an
	// append.
	other, _ := json.Marshal(WorkLine{At: a.Now(), Item: uids[0], Tool: "Edit", Kind: WorkEdit, Target: "parser.go", OK: true})
	if err := os.WriteFile(a.WorkPath("w"), []byte(string(other)+"\n"+string(other)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := checkReceipts(t, a, "w", "after a rewrite in place"); r.Sum.Receipt(uids[2]) || !r.Sum.Receipt(uids[0]) {
		t.Fatalf("after a rewrite in place: %+v", r.Sum.Items)
	}
	if err := os.Remove(a.WorkPath("w")); err != nil {
		t.Fatal(err)
	}
	if r := checkReceipts(t, a, "w", "after a removal"); r.Sum.Shows || len(r.Log.Lines) != 0 {
		t.Fatalf("a removed log still shows: %+v", r)
	}
}

// A write by another process is seen by the next read.
func TestReceiptsSeeAnotherProcess(t *testing.T) {
	s := testStore(t)
	uids := workList(t, s, "w")
	if _, err := s.RecordWork("w", WorkLine{Tool: "Read", Kind: "read", OK: true}); err != nil {
		t.Fatal(err)
	}
	if r := checkReceipts(t, s, "w", "before"); r.Sum.Receipt(uids[1]) {
		t.Fatal("a read is a receipt")
	}
	if err := helper("workrecorder", s.Root, "w", "20").Run(); err != nil {
		t.Fatalf("helper: %v", err)
	}
	r := checkReceipts(t, s, "w", "after the other process")
	if !r.Sum.Receipt(uids[1]) || r.Sum.Items[uids[1]].Commands != 20 {
		t.Fatalf("the other process's 20 commands: %+v", r.Sum.Items[uids[1]])
	}
}

// runWorkRecorder records args[2] commands in session args[1]'s work log
// of the store at args[0].
func runWorkRecorder(args []string) error {
	s := Open(args[0])
	n, err := strconv.Atoi(args[2])
	if err != nil {
		return err
	}
	for i := range n {
		if _, err := s.RecordWork(args[1], WorkLine{Tool: "Bash", Kind: WorkExecute, Target: fmt.Sprint("step ", i), OK: true}); err != nil {
			return err
		}
	}
	return nil
}

// Every read checks the file, cached or not: a symlink put in its place
// or a mode opened to others is refused.
func TestReceiptsCheckEveryRead(t *testing.T) {
	s := testStore(t)
	workList(t, s, "w")
	if _, err := s.RecordWork("w", WorkLine{Tool: "Bash", Kind: WorkExecute, OK: true}); err != nil {
		t.Fatal(err)
	}
	checkReceipts(t, s, "w", "cached")
	if posixModes {
		if err := os.Chmod(s.WorkPath("w"), 0o666); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Receipts("w", false); err == nil || !strings.Contains(err.Error(), "writable by other users") {
			t.Fatalf("a log writable by others: err %v", err)
		}
		if err := os.Chmod(s.WorkPath("w"), 0o600); err != nil {
			t.Fatal(err)
		}
		checkReceipts(t, s, "w", "mode restored")
	}
	target := s.WorkPath("w") + ".real"
	if err := os.Rename(s.WorkPath("w"), target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, s.WorkPath("w")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if _, err := s.Receipts("w", false); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("a symlinked log: err %v", err)
	}
}

// The cache keeps at most maxWorkCached logs, and what a caller was
// given never changes under it.
func TestReceiptsBounded(t *testing.T) {
	s := testStore(t)
	for i := range maxWorkCached + 3 {
		id := fmt.Sprint("s", i)
		if _, err := s.RecordWork(id, WorkLine{Tool: "Bash", Kind: WorkExecute, OK: true}); err != nil {
			t.Fatal(err)
		}
		checkReceipts(t, s, id, id)
	}
	cached := func() (n int, bytes int64) {
		s.work.mu.Lock()
		defer s.work.mu.Unlock()
		for _, e := range s.work.m {
			n++
			bytes += e.p.off
		}
		return n, bytes
	}
	if n, _ := cached(); n != maxWorkCached {
		t.Fatalf("%d logs cached, want %d", n, maxWorkCached)
	}
	// Two logs of 60% of the bytes kept: the older goes.
	big := strings.Repeat(`{"at":"2026-01-01T00:00:00Z","tool":"Bash","kind":"execute","target":"`+strings.Repeat("x", 400)+`","ok":true}`+"\n", maxWorkCachedBytes*6/10/450)
	for _, id := range []string{"big1", "big2"} {
		if err := os.WriteFile(s.WorkPath(id), []byte(big), 0o600); err != nil {
			t.Fatal(err)
		}
		if r, err := s.Receipts(id, false); err != nil || !r.Sum.Shows {
			t.Fatal(err)
		}
	}
	if n, b := cached(); b > maxWorkCachedBytes || n > 2 {
		t.Fatalf("%d logs of %d bytes cached, want at most %d bytes", n, b, maxWorkCachedBytes)
	}
	held := checkReceipts(t, s, "s0", "held")
	lines, items := len(held.Log.Lines), fmt.Sprint(held.Sum.Items)
	if _, err := s.RecordWork("s0", WorkLine{Item: "x", Tool: "Edit", Kind: WorkEdit, OK: true}); err != nil {
		t.Fatal(err)
	}
	_ = append(held.Log.Lines, WorkLine{Tool: "mine"}) // a caller's append copies
	checkReceipts(t, s, "s0", "after an append")
	if len(held.Log.Lines) != lines || fmt.Sprint(held.Sum.Items) != items {
		t.Fatal("a read changed what an earlier read returned")
	}
}

// Readers and writers of one Store at once (run with -race).
func TestReceiptsConcurrent(t *testing.T) {
	s := testStore(t)
	uids := workList(t, s, "w")
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 30 {
				if g == 0 {
					if _, err := s.RecordWork("w", WorkLine{Tool: "Bash", Kind: WorkExecute, Target: fmt.Sprint(i), OK: true}); err != nil {
						t.Error(err)
					}
					continue
				}
				r, err := s.Receipts("w", g == 1)
				if err != nil {
					t.Error(err)
					return
				}
				_ = r.Sum.Receipt(uids[1])
				for _, l := range r.Log.Lines {
					_ = l.Target
				}
			}
		})
	}
	wg.Wait()
	if r := checkReceipts(t, s, "w", "after"); r.Sum.Items[uids[1]].Commands != 30 {
		t.Fatalf("%d commands, want 30", r.Sum.Items[uids[1]].Commands)
	}
}

// FuzzWorkReadOn: a log read in two pieces, the second from where the
// first's whole lines ended, sums to what it sums to read whole.
func FuzzWorkReadOn(f *testing.F) {
	f.Add([]byte(`{"at":"2026-01-01T00:00:02Z","item":"t1","tool":"Bash","kind":"execute","ok":true}`+"\n"+
		`{"at":"2026-01-01T00:00:03Z","next":"t2","tool":"Edit","kind":"edit","ok":true}`+"\n"+
		`{"at":"2026-01-01T00:00:04Z","item":"t2","in":90,"out":9,"since":"2026-01-01T00:00:01Z","began":"t1"}`+"\n"), 120)
	f.Add([]byte("garbage\n{\"at\":\"2026-01-01T00:00:03Z\",\"in\":5}\n{"), 3)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		if cut < 0 || cut > len(data) {
			return
		}
		var p workParser
		p.feed(data[:cut])
		sum := p.log.Summarize()
		before := len(p.log.Lines)
		p.feed(data[p.off:])
		for _, l := range chargeFrom(p.log.Lines, before) {
			addWork(&sum, l)
		}
		sum.Bad = p.log.Bad
		whole := ParseWork(data)
		if len(whole.Lines) != len(p.log.Lines) || whole.Bad != p.log.Bad {
			t.Fatalf("in two pieces %d lines (%d bad), whole %d (%d bad)", len(p.log.Lines), p.log.Bad, len(whole.Lines), whole.Bad)
		}
		if want := whole.Summarize(); !reflect.DeepEqual(sum, want) {
			t.Fatalf("in two pieces\n%+v\nwhole\n%+v", sum, want)
		}
	})
}

// workLog10k writes a work log of 10,000 tool calls over 20 items, with a
// usage report every tenth line and a turn-end report every hundredth,
// as one write.
func workLog10k(b *testing.B, s *Store, id string) {
	at := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	var buf strings.Builder
	turn := at
	for i := range 10_000 {
		at = at.Add(time.Second)
		item := fmt.Sprintf("uid-%02d", i/500)
		l := WorkLine{At: at, Item: item, Tool: "Bash", Kind: WorkExecute, Target: "go test ./... -run TestSomething" + strconv.Itoa(i%7), OK: i%9 != 0}
		if i%3 == 0 {
			l.Tool, l.Kind, l.Target = "Edit", WorkEdit, fmt.Sprintf("pkg/file%d.go", i%40)
		}
		switch {
		case i%100 == 99:
			l = WorkLine{At: at, Item: item, In: 12_000, Out: 800, Since: turn, Began: item, Sees: true}
			turn = at
		case i%10 == 9:
			l = WorkLine{At: at, Item: item, In: 3_000, Out: 200, Sees: true}
		}
		data, err := json.Marshal(l)
		if err != nil {
			b.Fatal(err)
		}
		buf.Write(data)
		buf.WriteByte('\n')
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(s.WorkPath(id), []byte(buf.String()), 0o600); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkReceipts is reading a session's receipts with a work log of
// 10,000 tool calls (about 1.4 MiB), as every plan sync, list print and
// hook run does: "whole" reads and sums the whole file each time (what
// every read did before the cache), "cached" is a read of an unchanged
// log, and "append/whole" and "append/cached" are one tool call recorded
// and then the receipts read, as a turn does between two plan syncs, the
// append alone ("append/only", its fsync most of it) beside them.
func BenchmarkReceipts(b *testing.B) {
	s := testStore(b)
	workLog10k(b, s, "w")
	whole := func() {
		f, err := openWork(s.WorkPath("w"), os.O_RDONLY)
		if err != nil {
			b.Fatal(err)
		}
		data, err := io.ReadAll(io.LimitReader(f, 2*MaxWorkBytes))
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		if sum := ParseWork(data).Summarize(); !sum.Shows {
			b.Fatal("no work")
		}
	}
	cached := func() {
		if r, err := s.Receipts("w", false); err != nil || !r.Sum.Shows {
			b.Fatal(err)
		}
	}
	record := func() {
		if _, err := s.RecordAttributed("w", WorkLine{Item: "uid-19", Tool: "Bash", Kind: WorkExecute, Target: "go vet", OK: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			whole()
		}
	})
	b.Run("cached", func(b *testing.B) {
		cached()
		for b.Loop() {
			cached()
		}
	})
	b.Run("append/only", func(b *testing.B) {
		for b.Loop() {
			record()
		}
	})
	b.Run("append/whole", func(b *testing.B) {
		for b.Loop() {
			record()
			whole()
		}
	})
	b.Run("append/cached", func(b *testing.B) {
		for b.Loop() {
			record()
			cached()
		}
	})
}

// Removing a session lets go of the files the caches keep open (the
// session file's pin, the work log's): a removed log's disk space is freed
// at once, not when its entry is pushed out.
func TestRemoveClosesCachedFiles(t *testing.T) {
	testenv.NeedProc(t)
	s := testStore(t)
	workList(t, s, "gone")
	workList(t, s, "kept")
	for _, id := range []string{"gone", "kept"} {
		if _, err := s.RecordWork(id, WorkLine{Tool: "Bash", Kind: WorkExecute, OK: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Receipts(id, false); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Load(id); err != nil {
			t.Fatal(err)
		}
	}
	if open := openFilesOf(t, s, "gone"); len(open) < 2 {
		t.Fatalf("before Remove, open files of the session: %q; want its session file and work log (the test sees nothing)", open)
	}
	if err := s.Remove("gone"); err != nil {
		t.Fatal(err)
	}
	if open := openFilesOf(t, s, "gone"); len(open) > 0 {
		t.Errorf("after Remove, still open: %q", open)
	}
	if open := openFilesOf(t, s, "kept"); len(open) < 2 {
		t.Errorf("another session's cached files were closed too: open %q", open)
	}
	if r, err := s.Receipts("kept", false); err != nil || len(r.Log.Lines) != 1 {
		t.Errorf("the session kept reads %v, %v", r.Log.Lines, err)
	}
}

// openFilesOf is the paths of session id's files this process holds open,
// read from /proc/self/fd, as their links say (a removed file's ends in
// " (deleted)").
func openFilesOf(t *testing.T, s *Store, id string) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var open []string
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err != nil {
			continue // the directory's own descriptor, closed by now
		}
		for _, f := range s.sessionFiles(id) {
			if strings.TrimSuffix(target, " (deleted)") == f {
				open = append(open, target)
			}
		}
	}
	return open
}
