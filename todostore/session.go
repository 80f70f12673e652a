// Package todostore owns every file under TODOSH_HOME: the per-session
// JSON files (the session, its history, work log, conversation and
// thread), their locks and atomic durable writes, the cache, the listing
// and the watcher. Session is the session file's record; the list it holds
// is todolist's. Of todosh it imports only todolist.
// Its place in the whole is ARCHITECTURE.md §3.
package todostore

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/todosh/todosh/todolist"
)

// AgentRef names the agent conversation a session is attached to, so that a
// resumed todosh resumes the same Claude, Codex or Gemini session.
type AgentRef struct {
	Kind    string `json:"kind"`
	Session string `json:"session"`
	// Tasks maps the agent's own task ids to items (Claude Code's Task
	// tools), kept with the session id they belong to and written in the
	// same locked change as the list.
	Tasks []AgentTask `json:"tasks,omitempty"`
}

// AgentTask is one task id of the agent and the text of the item todosh
// last gave it.
type AgentTask struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
}

// HookState is what todosh's hooks inside an agent's own interface keep
// between their processes, written in the same locked change as the list
// (ARCHITECTURE.md §3): the continuation policy's counters, the list the
// next stop measures progress from, and digests (never text) of what the
// agent was last sent and shown.
type HookState struct {
	NoProgress int    `json:"noProgress,omitempty"`
	PerPrompt  int    `json:"perPrompt,omitempty"`
	LastList   string `json:"lastList,omitempty"`
	Level      int    `json:"level,omitempty"`
	// Before is the list at the agent's previous stop or at the person's
	// prompt, items and subtasks by content and status only.
	Before []todolist.Todo `json:"before,omitempty"`
	// Sent is the digest of the last continuation prompt, so the prompt
	// hook can tell it from the person's.
	Sent string `json:"sent,omitempty"`
	// Given is the digest of the list the agent last wrote or was given;
	// a list that differs was changed by someone else.
	Given string `json:"given,omitempty"`
	// Done is the continuation policy's high-water mark since the
	// person's prompt (stable uids that reached completed), Unverified
	// the items it saw completed without a receipt
	// (continuation.State).
	Done       []string `json:"done,omitempty"`
	Unverified []string `json:"unverified,omitempty"`
	// First is the first list the agent wrote since the last stop or the
	// person's prompt, by stable id, text and status
	// (continuation.Turn.First): a list made and finished between two
	// stops is measured from it.
	First []todolist.Todo `json:"first,omitempty"`
	// Held are digests of the texts of the items the agent's own todo
	// tool holds, as of its last call; nil until it made one. An
	// open item it does not hold (the person's, added in todosh) is
	// offered to it to add with its tool, and is its work only once
	// Offered holds it.
	Held    []string `json:"held,omitempty"`
	Offered []string `json:"offered,omitempty"`
	// Mark is the change the session was at when the person last
	// prompted: item texts of its history up to it are finished work the
	// agent may re-send (continuation.Turn.Known).
	Mark int `json:"mark,omitempty"`
}

// ArchiveEntry is a list that was cleared, auto-cleared, replaced or dropped,
// kept so that nothing is ever lost silently.
type ArchiveEntry struct {
	At     time.Time       `json:"at"`
	Reason string          `json:"reason"`
	Todos  []todolist.Todo `json:"todos"`
	// Extra keeps the fields this todosh does not know.
	Extra todolist.Extra `json:"-"`
}

// Session is the whole content of one todo-<id>.json file.
type Session struct {
	Version     int             `json:"version"`
	Session     string          `json:"session"`
	CreatedAt   time.Time       `json:"createdAt,omitzero"` // absent in llxprt's files: never written as the year 1
	UpdatedAt   time.Time       `json:"updatedAt"`
	Cwd         string          `json:"cwd,omitempty"`
	Agent       *AgentRef       `json:"agent,omitempty"`
	Paused      bool            `json:"paused"`
	PauseReason string          `json:"pauseReason"`
	Todos       []todolist.Todo `json:"todos"`
	// Hooks is the state todosh's hooks keep for an agent that runs them
	// in its own interface (hooks/); nil for every other session.
	Hooks *HookState `json:"hooks,omitempty"`
	// Rev is the list's revision, one more on every change of the list;
	// NextUID numbers the next stable id; AgentRead is the revision of the
	// list the agent was last shown (a todo tool's reply). Commit owns all
	// three (revs.go).
	Rev       int `json:"rev,omitempty"`
	NextUID   int `json:"nextUid,omitempty"`
	AgentRead int `json:"agentRead,omitempty"`
	// Archive is read from files written before the history existed; the
	// first write moves its entries to the start of the history.
	Archive []ArchiveEntry `json:"archive,omitempty"`
	// Change is the history line of the change that wrote this file
	// (history.go): it says whether the history explains the file, and
	// gives a change whose line was lost in a crash its own author.
	Change *todolist.ChangeRecord `json:"change,omitempty"`
	// Extra keeps the fields this todosh does not know, written back as read.
	Extra todolist.Extra `json:"-"`

	// Archived is set, never written, when a reader shows in place of an
	// empty list the last list of the session's history (LoadShown).
	Archived bool `json:"-"`

	// note, notes and revertOf describe the change being made, for its
	// history line; they are never written to the session file.
	note     string
	notes    []string
	dropped  []todolist.Todo
	revertOf int
	// agentSees is set by MarkAgentRead.
	agentSees bool
	// uidsGiven says every entry's stable id was given by assignUIDs (the
	// session was made by Commit, not decoded from a file): valid and
	// unique, so a change that keeps them all in place need not check
	// them again (applyChange).
	uidsGiven bool
}

// ArchiveTodos empties the list, which stays in the history (its line
// before this change), with a reason such as "cleared" or "all done" that
// becomes the words of the change. now is kept for callers' sake: the
// change's time is the write's.
func (s *Session) ArchiveTodos(reason string) {
	if len(s.Todos) == 0 {
		return
	}
	switch reason {
	case "cleared":
		s.Note("cleared " + todolist.Plural(len(s.Todos), "item"))
	case "all done":
		s.Note("finished list archived")
	default:
		s.Note(fmt.Sprintf("%s: %s archived", reason, todolist.Plural(len(s.Todos), "item")))
	}
	s.Todos = []todolist.Todo{}
}

// AppendArchive names, in the words of the change being made, items taken
// off the list (an agent's dropped items); the list before the change, in
// the history, keeps them.
func (s *Session) AppendArchive(reason string, todos []todolist.Todo) {
	if len(todos) == 0 {
		return
	}
	names := make([]string, 0, len(todos))
	for _, t := range todos {
		names = append(names, strconv.Quote(todolist.ShortLine(t.Content, 40)))
	}
	s.notes = append(s.notes, reason+": "+strings.Join(names, ", "))
	s.dropped = append(s.dropped, todolist.CloneTodos(todos)...)
}

// Note sets the words of the change being made, as its history line shows
// them ("loaded list from 20261121-223344-7f3a"); without a note they are
// derived from the difference between the lists.
func (s *Session) Note(what string) { s.note = what }

// Progress is the prompt's progress marker: done and total of the list, or
// false when the list is empty.
func (s *Session) Progress() (done, total int, ok bool) {
	c := todolist.CountTodos(s.Todos)
	if c.Total == 0 {
		return 0, 0, false
	}
	return c.Done(), c.Total, true
}
