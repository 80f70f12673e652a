package todostore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/todosh/todosh/todolist"
)

// damagedSession makes session id with changes 1..n (each adds an item)
// and returns the list after each change (states[k] after change k).
func damagedSession(t *testing.T, s *Store, id string, n int) [][]todolist.Todo {
	t.Helper()
	states := [][]todolist.Todo{{}}
	for k := 1; k <= n; k++ {
		sess, err := s.Update(id, addTodo(fmt.Sprintf("item %d", k)))
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, todolist.CloneTodos(sess.Todos))
	}
	return states
}

// historyLines splits a history file into its lines, each with its newline.
func historyLines(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			out = append(out, data)
			break
		}
		out = append(out, data[:i+1])
		data = data[i+1:]
	}
	return out
}

// TestDamagedHistory: a history that lost lines (cut, emptied, its
// snapshot deleted, a byte flipped into a duplicate change number) says
// so: History returns a *HistoryError naming what is missing; a revert
// never goes past the damage (ErrHistoryGap, the list unchanged) and
// never takes back more than the change it names; the next change keeps
// counting after the highest change number there was and states the
// whole list, so the history reads whole from there.
func TestDamagedHistory(t *testing.T) {
	const n = 24
	damages := []struct {
		name, missing string // missing: what the error must name
		damage        func(data []byte) []byte
	}{
		{"cut at a line end", "changes 13-23 missing", func(d []byte) []byte {
			return bytes.Join(historyLines(d)[:12], nil)
		}},
		{"cut inside a line", "changes 8-23 missing", func(d []byte) []byte {
			ls := historyLines(d)
			return append(bytes.Join(ls[:7], nil), ls[7][:len(ls[7])/2]...)
		}},
		{"emptied", "changes 1-23 missing", func([]byte) []byte { return nil }},
		{"snapshot deleted", "line 1 unreadable", func(d []byte) []byte {
			return bytes.Join(historyLines(d)[1:], nil)
		}},
		{"second-to-last line's number flipped to the last's", "unreadable", func(d []byte) []byte {
			ls := historyLines(d)
			i := len(ls) - 2
			ls[i] = bytes.Replace(ls[i], []byte(`{"n":23,`), []byte(`{"n":24,`), 1)
			return bytes.Join(ls, nil)
		}},
		{"a middle line's number flipped", "unreadable", func(d []byte) []byte {
			ls := historyLines(d)
			ls[9] = bytes.Replace(ls[9], []byte(`{"n":10,`), []byte(`{"n":11,`), 1)
			return bytes.Join(ls, nil)
		}},
	}
	for _, dm := range damages {
		t.Run(dm.name, func(t *testing.T) {
			s := testStore(t)
			states := damagedSession(t, s, "d", n)
			path := s.SessionHistoryPath("d")
			data := dm.damage(mustRead(t, path))
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}

			// Named: which lines, which changes.
			lines, err := Open(s.Root).History("d")
			var herr *HistoryError
			if !errors.As(err, &herr) || !strings.Contains(err.Error(), dm.missing) {
				t.Fatalf("History: %v; want a HistoryError naming %q", err, dm.missing)
			}
			if last := lines[len(lines)-1]; last.N != n || !todolist.SameTodos(last.Todos, states[n]) {
				t.Errorf("History ends with change %d %q; want change %d, the list on disk (never renumbered)", last.N, last.What, n)
			}

			// Revert: refused at the damage, or exactly the change it names.
			r := Open(s.Root)
			sess, took, err := r.Revert("d", todolist.ByYou)
			switch {
			case err != nil && strings.Contains(err.Error(), "the history has a gap"): // ErrHistoryGap
				if cur, _ := r.Load("d"); !todolist.SameTodos(cur.Todos, states[n]) {
					t.Errorf("a refused revert changed the list")
				}
				if !strings.Contains(err.Error(), "missing") && !strings.Contains(err.Error(), "unreadable") {
					t.Errorf("the refusal does not say what is lost: %v", err)
				}
			case err != nil:
				t.Fatalf("Revert: %v", err)
			default:
				if took.N != n || !todolist.SameTodos(sess.Todos, states[n-1]) {
					t.Errorf("Revert named change %d and left %d items; want change %d taken back alone (%d items)", took.N, len(sess.Todos), n, len(states[n-1]))
				}
			}

			// The next change: numbered after the highest, a snapshot.
			w := Open(s.Root)
			before, _ := w.Load("d")
			if _, err := w.Update("d", addTodo("after the damage")); err != nil {
				t.Fatal(err)
			}
			after, _ := w.Load("d")
			if after.Change.N != before.Change.N+1 || after.Change.N <= n {
				t.Errorf("the next change is numbered %d after change %d", after.Change.N, before.Change.N)
			}
			ls := historyLines(mustRead(t, path))
			lastLine := ls[len(ls)-1]
			head := fmt.Sprintf(`{"n":%d,`, after.Change.N)
			if !bytes.HasPrefix(lastLine, []byte(head)) || !bytes.Contains(lastLine, []byte(fmt.Sprintf(`"from":%d,`, after.Change.N))) && !bytes.Contains(lastLine, []byte(`"todos":`)) {
				// The line may follow a snapshot the catch-up stated.
				prev := ls[len(ls)-2]
				if !bytes.Contains(prev, []byte(fmt.Sprintf(`"from":%d,`, after.Change.N-1))) {
					t.Errorf("the change after the damage reads only through the damage:\n%s%s", prev, lastLine)
				}
			}
			got, err := Open(s.Root).History("d")
			if l := got[len(got)-1]; l.N != after.Change.N || !todolist.SameTodos(l.Todos, after.Todos) {
				t.Errorf("the history does not read its newest change: %d %q", l.N, l.What)
			}
			// The damage is still named after the next change (the history
			// did not get its lost lines back).
			if !errors.As(err, &herr) || !strings.Contains(err.Error(), dm.missing) {
				t.Errorf("after the next change, History: %v; want a HistoryError naming %q", err, dm.missing)
			}
		})
	}
}

// TestHistoryReadDuringWrites: a history read while other processes write
// (without their lock) may find the session file a change or more ahead
// of the history it read just before; that is not damage: History names
// no gap, and a revert run meanwhile is not refused for one.
func TestHistoryReadDuringWrites(t *testing.T) {
	s := testStore(t)
	if _, err := s.Update("w", func(sess *Session) error {
		for i := 0; i < 5; i++ {
			sess.Todos = append(sess.Todos, todolist.Todo{Content: fmt.Sprintf("item %d", i), Status: todolist.Pending})
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for p := 0; p < 3; p++ {
		cmd := helper("adder", s.Root, "w", strconv.Itoa(p), "30", "5")
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cmd.Run(); err != nil { // its stderr is the test's
				t.Errorf("writer: %v", err)
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	reads := 0
	for running := true; running; reads++ {
		select {
		case <-done:
			running = false
		default:
		}
		if _, err := Open(s.Root).History("w"); err != nil {
			t.Fatalf("History during writes, read %d: %v", reads, err)
		}
	}
	t.Logf("%d history reads during 90 writes", reads)
}
