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
	"sync/atomic"

	"github.com/todosh/todosh/todolist"
)

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
	why := "the history is damaged: what is unreadable is skipped and left in the file, the other changes are shown"
	if len(e.Bad) == 0 {
		why = "the history is damaged: the missing changes' lines are lost, the other changes are shown"
	}
	return fmt.Sprintf("%s: %s (%s)", e.Path, strings.Join(parts, "; "), why)
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
}

// historyRead counts the bytes read from history files, for the test
// that a change reads what it needs of one, not the whole file.
var historyRead atomic.Int64

// maxChainBytes bounds how far back readChainEnd looks for the snapshot
// a history's last line is a delta of: a chain is at most snapshotEvery
// lines and the session file's size (at most todolist.MaxFileSize) in deltas.
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

// ItemTexts are the texts, as key makes them, of every item of session
// id's history up to change upto (the lists archived before then are in
// it): what an agent may re-send as finished work
// (continuation.Turn.Known). Lines read despite damage still count. The
// history is read whole: its cost grows with it (BenchmarkItemTexts).
func (s *Store) ItemTexts(id string, upto int, key func(string) string) map[string]bool {
	if upto <= 0 {
		return map[string]bool{}
	}
	lines, _ := s.History(id)
	return ItemTextsIn(lines, upto, key)
}

// ItemTextsIn is ItemTexts of history lines already read.
func ItemTextsIn(lines []HistoryLine, upto int, key func(string) string) map[string]bool {
	texts := map[string]bool{}
	for _, l := range lines {
		if l.N > upto {
			break
		}
		for _, t := range l.Todos {
			texts[key(t.Content)] = true
		}
	}
	return texts
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
