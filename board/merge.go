package board

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// Merge joins two versions of one item that changed from base on two
// sides (a git merge), field by field: a field changed on one side only
// takes that side; changed on both, the rules of docs/board.md "Merging"
// pick one, the same whichever side is ours, so two clones that merge
// each other's changes end byte-identical. A claim made on both sides goes
// to the earlier claim (then the smaller session@host); the other is
// recorded in Lost, and its claimant is told at its next board command.
// base is the zero Item when both sides added the item.
func Merge(base, ours, theirs Item) Item {
	out := ours.Clone()
	later := laterSide(ours, theirs)
	out.Text = pick(base.Text, ours.Text, theirs.Text, func() string { return later.Text })
	out.Evidence = pick(base.Evidence, ours.Evidence, theirs.Evidence, func() string { return later.Evidence })
	out.Receipt = json.RawMessage(pick(string(base.Receipt), string(ours.Receipt), string(theirs.Receipt), func() string { return string(later.Receipt) }))
	if len(out.Receipt) == 0 {
		out.Receipt = nil
	}
	out.BlockedBy = mergeSet(base.BlockedBy, ours.BlockedBy, theirs.BlockedBy)
	out.Notes = mergeNotes(ours.Notes, theirs.Notes)
	out.Lost = mergeClaims(ours.Lost, theirs.Lost)

	// Status and claim go together.
	bs, os, ts := stateOf(base), stateOf(ours), stateOf(theirs)
	var st state
	switch {
	case os.equal(bs):
		st = ts
	case ts.equal(bs), ts.equal(os):
		st = os
	default:
		st = os
		loser := ts
		if winsOver(ts, os) {
			st, loser = ts, os
		}
		if loser.claim != nil && (st.claim == nil || !loser.claim.Same(st.claim.Who)) && loser.status == Claimed {
			out.Lost = mergeClaims(out.Lost, []Claim{*loser.claim})
		}
	}
	out.Status = st.status
	out.Claim = nil
	if st.claim != nil {
		c := *st.claim
		out.Claim = &c
	}
	if ours.Created.IsZero() || (!theirs.Created.IsZero() && theirs.Created.Before(ours.Created)) {
		out.Created = theirs.Created
	}
	if theirs.Updated.After(ours.Updated) {
		out.Updated = theirs.Updated
	}
	return out
}

// laterSide is the side changed last (by Updated, then by its encoding),
// which wins a field changed on both sides.
func laterSide(a, b Item) Item {
	if c := a.Updated.Compare(b.Updated); c != 0 {
		if c > 0 {
			return a
		}
		return b
	}
	ea, _ := json.Marshal(a)
	eb, _ := json.Marshal(b)
	if bytes.Compare(ea, eb) >= 0 {
		return a
	}
	return b
}

func pick(base, ours, theirs string, both func() string) string {
	switch {
	case ours == base:
		return theirs
	case theirs == base, theirs == ours:
		return ours
	}
	return both()
}

type state struct {
	status Status
	claim  *Claim
}

func stateOf(it Item) state { return state{it.Status, it.Claim} }

func (s state) equal(o state) bool {
	if s.status != o.status || (s.claim == nil) != (o.claim == nil) {
		return false
	}
	return s.claim == nil || *s.claim == *o.claim
}

// statusRank orders statuses for a merge: finishing beats claiming beats
// releasing.
var statusRank = map[Status]int{Open: 0, Claimed: 1, Dropped: 2, Done: 3}

// winsOver reports whether state a beats b when both sides changed them:
// the higher status; then the earlier claim; then the smaller claimant.
func winsOver(a, b state) bool {
	if ra, rb := statusRank[a.status], statusRank[b.status]; ra != rb {
		return ra > rb
	}
	switch {
	case a.claim == nil && b.claim == nil:
		return false
	case a.claim == nil:
		return false
	case b.claim == nil:
		return true
	}
	if c := a.claim.At.Compare(b.claim.At); c != 0 {
		return c < 0
	}
	if c := strings.Compare(a.claim.Who.String(), b.claim.Who.String()); c != 0 {
		return c < 0
	}
	return a.claim.Until.After(b.claim.Until)
}

// mergeSet is a three-way merge of id sets: what both kept, plus what
// either added.
func mergeSet(base, ours, theirs []string) []string {
	var out []string
	for _, id := range ours {
		if slices.Contains(theirs, id) || !slices.Contains(base, id) {
			out = append(out, id)
		}
	}
	for _, id := range theirs {
		if !slices.Contains(base, id) && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

func mergeNotes(a, b []Note) []Note {
	out := slices.Concat(a, b)
	slices.SortFunc(out, func(x, y Note) int {
		if c := x.At.Compare(y.At); c != 0 {
			return c
		}
		if c := strings.Compare(x.By, y.By); c != 0 {
			return c
		}
		return strings.Compare(x.Text, y.Text)
	})
	return slices.CompactFunc(out, func(x, y Note) bool { return x.At.Equal(y.At) && x.By == y.By && x.Text == y.Text })
}

func mergeClaims(a, b []Claim) []Claim {
	out := slices.Concat(a, b)
	if len(out) == 0 {
		return nil
	}
	slices.SortFunc(out, func(x, y Claim) int {
		if c := x.At.Compare(y.At); c != 0 {
			return c
		}
		return strings.Compare(x.Who.String(), y.Who.String())
	})
	return slices.CompactFunc(out, func(x, y Claim) bool { return x.At.Equal(y.At) && x.Same(y.Who) })
}
