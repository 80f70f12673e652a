package todostore

import (
	"strconv"
	"strings"

	"github.com/todosh/todosh/todolist"
)

// describe is the words of the change from prev to s: the caller's note,
// else the difference of the lists, else of the other state; then what
// was taken off the list.
func (s *Session) describe(prev *Session, by todolist.Author) string {
	what := s.note
	if what == "" {
		what = todolist.Describe(prev.Todos, s.Todos, by)
	}
	if what == "" {
		what = describeState(prev, s)
	}
	return strings.Join(append([]string{what}, s.notes...), "; ")
}

// describeState names a change that left the list alone.
func describeState(prev, s *Session) string {
	switch {
	case s.Paused && (!prev.Paused || prev.PauseReason != s.PauseReason):
		return "paused: " + strconv.Quote(todolist.ShortLine(s.PauseReason, 60))
	case prev.Paused && !s.Paused:
		return "pause lifted"
	case s.Agent != nil && (prev.Agent == nil || prev.Agent.Kind != s.Agent.Kind || prev.Agent.Session != s.Agent.Session):
		return s.Agent.Kind + " session recorded"
	case !sameHooks(prev.Hooks, s.Hooks):
		return "agent hook state recorded"
	case s.Agent != nil:
		return s.Agent.Kind + " task ids recorded"
	case prev.Cwd != s.Cwd:
		return "directory recorded"
	}
	return "session updated"
}
