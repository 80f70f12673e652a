package todostore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/todosh/todosh/todolist"
)

// Bounds of one session's history. When either is passed the oldest lines
// are dropped, down to half of both, so the cost is paid rarely;
// the newest line, which holds the current list, is never dropped.
const (
	MaxHistoryLines = 2000
	MaxHistoryBytes = 4 << 20
)

// The history's line format. Format 1 (lines without "v") restates the
// whole list on every line. Format 2 writes a delta of the list before
// (delta.go) and the whole list only at a snapshot: a session's first
// line, a line that does not follow from the one before (a list found on
// disk, an archive entry, a change whose line was lost), and whenever
// snapshotEvery lines or the session file's size in delta bytes have
// passed since the last one. A file may hold both formats: a reader takes
// each line as its "v" says, so files written before format 2 stay
// readable, and a format-1 line is a snapshot.
const (
	historyFormat = 2
	snapshotEvery = 100
)

// HistoryLine is one change of a session, one JSON object per line of its
// history file: what the list was after the change, who made it and what
// it did in words.
type HistoryLine struct {
	// N numbers the changes of a session from 1; it keeps counting when
	// the cap drops old lines.
	N     int             `json:"n"`
	At    time.Time       `json:"at"`
	By    todolist.Author `json:"by"`
	What  string          `json:"what"`
	Todos []todolist.Todo `json:"todos"`
	// Revert is the N of the change this line took back (/todo revert),
	// so the next revert goes one change further back.
	Revert int `json:"revert,omitempty"`
	// Base marks a starting point rather than a change: an archive entry
	// imported from an older file, or a list found without history. It is
	// never taken back by a revert.
	Base bool `json:"base,omitempty"`
	// Dropped are the items (or an item with only its dropped subtasks)
	// the change took off the list, as an agent's rewrite names them.
	Dropped []todolist.Todo `json:"dropped,omitempty"`
	// PID is the process that wrote the line, so a shell can tell a
	// change another todosh made while it ran.
	PID int `json:"pid,omitempty"`
	// Gap is what the history lost just before this line (changes whose
	// lines are missing or unreadable); nil when nothing. A revert never
	// goes past one.
	Gap *Gap `json:"-"`

	// from is the snapshot line this line's delta chain starts at (its own
	// N for a snapshot) and db the delta bytes written since it; hash is
	// the checksum of Todos as written. None is set for a format-1 line.
	from, db int
	hash     string
	// line is the line's number in the file (1-based), 0 when not read
	// from one.
	line int
	// snap makes the writer state the whole list: the line does not
	// follow from the line before it.
	snap bool
}

// wireLine is a history line as written. Its first fields are n, v and
// from, in that order, so the cap tells snapshots from deltas by a line's
// first bytes (lineHead).
type wireLine struct {
	N       int              `json:"n"`
	V       int              `json:"v,omitempty"`
	From    int              `json:"from,omitempty"`
	DB      int              `json:"db,omitempty"`
	H       string           `json:"h,omitempty"`
	At      time.Time        `json:"at"`
	By      todolist.Author  `json:"by"`
	What    string           `json:"what"`
	Todos   *[]todolist.Todo `json:"todos,omitempty"`
	D       json.RawMessage  `json:"d,omitempty"`
	Revert  int              `json:"revert,omitempty"`
	Base    bool             `json:"base,omitempty"`
	Dropped []todolist.Todo  `json:"dropped,omitempty"`
	PID     int              `json:"pid,omitempty"`
	// LostFrom and LostTo are the changes a line's writer knew were
	// missing before it (HistoryLine.Gap), so a history whose lost lines
	// were its first still says so after the next change.
	LostFrom int `json:"lostFrom,omitempty"`
	LostTo   int `json:"lostTo,omitempty"`
}

// processStart and processID tell this process's lines from others'.
var (
	processStart = time.Now()
	processID    = os.Getpid()
)

// Who is the author as this process shows it: a person's change made by
// another todosh while this one ran is "other process".
func (l HistoryLine) Who() todolist.Author {
	if l.By == todolist.ByYou && l.PID != 0 && l.PID != processID && l.At.After(processStart) {
		return todolist.ByOther
	}
	return l.By
}

// Said is What as shown next to its author: lines written before the
// words stopped naming the agent ("agent wrote a list of 3 items") lose
// that first word, so the history never says "agent  agent wrote …".
func (l HistoryLine) Said() string {
	if l.By == todolist.ByAgent {
		return strings.TrimPrefix(l.What, string(todolist.ByAgent)+" ")
	}
	return l.What
}

// SessionHistoryPath is the append-only history file of session id.
func (s *Store) SessionHistoryPath(id string) string {
	return s.Dir + string(os.PathSeparator) + "hist-" + id + ".jsonl"
}

// BadLine is a line of a history file that could not be used; it is
// skipped, and the file is left as it is.
type BadLine struct {
	Line int // 1-based line number in the file
	Err  error
}

// Gap is damage a history shows before one of its lines: the changes
// From..To are missing (none when From is 0), and the file's lines Lines
// (1-based) were unreadable there.
type Gap struct {
	From, To int
	Lines    []int
}

// String says what was lost: "changes 124-244 missing", "line 7
// unreadable", or both.
func (g Gap) String() string {
	var parts []string
	switch {
	case g.From == 0:
	case g.From == g.To:
		parts = append(parts, fmt.Sprintf("change %d missing", g.From))
	default:
		parts = append(parts, fmt.Sprintf("changes %d-%d missing", g.From, g.To))
	}
	switch len(g.Lines) {
	case 0:
	case 1:
		parts = append(parts, fmt.Sprintf("line %d unreadable", g.Lines[0]))
	default:
		parts = append(parts, fmt.Sprintf("lines %s unreadable", lineList(g.Lines)))
	}
	return strings.Join(parts, ", ")
}

// lineList writes line numbers with runs joined: "3-5, 9".
func lineList(ns []int) string {
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(ns[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", ns[i], ns[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// gapBetween is the gap before a line numbered n whose good line before
// it is numbered prev (0: none), with the unreadable lines bad between
// them and badNs the change numbers those lines claim (0: unknown); nil
// when nothing is lost. Before the first good line, change numbers are
// missing only as far as unreadable lines tell: the cap drops old lines
// on purpose.
func gapBetween(prev, n int, bad []int, badNs []int) *Gap {
	g := Gap{Lines: bad}
	from := prev + 1
	if prev == 0 {
		from = n
		for _, k := range badNs {
			if k > 0 && k < from {
				from = k
			}
		}
	}
	if from <= n-1 {
		g.From, g.To = from, n-1
	}
	if g.From == 0 && len(g.Lines) == 0 {
		return nil
	}
	return &g
}

// ParseHistory reads the lines of a history file, of either format. A
// last line without its newline was torn by a crash and is ignored; any
// other line that does not parse, breaks a limit, does not number after
// the line before it, or is a delta whose line before it is missing or
// whose result fails its checksum is returned in bad and skipped.
//
// A line after lost ones (unreadable lines, or change numbers skipped)
// carries the Gap; lines after the last good one are only in bad.
func ParseHistory(data []byte) (lines []HistoryLine, bad []BadLine) {
	no := 0
	var skipped, skippedNs []int // unreadable lines since the last good one
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // torn by a crash mid-write
		}
		raw := data[:i]
		data = data[i+1:]
		no++
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var prev *HistoryLine
		if len(lines) > 0 {
			prev = &lines[len(lines)-1]
		}
		l, err := parseHistoryLine(raw, prev)
		if err == nil && prev != nil && l.N <= prev.N {
			err = fmt.Errorf("change %d after change %d: two lines give one change number", l.N, prev.N)
		}
		if err != nil {
			bad = append(bad, BadLine{Line: no, Err: err})
			skipped = append(skipped, no)
			if w, werr := parseWire(raw); werr == nil {
				skippedNs = append(skippedNs, w.N)
			}
			continue
		}
		prevN := 0
		if prev != nil {
			prevN = prev.N
		}
		if g := gapBetween(prevN, l.N, skipped, skippedNs); g != nil {
			if l.Gap != nil && (g.From == 0 || l.Gap.From < g.From) {
				g.From, g.To = l.Gap.From, max(g.To, l.Gap.To) // the writer knew more was lost
			}
			l.Gap = g
		}
		l.line = no
		skipped, skippedNs = nil, nil
		lines = append(lines, l)
	}
	return lines, bad
}

// parseWire reads one line's fields without applying its delta.
func parseWire(raw []byte) (wireLine, error) {
	var w wireLine
	if len(raw) == 0 || raw[0] != '{' {
		return w, errors.New("not a JSON object")
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return w, fmt.Errorf("parse: %w", err)
	}
	if w.N < 1 {
		return w, fmt.Errorf("change number %d", w.N)
	}
	if w.V != 0 && w.V != historyFormat {
		return w, fmt.Errorf("history format %d: %w (this todosh reads formats 1 and %d)", w.V, ErrUnsupportedVersion, historyFormat)
	}
	return w, nil
}

// parseHistoryLine reads one line; prev is the good line before it (nil:
// none), which a delta line is applied to.
func parseHistoryLine(raw []byte, prev *HistoryLine) (HistoryLine, error) {
	w, err := parseWire(raw)
	if err != nil {
		return HistoryLine{}, err
	}
	l := HistoryLine{N: w.N, At: w.At, By: w.By, What: w.What, Revert: w.Revert, Base: w.Base, Dropped: w.Dropped, PID: w.PID, hash: w.H}
	if w.LostFrom > 0 && w.LostFrom <= w.LostTo && w.LostTo < w.N {
		l.Gap = &Gap{From: w.LostFrom, To: w.LostTo}
	}
	switch {
	case w.V == 0 || w.From == w.N: // format 1, or a snapshot
		if w.Todos != nil {
			l.Todos = *w.Todos
		}
		if w.V != 0 && w.Todos == nil {
			return l, errors.New("snapshot without its list")
		}
		l.from = w.N
	default:
		if prev == nil || prev.N != w.N-1 {
			return l, fmt.Errorf("change %d is stated as a change of change %d, which is missing", w.N, w.N-1)
		}
		if w.From < 1 || w.From > w.N {
			return l, fmt.Errorf("change %d: snapshot %d", w.N, w.From)
		}
		if l.Todos, err = applyDelta(prev.Todos, w.D); err != nil {
			return l, err
		}
		l.from, l.db = w.From, w.DB
	}
	if err := todolist.Validate(l.Todos); err != nil {
		return l, err
	}
	if l.Todos == nil {
		l.Todos = []todolist.Todo{}
	}
	todolist.Normalize(l.Todos)
	if w.V != 0 && w.H != "" && hashString(listHash(l.Todos)) != w.H {
		return l, fmt.Errorf("change %d: %w", w.N, errHashMismatch)
	}
	return l, nil
}

// encodeHistoryLine writes l in format 1, the whole list: how todosh
// wrote every line before format 2 (tests write old files with it).
func encodeHistoryLine(l HistoryLine) ([]byte, error) {
	if l.Todos == nil {
		l.Todos = []todolist.Todo{}
	}
	data, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// lineChain is where a history's delta chain stands after its last line:
// that line's number, its snapshot and the delta bytes since.
type lineChain struct {
	n, from, db int
}

// encodeLinesTo appends to buf (a buffer kept from change to change,
// lineBufs) lines in format 2 after a history whose last line is at (n 0:
// none), whose list is prev. A line is a snapshot when it asks to be, when
// nothing comes before it, or when the chain since the last snapshot is
// snapshotEvery lines or limit delta bytes long; otherwise a delta from
// the line before. It returns the bytes and the chain after.
func encodeLinesTo(buf []byte, at lineChain, prev []todolist.Todo, lines []HistoryLine, limit int) ([]byte, lineChain, error) {
	for i := range lines {
		l := &lines[i]
		w := wireLine{N: l.N, V: historyFormat, At: l.At, By: l.By, What: l.What, Revert: l.Revert, Base: l.Base, Dropped: l.Dropped, PID: l.PID, H: l.hash}
		if l.Gap != nil && l.Gap.From > 0 {
			w.LostFrom, w.LostTo = l.Gap.From, l.Gap.To
		}
		if w.H == "" {
			w.H = hashString(listHash(l.Todos))
		}
		snap := l.snap || l.Base || at.n == 0 || at.from == 0 || l.N-at.from >= snapshotEvery
		if !snap {
			d, err := encodeDelta(prev, l.Todos)
			if err != nil {
				return nil, at, err
			}
			if at.db+len(d) > limit {
				snap = true
			} else {
				w.D, w.From, w.DB = d, at.from, at.db+len(d)
			}
		}
		if snap {
			todos := l.Todos
			if todos == nil {
				todos = []todolist.Todo{}
			}
			w.Todos, w.From, w.DB = &todos, l.N, 0
		}
		var err error
		if buf, err = marshalLine(buf, &w); err != nil {
			return nil, at, err
		}
		buf = append(buf, '\n')
		at = lineChain{n: l.N, from: w.From, db: w.DB}
		prev = l.Todos
	}
	return buf, at, nil
}

// lineBufs keeps the buffers history lines are encoded into: a line is
// written and forgotten, so its buffer serves the next change instead of
// being garbage (a tick's line is a few kilobytes, a snapshot's the list).
var lineBufs = sync.Pool{New: func() any { return new([]byte) }}

// putLineBuf gives a line buffer back, unless a large snapshot made it
// too big to keep.
func putLineBuf(p *[]byte, buf []byte) {
	if cap(buf) <= 256<<10 {
		*p = buf[:0]
		lineBufs.Put(p)
	}
}
