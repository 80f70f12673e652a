package todostore

import (
	"time"

	"github.com/todosh/todosh/todolist"
)

// The ledger (issue 26): what each item cost, from facts todosh keeps —
// its time in progress from the history's changes, its tokens and tool
// calls from the work log, each line of which names the item that was in
// progress when it was written. What was spent while no item was in
// progress is unattributed, so the items and the unattributed row add up
// to the session's total exactly.

// Cost is one row of the ledger.
type Cost struct {
	// UID is the item's stable id, "" for the unattributed and total rows.
	UID string
	// Pos is the item's position (1-based) on the list now, 0 when it is
	// no longer on the list (its cost stays in the total).
	Pos     int
	Content string
	Status  todolist.Status
	// InProgress is how long the item was in progress, by the history's
	// change times; an item in progress now counts until now.
	InProgress time.Duration
	// In and Out are tokens, as the agent reported them; Calls the tool
	// calls that ended.
	In, Out int64
	Calls   int
}

// Ledger is the cost of every item of a session, in list order, then of
// the items no longer on the list.
type Ledger struct {
	Items        []Cost
	Unattributed Cost
	Total        Cost
	// Notices are what was ignored, one line each: bad lines of the work
	// log, history changes whose clock went back.
	Notices []string
}

// Ledger builds session id's ledger at now.
func (s *Store) Ledger(id string, now time.Time) (Ledger, error) {
	sess, err := s.LoadOrNew(id)
	if err != nil {
		return Ledger{}, err
	}
	hist, herr := s.History(id)
	work, err := s.Work(id)
	if err != nil {
		return Ledger{}, err
	}
	l := BuildLedger(sess.Todos, hist, work, now)
	if herr != nil {
		l.Notices = append(l.Notices, "history: "+todolist.ShortLine(herr.Error(), 120))
	}
	return l, nil
}

// BuildLedger is the ledger of the list todos from its history and its
// work log, at now. Pure.
func BuildLedger(todos []todolist.Todo, hist []HistoryLine, work WorkLog, now time.Time) Ledger {
	var l Ledger
	rows := map[string]int{} // by index: appending may move the rows
	for i, t := range todos {
		l.Items = append(l.Items, Cost{UID: t.UID, Pos: i + 1, Content: t.Content, Status: t.Status})
		if t.UID != "" {
			rows[t.UID] = i
		}
	}
	row := func(uid string) *Cost {
		i, ok := rows[uid]
		if !ok {
			i = len(l.Items)
			rows[uid] = i
			l.Items = append(l.Items, Cost{UID: uid})
		}
		return &l.Items[i]
	}
	// Time in progress: from the change that put an item in progress to
	// the change that took it out (or now).
	since := map[string]time.Time{}
	var last time.Time
	back := 0
	for _, h := range hist {
		if h.At.Before(last) {
			back++
			continue
		}
		last = h.At
		open := map[string]bool{}
		for _, t := range h.Todos {
			if t.UID == "" || t.Status != todolist.InProgress {
				continue
			}
			open[t.UID] = true
			if _, ok := since[t.UID]; !ok {
				since[t.UID] = h.At
			}
		}
		for uid, at := range since {
			if !open[uid] {
				row(uid).InProgress += h.At.Sub(at)
				delete(since, uid)
			}
		}
	}
	for uid, at := range since {
		if now.After(at) {
			row(uid).InProgress += now.Sub(at)
		}
	}
	for _, w := range ChargeTurns(work.Lines) {
		r := &l.Unattributed
		if w.Item != "" {
			r = row(w.Item)
		}
		r.In += w.In
		r.Out += w.Out
		if w.Tool != "" {
			r.Calls++
		}
	}
	l.Total = l.Unattributed
	for _, r := range l.Items {
		l.Total.In += r.In
		l.Total.Out += r.Out
		l.Total.Calls += r.Calls
		l.Total.InProgress += r.InProgress
	}
	for i := range l.Items {
		if r := &l.Items[i]; r.Pos == 0 && r.Content == "" {
			r.Content, r.Status = lastSeen(hist, r.UID)
		}
	}
	if work.Bad > 0 {
		l.Notices = append(l.Notices, todolist.Plural(work.Bad, "bad line")+" of the work log ignored")
	}
	if back > 0 {
		l.Notices = append(l.Notices, todolist.Plural(back, "history change")+" whose clock went back ignored for time in progress")
	}
	return l
}

// lastSeen is the text and status of the item with uid in the newest
// history line that has it.
func lastSeen(hist []HistoryLine, uid string) (string, todolist.Status) {
	for i := len(hist) - 1; i >= 0; i-- {
		for _, t := range hist[i].Todos {
			if t.UID == uid {
				return t.Content, t.Status
			}
		}
	}
	return "", ""
}
