package todolist

import (
	"strings"
)

// ItemWork is what the log shows of one item, or of the work no item was
// in progress for: its receipt and its ledger.
type ItemWork struct {
	// Calls are the tool calls that ended while the item was in
	// progress; Edits and Commands the edits and commands that succeeded
	// for its receipt (also while it was the next open one), Failed the
	// calls that failed.
	Calls, Edits, Commands, Failed int
	// In and Out are the tokens spent.
	In, Out int64
	// Last is the target of the last edit or command that succeeded.
	Last string
	// Seen is set when a successful edit or command was seen for the
	// item, also while it was the next open one and none was in
	// progress: the receipt.
	Seen bool
}

// Receipt reports whether the item has a receipt.
func (w ItemWork) Receipt() bool { return w.Seen }

// Words is the receipt in a few words: "2 edits, 1 command".
func (w ItemWork) Words() string {
	var parts []string
	count := func(n int, noun string) string { // 1,668 commands, as /todo cost counts
		if n == 1 {
			return "1 " + noun
		}
		return Thousands(int64(n)) + " " + noun + "s"
	}
	if w.Edits > 0 {
		parts = append(parts, count(w.Edits, "edit"))
	}
	if w.Commands > 0 {
		parts = append(parts, count(w.Commands, "command"))
	}
	return strings.Join(parts, ", ")
}

// Summary is the work log summed per item (by uid) and for what no item
// was in progress for.
type Summary struct {
	Items        map[string]ItemWork
	Unattributed ItemWork
	// Shows is set when a writer that sees the agent's work wrote the log
	// (todostore.WorkLine.Sees), or it holds an edit or a command at all: the
	// agent's work is visible in this session, and an item completed
	// without a receipt is "done (reported)".
	Shows bool
	// Bad is todostore.WorkLog.Bad.
	Bad int
}

// Receipt reports whether the item with uid has a receipt.
func (s Summary) Receipt(uid string) bool { return s.Items[uid].Seen }

// Note is what a list shows of a completed item's receipt: "seen: 1
// edit, 2 commands", or "reported, no receipt"; "" for an item not
// completed, or when w is nil or the session shows no work.
func (w *Summary) Note(t Todo) string {
	if w == nil || !w.Shows || t.Status != Completed {
		return ""
	}
	if iw := w.Items[t.UID]; iw.Seen {
		return "seen: " + iw.Words()
	}
	return "reported, no receipt"
}
