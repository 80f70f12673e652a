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
}
