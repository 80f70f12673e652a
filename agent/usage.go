package agent

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/todosh/todosh/todolist"
)

// MaxUsage bounds one count of tokens an agent reports: a figure above it
// (or below zero) is no real spend, and is ignored with one notice.
const MaxUsage = 1_000_000_000_000

// UsageMeter turns one turn's usage reports, as an agent writes them, into
// EventUsage deltas, and keeps out what cannot be true: a negative count,
// one above MaxUsage, a running total that goes backwards. What it keeps
// out it says once, in one notice, and never fails the turn. Each backend
// keeps one per turn (a parser is one per turn).
type UsageMeter struct {
	// Name prefixes the notice ("claude").
	Name string

	sent    Usage // the sum of the deltas passed on
	noticed bool
}

// Add takes tokens spent since the agent's previous report (a request's
// or a message's usage) and returns the event to emit, if any: an
// EventUsage, the notice the first time a report is refused, or none (ok
// false: a report of nothing, or a refusal after the first).
func (m *UsageMeter) Add(u Usage) (ev Event, ok bool) {
	if !u.Real() {
		return m.unreal(u, "usage")
	}
	if u.Input+m.sent.Input > MaxUsage || u.Output+m.sent.Output > MaxUsage {
		if m.noticed {
			return Event{}, false
		}
		return m.refuse(fmt.Sprintf("usage adds up to more than %s tokens", todolist.Thousands(MaxUsage)))
	}
	return m.pass(u)
}

// To takes the agent's running total for the turn so far and returns the
// difference from what was passed on, as Add does. A total below what was
// passed on is refused.
func (m *UsageMeter) To(total Usage) (ev Event, ok bool) {
	if !total.Real() {
		return m.unreal(total, "usage total")
	}
	if total.Input < m.sent.Input || total.Output < m.sent.Output {
		if m.noticed {
			return Event{}, false // said once: not even worded again
		}
		return m.refuse(fmt.Sprintf("usage total went backwards (%s in, %s out after %s in, %s out)",
			todolist.Thousands(total.Input), todolist.Thousands(total.Output), todolist.Thousands(m.sent.Input), todolist.Thousands(m.sent.Output)))
	}
	return m.pass(Usage{Input: total.Input - m.sent.Input, Output: total.Output - m.sent.Output})
}

// AtLeast takes a total the agent reports at the end of a turn whose
// parts it reported before, maybe not all of them and maybe more (Claude
// Code's result line after its messages, where a message's output count is
// the one it started with): what the total says beyond what was passed on
// is passed on, each count on its own, and a total below is no error.
func (m *UsageMeter) AtLeast(total Usage) (ev Event, ok bool) {
	if !total.Real() {
		return m.unreal(total, "usage total")
	}
	return m.pass(Usage{Input: max(0, total.Input-m.sent.Input), Output: max(0, total.Output-m.sent.Output)})
}

// Real reports whether u can be a count of tokens: not below zero, not
// above MaxUsage.
func (u Usage) Real() bool {
	return u.Input >= 0 && u.Output >= 0 && u.Input <= MaxUsage && u.Output <= MaxUsage
}

// unreal is the notice of a report Real refused.
func (m *UsageMeter) unreal(u Usage, what string) (Event, bool) {
	if m.noticed {
		return Event{}, false
	}
	return m.refuse(fmt.Sprintf("%s of %d in, %d out is no real count", what, u.Input, u.Output))
}

func (m *UsageMeter) pass(u Usage) (Event, bool) {
	if u.Input == 0 && u.Output == 0 {
		return Event{}, false
	}
	m.sent.Input += u.Input
	m.sent.Output += u.Output
	// A copy made here: taking u's address would move it to the heap at
	// every call, most of which (a message's later lines) pass nothing.
	out := new(Usage)
	*out = u
	return Event{Kind: EventUsage, Usage: out}, true
}

// refuse is the notice of a refused report, the first time only.
func (m *UsageMeter) refuse(why string) (Event, bool) {
	if m.noticed {
		return Event{}, false
	}
	m.noticed = true
	name := m.Name
	if name == "" {
		name = "agent"
	}
	return Event{Kind: EventNotice, Text: name + ": ignored: " + why}, true
}

// Total is the tokens of u, read and written.
func (u Usage) Total() int64 { return u.Input + u.Output }

// UsageCount reads one count of tokens, a raw JSON value: 0 when it is
// missing or null; a number that is no whole count in range (a fraction,
// a string, 1e300) comes back out of range, below zero or above
// MaxUsage, so the meter refuses it.
func UsageCount(raw []byte) int64 {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return n
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange), math.IsNaN(f):
		return -1
	case f > MaxUsage:
		return MaxUsage + 1
	case f < 0 || f != math.Trunc(f):
		return -1
	}
	return int64(f)
}
