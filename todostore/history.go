package todostore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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

// encodeLines writes lines in format 2 after a history whose last line is
// at (n 0: none), whose list is prev. A line is a snapshot when it asks to
// be, when nothing comes before it, or when the chain since the last
// snapshot is snapshotEvery lines or limit delta bytes long; otherwise a
// delta from the line before. It returns the bytes and the chain after.
func encodeLines(at lineChain, prev []todolist.Todo, lines []HistoryLine, limit int) ([]byte, lineChain, error) {
	return encodeLinesTo(nil, at, prev, lines, limit)
}

// encodeLinesTo is encodeLines appending to buf (a buffer kept from change
// to change, lineBufs).
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

// HistoryError reports a history file that could not be read whole:
// its unreadable lines (Bad), and every place changes are missing (Gaps:
// lines lost, cut or unreadable, and a session file ahead of its
// history).
type HistoryError struct {
	Path string
	Bad  []BadLine
	Gaps []Gap
}

func (e *HistoryError) Error() string {
	var parts []string
	if len(e.Bad) > 0 {
		b := e.Bad[0]
		more := ""
		if len(e.Bad) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(e.Bad)-1)
		}
		parts = append(parts, fmt.Sprintf("line %d unreadable%s: %v", b.Line, more, b.Err))
	}
	var missing []string
	for _, g := range e.Gaps {
		if g.From > 0 {
			missing = append(missing, strings.TrimSuffix(Gap{From: g.From, To: g.To}.String(), " missing"))
		}
	}
	if len(missing) > 0 {
		parts = append(parts, strings.Join(missing, ", ")+" missing")
	}
	return fmt.Sprintf("%s: %s (the history is damaged: what is unreadable is skipped and left in the file, the other changes are shown)", e.Path, strings.Join(parts, "; "))
}

// Missing reports whether the history lost changes (a gap in its
// numbers, or unreadable lines).
func (e *HistoryError) Missing() bool { return len(e.Bad) > 0 || len(e.Gaps) > 0 }

// History reads session id's changes, oldest first. A missing file is an
// empty history. Unreadable lines are skipped and reported as a
// *HistoryError beside the lines that could be read. What the next change
// will write first is shown as written already, numbered as it will be: an
// older file's archive entries, a list on disk no line explains, or a
// change whose line a crash lost.
func (s *Store) History(id string) ([]HistoryLine, error) {
	if err := ValidSessionID(id); err != nil {
		return nil, err
	}
	path := s.SessionHistoryPath(id)
	var lines []HistoryLine
	var err error
	prevN := -1 // the last change of the history read before
	for try := 0; ; try++ {
		lines, err = readHistory(path)
		st, rerr := s.readSession(id)
		if rerr != nil || !st.present {
			break
		}
		var last *HistoryLine
		lastN := 0
		if len(lines) > 0 {
			last = &lines[len(lines)-1]
			lastN = last.N
		}
		more := catchUp(last, st)
		if len(more) > 0 && more[0].Gap != nil && lastN != prevN && try < 100 {
			// Read without the lock: the file is ahead when writers
			// appended their lines after this read of the history. It is
			// read again until it stops growing before anything is
			// called lost.
			prevN = lastN
			continue
		}
		var herr *HistoryError
		if len(more) > 0 && errors.As(err, &herr) {
			// Unreadable lines after the last good one were lost before
			// the list the file holds.
			var after []int
			for _, b := range herr.Bad {
				if last == nil || b.Line > last.line {
					after = append(after, b.Line)
				}
			}
			if len(after) > 0 {
				if more[0].Gap == nil {
					more[0].Gap = &Gap{}
				}
				more[0].Gap.Lines = after
			}
		}
		lines = append(lines, more...)
		break
	}
	var gaps []Gap
	for _, l := range lines {
		if l.Gap != nil {
			gaps = append(gaps, *l.Gap)
		}
	}
	var herr *HistoryError
	switch {
	case errors.As(err, &herr):
		herr.Gaps = gaps
	case err == nil && len(gaps) > 0:
		herr = &HistoryError{Path: path, Gaps: gaps}
		err = herr
	}
	if herr != nil {
		// The next change states the whole list, so the history reads
		// whole again from there.
		s.damaged.Store(id, true)
	}
	return lines, err
}

func readHistory(path string) ([]HistoryLine, error) {
	f, err := openHistory(path, os.O_RDONLY)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 2*MaxHistoryBytes))
	historyRead.Add(int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("read history %s: %w", path, err)
	}
	lines, bad := ParseHistory(data)
	if len(bad) > 0 {
		return lines, &HistoryError{Path: path, Bad: bad}
	}
	return lines, nil
}

// histTail is what a write needs to know of a history file without
// reading it whole: where its chain stands after its newest good line (n
// 0: none), that line's hash, the first line's number, where the last
// complete line ends and the size.
type histTail struct {
	lineChain
	hash   string
	firstN int
	end    int64 // offset after the last newline; a torn rest follows
	Size   int64
	last   *HistoryLine // set only when the history was read whole
}

// historyRead counts the bytes read from history files, for the test
// that a change reads what it needs of one, not the whole file.
var historyRead atomic.Int64

// maxChainBytes bounds how far back readChainEnd looks for the snapshot
// a history's last line is a delta of: a chain is at most snapshotEvery
// lines and the session file's size (at most MaxFileSize) in deltas.
const maxChainBytes = 2*todolist.MaxFileSize + 64<<10

// readChain reads the lines of the history open as f that the chain of
// its last line spans, whose tail is t: from the snapshot it starts at
// (numbered t.from) to the end of the last complete line. It reads
// backwards, each byte once; ok is false when that snapshot is not found
// within maxChainBytes.
func readChain(f *os.File, t histTail) (data []byte, ok bool) {
	head := []byte(`{"n":` + strconv.Itoa(t.from) + `,`)
	from := t.end
	for window := int64(16 << 10); ; window *= 2 {
		if t.end-from > maxChainBytes {
			return nil, false
		}
		next := max(t.end-window, 0)
		more := make([]byte, from-next)
		historyRead.Add(int64(len(more)))
		if _, err := f.ReadAt(more, next); err != nil && err != io.EOF {
			return nil, false
		}
		data = append(more, data...)
		from = next
		// The chain starts at a line that opens with its head: at the
		// file's start or after a newline.
		for i := len(data); i > 0; {
			j := bytes.LastIndex(data[:i], head)
			if j < 0 {
				break
			}
			if j == 0 && from == 0 || j > 0 && data[j-1] == '\n' {
				return data[j:], true
			}
			i = j
		}
		if from == 0 {
			return nil, false
		}
	}
}

// readChainEnd reads the list the history open as f ends with, whose tail
// is t: from the snapshot its last line's chain starts at to that line,
// never the whole file. whole is false when that chain cannot be read
// whole (lines lost or damaged in it); the line returned is then the last
// that could be read, numbered at least t.n.
func readChainEnd(f *os.File, t histTail) (last *HistoryLine, whole bool) {
	if t.n == 0 {
		return nil, true
	}
	broken := &HistoryLine{N: t.n, Todos: []todolist.Todo{}}
	data, ok := readChain(f, t)
	if !ok {
		return broken, false
	}
	lines, bad := ParseHistory(data)
	if len(lines) == 0 {
		return broken, false
	}
	whole = len(bad) == 0 && lines[0].N == t.from && lines[len(lines)-1].N == t.n
	for _, l := range lines[1:] {
		whole = whole && l.Gap == nil
	}
	last = &lines[len(lines)-1]
	last.N = max(last.N, t.n)
	return last, whole
}

// chainIntact reports whether the lines of the chain of the history's
// last line (tail t) are all there, by their first bytes only: each one
// numbered after the one before and stated from the chain's snapshot. A
// change made after one of them was lost or renumbered (a flipped byte)
// states the whole list instead of a delta no reader could apply.
func chainIntact(f *os.File, t histTail) bool {
	if t.n == 0 || t.from == t.n {
		return true
	}
	data, ok := readChain(f, t)
	if !ok {
		return false
	}
	want := t.from
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		n, rest, ok := leadingInt(data, `{"n":`)
		if !ok || n != want {
			return false
		}
		if n > t.from {
			if _, rest, ok = leadingInt(rest, `,"v":`); !ok {
				return false
			}
			if from, _, ok := leadingInt(rest, `,"from":`); !ok || from != t.from {
				return false
			}
		}
		want++
		data = data[i+1:]
	}
	return want == t.n+1
}

// wireHead is the part of a line the tail needs; decoding into it skips
// the list.
type wireHead struct {
	N    int    `json:"n"`
	V    int    `json:"v"`
	From int    `json:"from"`
	DB   int    `json:"db"`
	H    string `json:"h"`
}

// readTail reads the end of the history file open as f, whose stat is
// info: its newest line's number, chain and hash, and the first line's
// number.
func readTail(f *os.File, info os.FileInfo) (histTail, error) {
	t := histTail{Size: info.Size()}
	if t.Size == 0 {
		return t, nil
	}
	for window := int64(4 << 10); ; window *= 2 {
		start := max(t.Size-window, 0)
		buf := make([]byte, t.Size-start)
		historyRead.Add(int64(len(buf)))
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return t, err
		}
		nl := bytes.LastIndexByte(buf, '\n')
		if nl < 0 && start == 0 {
			return t, nil // only a torn line
		}
		if nl >= 0 {
			t.end = start + int64(nl) + 1
			for body := buf[:nl]; len(body) > 0; {
				i := bytes.LastIndexByte(body, '\n')
				if i < 0 && start > 0 {
					break // the line begins before the window
				}
				raw := bytes.TrimSpace(body[i+1:])
				var h wireHead
				if len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &h) == nil && h.N >= 1 && (h.V == 0 || h.V == historyFormat) {
					t.n, t.from, t.db, t.hash = h.N, h.From, h.DB, h.H
					if h.V == 0 {
						t.from, t.db, t.hash = h.N, 0, "" // format 1: a whole list
					}
					t.firstN = firstLineN(f)
					return t, nil
				}
				if i < 0 {
					break
				}
				body = body[:i]
			}
		}
		if start == 0 {
			return t, nil
		}
	}
}

// firstLineN reads the number of the first line from its opening
// `{"n":123,`, which both formats write first; 0 when that line is
// unreadable.
func firstLineN(f *os.File) int {
	var buf [32]byte
	n, _ := f.ReadAt(buf[:], 0)
	v, _, ok := leadingInt(buf[:n], `{"n":`)
	if !ok {
		return 0
	}
	return v
}

// leadingInt reads the number after prefix at the start of b, and what
// follows it.
func leadingInt(b []byte, prefix string) (int, []byte, bool) {
	rest, ok := bytes.CutPrefix(b, []byte(prefix))
	if !ok {
		return 0, b, false
	}
	i := 0
	for i < len(rest) && '0' <= rest[i] && rest[i] <= '9' {
		i++
	}
	v, err := strconv.Atoi(string(rest[:i]))
	if err != nil {
		return 0, b, false
	}
	return v, rest[i:], true
}

// lineHead tells from the first bytes of a line whether it is a change at
// all (it opens with its number) and whether it is a snapshot, which a
// reader can start from: format 1, or format 2 with from equal to n.
func lineHead(b []byte) (snap, ok bool) {
	n, rest, ok := leadingInt(b, `{"n":`)
	if !ok {
		return false, false
	}
	_, rest, v2 := leadingInt(rest, `,"v":`)
	if !v2 {
		return true, true
	}
	from, _, ok := leadingInt(rest, `,"from":`)
	return ok && from == n, true
}

// appendHistory writes buf, the encoded lines of one change, at the end of
// the history open as f, under the session's lock: a torn rest left by a
// crash is cut first, the lines are written whole in one write, and the
// file is synced. added is how many lines buf holds. When the history is
// over its cap it is rewritten without its oldest lines; capped says so.
func (s *Store) appendHistory(f *os.File, t histTail, buf []byte, added int) (capped bool, err error) {
	path := f.Name()
	if t.end < t.Size {
		if err := f.Truncate(t.end); err != nil {
			return false, fmt.Errorf("history %s: cut torn line: %w", path, err)
		}
	}
	if _, err := f.WriteAt(buf, t.end); err != nil {
		return false, fmt.Errorf("history %s: %w", path, err)
	}
	if err := syncFile(f); err != nil {
		return false, fmt.Errorf("history %s: %w", path, err)
	}
	if t.Size == 0 {
		// A new file: its directory entry must be durable too.
		if err := syncDir(path); err != nil {
			return false, err
		}
	}
	count := 0
	if t.n > 0 && t.firstN > 0 {
		count = t.n - t.firstN + 1
	}
	count += added
	if count > MaxHistoryLines || t.end+int64(len(buf)) > MaxHistoryBytes {
		return true, s.capHistory(path)
	}
	return false, nil
}

// capHistory drops the oldest lines of a history over its cap, down to
// about half of both bounds, so the rewrite is rare. What is kept starts
// at a snapshot, so every line kept can be read: the newest one at or
// before the halfway line (a little more than half is kept; the writer
// makes one at least every snapshotEvery lines). Lines are kept as they are,
// not parsed again. A file with a line that is not a change at all
// (garbage, not an object starting with its number) is set aside under a
// new name instead of being replaced.
func (s *Store) capHistory(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("history %s: %w", path, err)
	}
	var ends []int   // offsets just after each newline
	var snaps []bool // whether each line is a snapshot
	bad := false
	for start := 0; start < len(data); {
		i := bytes.IndexByte(data[start:], '\n')
		if i < 0 {
			break // a torn rest is dropped
		}
		snap, ok := lineHead(data[start:])
		if !ok {
			bad = true
		}
		snaps = append(snaps, snap)
		start += i + 1
		ends = append(ends, start)
	}
	if len(ends) == 0 {
		return nil
	}
	// Line k spans ends[k-1] (or 0) to ends[k]; keep the newest lines
	// while both halves of the bounds allow one more.
	lineStart := func(k int) int {
		if k <= 0 {
			return 0
		}
		return ends[k-1]
	}
	end, n := ends[len(ends)-1], len(ends)
	keep := 1
	for keep < n && keep+1 <= MaxHistoryLines/2 && end-lineStart(n-keep-1) <= MaxHistoryBytes/2 {
		keep++
	}
	first := n - keep
	for first > 0 && !snaps[first] {
		first--
	}
	if first == 0 && !bad {
		return nil // no snapshot to start from: nothing can be dropped
	}
	keepFrom := lineStart(first)
	if bad {
		if err := setAside(path); err != nil {
			return err
		}
	}
	return writeLocked(path, data[keepFrom:end])
}

// setAside renames a file that must not be overwritten to path.bad-N.
func setAside(path string) error {
	for i := 1; ; i++ {
		aside := path + ".bad-" + strconv.Itoa(i)
		if _, err := os.Lstat(aside); err == nil {
			continue
		}
		if err := os.Rename(path, aside); err != nil {
			return fmt.Errorf("set aside %s: %w", path, err)
		}
		return nil
	}
}

// RevertTarget returns the index in lines of the change the next
// /todo revert takes back: the newest change of the list that is not
// itself a revert, already reverted, or a starting point; after a revert
// of change K, the newest such change before K, so reverts chain
// backwards. ok is false
// when there is nothing left to take back.
func RevertTarget(lines []HistoryLine) (int, bool) {
	bound := int(^uint(0) >> 1)
	if n := len(lines); n > 0 && lines[n-1].Revert > 0 {
		bound = lines[n-1].Revert
	}
	reverted := map[int]bool{}
	for _, l := range lines {
		if l.Revert > 0 {
			reverted[l.Revert] = true
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if l.N >= bound || l.Revert > 0 || l.Base || reverted[l.N] {
			continue
		}
		if i > 0 && todolist.SameTodos(lines[i-1].Todos, l.Todos) {
			continue // pause, agent id: not a change of the list
		}
		if i == 0 && (l.N != 1 || len(l.Todos) == 0) {
			return 0, false // what came before it is not kept
		}
		return i, true
	}
	return 0, false
}

// before is the list as it was before lines[i]: the line before it, or
// the empty list of a new session.
func before(lines []HistoryLine, i int) []todolist.Todo {
	if i == 0 {
		return []todolist.Todo{}
	}
	return todolist.CloneTodos(lines[i-1].Todos)
}

// ErrNothingToRevert is returned by Revert when no change is left to take
// back.
var ErrNothingToRevert = errors.New("nothing to revert")

// ErrHistoryGap is returned by Revert when taking back the last change
// would go past changes the history lost: what the list was before them
// is not known. The error names the change and the gap.
var ErrHistoryGap = errors.New("the history has a gap")

// gapFrom is the first gap in lines[i:] (nil: none), with the change it
// stands before.
func gapFrom(lines []HistoryLine, i int) (*Gap, int) {
	for ; i < len(lines); i++ {
		if lines[i].Gap != nil {
			return lines[i].Gap, lines[i].N
		}
	}
	return nil, 0
}

// Revert takes back the last change of the list (see RevertTarget) as a
// new change by, and returns the change it took back. It never goes past
// a gap in the history (ErrHistoryGap): the list before lost changes is
// not known.
func (s *Store) Revert(id string, by todolist.Author) (*Session, HistoryLine, error) {
	var took HistoryLine
	sess, changed, err := s.commit(id, by, true, func(sess *Session, lines []HistoryLine) error {
		i, ok := RevertTarget(lines)
		from := i
		if !ok {
			from = 0
		}
		if g, at := gapFrom(lines, from); g != nil {
			return fmt.Errorf("%w before change %d (%s): what the list was before it is not known", ErrHistoryGap, at, g)
		}
		if !ok {
			return ErrNothingToRevert
		}
		took = lines[i]
		sess.Todos = before(lines, i)
		sess.revertOf = took.N
		sess.Note(fmt.Sprintf("reverted change %d (%s)", took.N, todolist.ShortLine(took.Said(), 60)))
		return nil
	})
	if err == nil && !changed {
		err = fmt.Errorf("%w: the list is already as it was before change %d", ErrNothingToRevert, took.N)
	}
	return sess, took, err
}

// FindChange returns the line of change n, or an error naming the changes
// that are kept.
func FindChange(lines []HistoryLine, n int) (HistoryLine, error) {
	for _, l := range lines {
		if l.N == n {
			return l, nil
		}
	}
	if len(lines) == 0 {
		return HistoryLine{}, fmt.Errorf("no change %d: this session has no history yet", n)
	}
	return HistoryLine{}, fmt.Errorf("no change %d: the history holds changes %d-%d", n, lines[0].N, lines[len(lines)-1].N)
}

// Restore makes the list what it was after change n, as a new change by.
func (s *Store) Restore(id string, n int, by todolist.Author) (*Session, bool, error) {
	return s.commit(id, by, true, func(sess *Session, lines []HistoryLine) error {
		l, err := FindChange(lines, n)
		if err != nil {
			return err
		}
		sess.Todos = todolist.CloneTodos(l.Todos)
		sess.Note(fmt.Sprintf("restored the list of change %d", n))
		return nil
	})
}

// LastList returns the newest non-empty list in session id's history, for
// a session whose current list is empty; ok is false when there is none.
func (s *Store) LastList(id string) (HistoryLine, bool) {
	lines, _ := s.History(id)
	for i := len(lines) - 1; i >= 0; i-- {
		if len(lines[i].Todos) > 0 {
			return lines[i], true
		}
	}
	return HistoryLine{}, false
}

// LastChange returns the newest line of session id's history; ok is false
// when it has none.
func (s *Store) LastChange(id string) (HistoryLine, bool) {
	lines, _ := s.History(id)
	if len(lines) == 0 {
		return HistoryLine{}, false
	}
	return lines[len(lines)-1], true
}

// LoadShown reads the listed session e for showing: a session whose list
// is empty but whose history holds lists shows its last non-empty list,
// marked Archived.
func (s *Store) LoadShown(e Entry) (*Session, error) {
	sess, err := s.LoadEntry(e)
	if err != nil || len(sess.Todos) > 0 {
		return sess, err
	}
	if l, ok := s.LastList(e.ID); ok {
		sess.Todos, sess.Archived = l.Todos, true
	}
	return sess, nil
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

// usableHistory is History for a change made from it (revert, restore):
// lines that cannot be read are skipped, but a history that cannot be used
// at all (refused, unreadable) is an error rather than an empty history.
func (s *Store) usableHistory(id string) ([]HistoryLine, error) {
	lines, err := s.History(id)
	var he *HistoryError
	if err != nil && !errors.As(err, &he) {
		return nil, err
	}
	return lines, nil
}

// appendLines appends buf, the encoding of lines, to the history h a
// change found, and keeps its new end for the next change (cache.go):
// the history is not read again while this process writes it.
func (s *Store) appendLines(id string, h historyEnd, buf []byte, chain lineChain, lines []HistoryLine) error {
	capped, err := s.appendHistory(h.f, h.tail, buf, len(lines))
	if err != nil {
		return err
	}
	if h.damaged {
		s.damaged.Delete(id)
	}
	if capped {
		return nil
	}
	if info, err := h.f.Stat(); err == nil {
		last := lines[len(lines)-1]
		after := histTail{lineChain: chain, hash: last.hash, firstN: h.tail.firstN, end: h.tail.end + int64(len(buf)), Size: h.tail.end + int64(len(buf))}
		if after.firstN == 0 {
			after.firstN = lines[0].N
		}
		s.cache.setHistTail(id, idOf(info), after)
	}
	return nil
}
