package agent

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/todosh/todosh/todostore"
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
// or a message's usage) and returns the events to emit: one EventUsage,
// one notice the first time a report is refused, or none (a report of
// nothing).
func (m *UsageMeter) Add(u Usage) []Event {
	if bad, ok := m.check(u, "usage"); !ok {
		return bad
	}
	if u.Input+m.sent.Input > MaxUsage || u.Output+m.sent.Output > MaxUsage {
		return m.refuse(fmt.Sprintf("usage adds up to more than %s tokens", todostore.Thousands(MaxUsage)))
	}
	return m.pass(u)
}

// To takes the agent's running total for the turn so far and returns the
// difference from what was passed on, as Add does. A total below what was
// passed on is refused.
func (m *UsageMeter) To(total Usage) []Event {
	if bad, ok := m.check(total, "usage total"); !ok {
		return bad
	}
	if total.Input < m.sent.Input || total.Output < m.sent.Output {
		return m.refuse(fmt.Sprintf("usage total went backwards (%s in, %s out after %s in, %s out)",
			todostore.Thousands(total.Input), todostore.Thousands(total.Output), todostore.Thousands(m.sent.Input), todostore.Thousands(m.sent.Output)))
	}
	return m.pass(Usage{Input: total.Input - m.sent.Input, Output: total.Output - m.sent.Output})
}

// AtLeast takes a total the agent reports at the end of a turn whose
// parts it reported before, maybe not all of them and maybe more (Claude
// Code's result line after its messages, where a message's output count is
// the one it started with): what the total says beyond what was passed on
// is passed on, each count on its own, and a total below is no error.
func (m *UsageMeter) AtLeast(total Usage) []Event {
	if bad, ok := m.check(total, "usage total"); !ok {
		return bad
	}
	return m.pass(Usage{Input: max(0, total.Input-m.sent.Input), Output: max(0, total.Output-m.sent.Output)})
}

// Sent is the sum of what was passed on.
func (m *UsageMeter) Sent() Usage { return m.sent }

// check refuses a count below zero or above MaxUsage: ok is false, and
// the events are the notice, if it is the first.
func (m *UsageMeter) check(u Usage, what string) (notice []Event, ok bool) {
	if u.Input < 0 || u.Output < 0 || u.Input > MaxUsage || u.Output > MaxUsage {
		return m.refuse(fmt.Sprintf("%s of %d in, %d out is no real count", what, u.Input, u.Output)), false
	}
	return nil, true
}

func (m *UsageMeter) pass(u Usage) []Event {
	if u.Input == 0 && u.Output == 0 {
		return nil
	}
	m.sent.Input += u.Input
	m.sent.Output += u.Output
	return []Event{{Kind: EventUsage, Usage: &u}}
}

func (m *UsageMeter) refuse(why string) []Event {
	if m.noticed {
		return nil
	}
	m.noticed = true
	name := m.Name
	if name == "" {
		name = "agent"
	}
	return []Event{{Kind: EventNotice, Text: name + ": ignored: " + why}}
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
