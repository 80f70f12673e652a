package todostore

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"
)

// raceSlots is how many items the writers of TestRemoveWhileWriting spread
// their subtasks over: 10 × 50 subtasks leaves room for every add even
// when no removal empties the session.
const raceSlots = 10

// addToSlot is the Update function of a writer in TestRemoveWhileWriting:
// it makes the slot items when the session is new (a removal empties it)
// and appends the subtask name to slot i.
func addToSlot(i int, name string) func(*Session) error {
	return func(s *Session) error {
		for len(s.Todos) < raceSlots {
			s.Todos = append(s.Todos, todolist.Todo{Content: fmt.Sprintf("slot %d", len(s.Todos)+1), Status: todolist.Pending})
		}
		return todolist.InsertSubtask(s.Todos, i, len(s.Todos[i].Subtasks), todolist.Subtask{Content: name})
	}
}

// runSlotAdder adds count subtasks "w<proc>-<n>" to session id and prints
// "ok <name>" after each Update returned, so the parent knows what was
// acknowledged. Any error ends it with status 1. Args: root id proc count.
func runSlotAdder(args []string) error {
	s := Open(args[0])
	proc, _ := strconv.Atoi(args[2])
	count, _ := strconv.Atoi(args[3])
	for n := 0; n < count; n++ {
		name := fmt.Sprintf("w%d-%d", proc, n)
		if _, err := s.Update(args[1], addToSlot((proc+n)%raceSlots, name)); err != nil {
			return fmt.Errorf("add %s: %w", name, err)
		}
		fmt.Println("ok " + name)
	}
	fmt.Println("retries " + strconv.FormatInt(lockRetries.Load(), 10))
	return nil
}

// runRemover removes session id again and again until its stdin ends.
// Under the session's lock, just before each removal, it prints what it
// removes ("removed <name> ...") and how many history lines of it could
// not be read ("torn N"). Args: root id.
func runRemover(args []string) error {
	s := Open(args[0])
	id := args[1]
	var done sync.WaitGroup
	done.Add(1)
	var stop sync.Once
	stopped := make(chan struct{})
	go func() {
		defer done.Done()
		io.Copy(io.Discard, os.Stdin)
		stop.Do(func() { close(stopped) })
	}()
	for {
		select {
		case <-stopped:
			return nil
		default:
		}
		err := s.RemoveIf(id, func(fs.FileInfo) error {
			sess, err := s.Load(id)
			if err != nil {
				return fmt.Errorf("load before removing: %w", err)
			}
			var names []string
			for _, todo := range sess.Todos {
				for _, sub := range todo.Subtasks {
					names = append(names, sub.Content)
				}
			}
			fmt.Println("removed " + strings.Join(names, " "))
			data, err := os.ReadFile(s.SessionHistoryPath(id))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			_, bad := ParseHistory(data)
			fmt.Println("torn " + strconv.Itoa(len(bad)))
			return nil
		})
		switch {
		case errors.Is(err, fs.ErrNotExist):
			time.Sleep(200 * time.Microsecond) // not written again yet: let the writers run
		case err != nil:
			return err
		}
	}
}

// TestRemoveWhileWriting is issue 16's first point: five processes add to
// one session in a loop while another process removes it (as /todo prune
// does) again and again. Every add a writer acknowledged must be in the
// session's file afterwards or in one of the incarnations the remover
// removed, no writer may fail, and no history line may be torn.
func TestRemoveWhileWriting(t *testing.T) {
	const writers = 5
	perWriter := 60
	if testing.Short() {
		perWriter = 30
	}
	s := testStore(t)
	const id = "P"
	if _, err := s.Update(id, addToSlot(0, "seed")); err != nil {
		t.Fatal(err)
	}
	remover := helper("remover", s.Root, id)
	removerIn, err := remover.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	removerOut, err := remover.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var removerErr strings.Builder
	remover.Stderr = &removerErr
	if err := remover.Start(); err != nil {
		t.Fatal(err)
	}
	removed := map[string]int{}
	removals, torn := 0, 0
	readRemover := make(chan struct{})
	go func() {
		defer close(readRemover)
		sc := bufio.NewScanner(removerOut)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if rest, ok := strings.CutPrefix(line, "removed "); ok || line == "removed" {
				removals++
				for _, name := range strings.Fields(rest) {
					removed[name]++
				}
			} else if n, ok := strings.CutPrefix(line, "torn "); ok {
				k, _ := strconv.Atoi(n)
				torn += k
			}
		}
	}()

	acked := make([][]string, writers)
	errs := make([]string, writers)
	var retries atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		cmd := helper("slotadder", s.Root, id, strconv.Itoa(w), strconv.Itoa(perWriter))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if name, ok := strings.CutPrefix(sc.Text(), "ok "); ok {
					acked[w] = append(acked[w], name)
				} else if n, ok := strings.CutPrefix(sc.Text(), "retries "); ok {
					k, _ := strconv.Atoi(n)
					retries.Add(int64(k))
				}
			}
			if err := cmd.Wait(); err != nil {
				errs[w] = fmt.Sprintf("%v: %s", err, strings.TrimSpace(stderr.String()))
			}
		}()
	}
	wg.Wait()
	removerIn.Close()
	<-readRemover
	if err := remover.Wait(); err != nil {
		t.Fatalf("remover: %v: %s", err, removerErr.String())
	}

	for w, e := range errs {
		if e != "" {
			t.Errorf("writer %d failed: %s", w, e)
		}
	}
	final := map[string]int{}
	if sess, err := s.Load(id); err == nil {
		for _, todo := range sess.Todos {
			for _, sub := range todo.Subtasks {
				final[sub.Content]++
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	lost, total := 0, 0
	for _, names := range acked {
		for _, name := range names {
			total++
			if final[name]+removed[name] != 1 {
				lost++
				if lost <= 5 {
					t.Errorf("acknowledged add %s is in the file %d times and in the removed sessions %d times, want once", name, final[name], removed[name])
				}
			}
		}
	}
	if lost > 5 {
		t.Errorf("... %d acknowledged adds of %d in all are lost or doubled", lost, total)
	}
	if data, err := os.ReadFile(s.SessionHistoryPath(id)); err == nil {
		_, bad := ParseHistory(data)
		torn += len(bad)
	}
	if torn > 0 {
		t.Errorf("%d history lines torn", torn)
	}
	if removals == 0 {
		t.Errorf("the remover never removed the session (it existed when it started)")
	}
	t.Logf("%d writers, %d adds acknowledged, %d removals, %d locks taken again after a removal, %d adds in the file at the end", writers, total, removals, retries.Load(), len(final))
}
