package todotools

import (
	"fmt"
	"strings"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/todostore"
)

// The receipt rule of --require-evidence (issue 26): where todosh sees
// the agent's work in this session (its work log holds an edit or a
// command), evidence text is not enough. A newly completed item needs a
// receipt, a successful edit or command todosh saw while it was in
// progress, and a command the evidence names in backticks must be one
// todosh saw succeed. Where todosh sees no work (the model API with only
// the todo tools) the text alone still counts.

// receiptCheck is what the work log says for the checks of one call.
type receiptCheck struct {
	log todostore.WorkLog
	sum todolist.Summary
}

// receipts reads the session's work log for a call that completes work
// when evidence is required (require, the call's requireEvidence); nil
// when todosh sees no work in the session (or the log cannot be read: the
// text rule then applies, as before).
func (t *Tools) receipts(require bool) *receiptCheck {
	if !require || t.Session.Store == nil {
		return nil
	}
	r, err := t.Session.Store.Receipts(t.Session.ID, false)
	if err != nil || !r.Sum.Shows {
		return nil
	}
	return &receiptCheck{log: r.Log, sum: r.Sum}
}

// check refuses completing the item with uid at position pos (what the
// model calls it) without a receipt, or with evidence naming a command
// todosh did not see succeed.
func (rc *receiptCheck) check(what string, uid, evidence string) error {
	if rc == nil {
		return nil
	}
	if uid == "" || !rc.sum.Receipt(uid) {
		return fmt.Errorf("%s has no receipt (evidence is required in this session): todosh saw no successful edit or command "+
			"while it was in progress; mark it in_progress, do the work, then complete it", what)
	}
	for _, cmd := range codeSpans(evidence) {
		if !rc.log.Succeeded(cmd) && !rc.edited(cmd) {
			return fmt.Errorf("%s: the evidence names `%s`, which todosh did not see succeed: run it, or leave it out of the evidence",
				what, todolist.ShortLine(cmd, 60))
		}
	}
	return nil
}

// edited reports whether the log holds a successful edit of path.
func (rc *receiptCheck) edited(path string) bool {
	for _, l := range rc.log.Lines {
		if l.Kind == todostore.WorkEdit && l.OK && strings.TrimSpace(l.Target) == strings.TrimSpace(path) {
			return true
		}
	}
	return false
}

// codeSpans are the texts between single backticks in s: how evidence
// names a command ("ran `go test ./...`: ok").
func codeSpans(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			return out
		}
		s = s[i+1:]
		j := strings.IndexByte(s, '`')
		if j < 0 {
			return out
		}
		if span := strings.TrimSpace(s[:j]); span != "" {
			out = append(out, span)
		}
		s = s[j+1:]
	}
}

// requireEvidence is whether completing work needs evidence now: the
// session's setting when one is recorded (an editor's choice, read at
// every call), else RequireEvidence.
func (t *Tools) requireEvidence() bool {
	if t.Session.Store != nil {
		if on, set := t.Session.Store.RequireEvidence(t.Session.ID); set {
			return on
		}
	}
	return t.RequireEvidence
}
