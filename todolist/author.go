package todolist

import (
	"time"
)

// Author says who made a change, as the history shows it.
type Author string

// The authors of changes. ByOther is a change the store found on disk
// that no history line explains (an editor, another program, a crash
// between the session file and its history line).
const (
	ByYou   Author = "you"
	ByAgent Author = "agent"
	ByOther Author = "other process"
)

// ChangeRecord is the history line of the change that wrote a session
// file, kept in the file (todostore.Session.Change) and written in the same atomic
// rename as the list. A writer that finds the history's last line is this
// change, with this hash, knows the history explains the file without
// reading it; one that finds the change missing from the history (the
// process died between the rename and the append) appends it with its own
// author and words, not as another process's change.
type ChangeRecord struct {
	N       int       `json:"n"`
	Hash    string    `json:"hash"`
	At      time.Time `json:"at"`
	By      Author    `json:"by"`
	What    string    `json:"what"`
	Revert  int       `json:"revert,omitempty"`
	Dropped []Todo    `json:"dropped,omitempty"`
	PID     int       `json:"pid,omitempty"`
	// Ahead are the history lines the change's writer appends before its
	// own (a change an earlier crash kept out of the history, a list no
	// line explains, an older file's archive), so that a crash of this
	// writer too loses none of them: the next writer appends those the
	// history lacks. Empty when the history explained the file the change
	// read, the normal case.
	Ahead []LineAhead `json:"ahead,omitempty"`
}

// LineAhead is a history line a change's record carries (ChangeRecord.Ahead)
// with what it takes to write it again: its number, hash, author and
// words, and its whole list, since the line before it may be lost too (a
// snapshot). Its own Ahead is always empty.
type LineAhead struct {
	ChangeRecord
	Todos []Todo `json:"todos"`
	// Base marks a starting point rather than a change (an archive entry,
	// a list found without history), as the history line does.
	Base bool `json:"base,omitempty"`
}
