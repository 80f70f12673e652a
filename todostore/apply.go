package todostore

// Copy on write of subtask arrays (ARCHITECTURE.md §3): a change function
// gets items of its own whose subtask arrays are the cache's. Whatever
// writes into them in place calls todolist.OwnSubtasks first; a test binary checks
// that every change function did.

import (
	"fmt"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"
)

// change is a change applied: the session it was made on (as read under
// the lock, when it changes anything) and the session it makes.
type change struct {
	st      state
	next    *Session // the caller's own: the new session, or the one as read when nothing changes
	changed bool
	unlock  func() // the session's lock, held when changed
}

// applyLocked makes fn's change on session id as read, and, when it
// changes anything, takes the session's lock and reads the file again:
// the change made stands when the file is the one it was made on (a stat,
// cache.go); otherwise fn runs again on the file as it is now.
//
// With needHist fn gets the session's history, and what it decides from
// it is decided under the lock only, refusals and "nothing changes"
// alike: without the lock the history and the file are two reads another
// process may write between, so the history may hold a change the file
// as read does not (a revert would take back a change the file does not
// hold yet, and find nothing to change), or miss one the file holds (the
// writer between its rename and its append: a gap). Only a session with
// neither a file nor a history is decided without the lock: there is
// nothing fn could take back or bring back, and nothing is written.
func (s *Store) applyLocked(id string, needHist bool, fn func(*Session, []HistoryLine) error) (change, error) {
	var c change
	for locked := false; ; locked = true {
		st, err := s.readSession(id)
		if err != nil {
			return change{unlock: c.unlock}, err
		}
		if !locked && s.unlockedRead != nil {
			s.unlockedRead(id)
		}
		if locked && !needHist && st.present == c.st.present && st.fid == c.st.fid {
			c.st = st
			return c, nil
		}
		var lines []HistoryLine
		decide := true // fn's outcome stands: under the lock, or when it needs no history
		if needHist {
			if locked || !st.present {
				if lines, err = s.usableHistory(id); err != nil {
					return change{unlock: c.unlock}, err
				}
			}
			decide = locked || !st.present && len(lines) == 0
		}
		if decide {
			next, changed, err := applyChange(st.sess, lines, fn)
			c.st, c.next, c.changed = st, next, changed
			switch {
			case locked && (err != nil || !changed):
				c.next, c.changed = st.sess.clone(), false
				return c, err
			case locked:
				return c, nil
			case err != nil:
				return change{next: st.sess.clone()}, err
			case !changed:
				return c, nil // the same state, and already the caller's own copy
			}
		}
		if err := s.ensureDirs(); err != nil {
			return change{}, err
		}
		s.sweepOnce.Do(func() { sweepTemps(s.Dir, time.Now()) })
		if c.unlock, err = s.lockFile(s.lockPath(id)); err != nil {
			return change{}, err
		}
	}
}

// applyChange runs fn on a copy of cur (whose subtask arrays it shares,
// cloneForChange) and says whether the result
// differs from cur in anything but its archive.
func applyChange(cur *Session, lines []HistoryLine, fn func(*Session, []HistoryLine) error) (*Session, bool, error) {
	next := cur.cloneForChange()
	snap := sharedSnapshot(cur)
	if err := fn(next, lines); err != nil {
		checkShared(cur, snap)
		return nil, false, err
	}
	todolist.Normalize(next.Todos)
	if err := todolist.ValidateAgainst(next.Todos, cur.Todos); err != nil {
		checkShared(cur, snap)
		return nil, false, err
	}
	if next.Todos == nil {
		next.Todos = []todolist.Todo{}
	}
	if !cur.uidsGiven || next.NextUID != cur.NextUID || !todolist.SameUIDs(cur.Todos, next.Todos) {
		assignUIDs(next)
		next.uidsGiven = true
	}
	checkShared(cur, snap)
	if next.agentSees {
		next.AgentRead = next.Rev // stampRevs sets it again if the list changes
	}
	return next, !sameState(cur, next), nil
}

// sharedCheckOff names the environment variable that turns the check off
// in a test binary (perf's benchmarks set it: the check copies the list).
const sharedCheckOff = "TODOSH_NO_SHARED_CHECK"

// checkingShared reports whether changes check that they left the cache's
// session as it was: only in test binaries, so every package's tests hold
// its change functions to copy on write.
func checkingShared() bool {
	return testing.Testing() && os.Getenv(sharedCheckOff) == ""
}

// sharedSnapshot is a deep copy of the list a change starts from, taken in
// test binaries only (nil otherwise).
func sharedSnapshot(cur *Session) []todolist.Todo {
	if !checkingShared() {
		return nil
	}
	return todolist.CloneTodos(cur.Todos)
}

// checkShared panics when a change wrote into a subtask array it shared
// with cur (the cache's session): a bug in the change, which must call
// todolist.OwnSubtasks before writing into an item's subtasks.
func checkShared(cur *Session, snap []todolist.Todo) {
	if snap == nil {
		return
	}
	for i := range snap {
		if !reflect.DeepEqual(snap[i].Subtasks, cur.Todos[i].Subtasks) {
			panic(fmt.Sprintf("todostore: a change wrote into item %d's shared subtasks: call OwnSubtasks before writing into them", i+1))
		}
	}
}
