package todostore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/todosh/todosh/todolist"
)

// The work log (ARCHITECTURE.md §3, issue 26): what todosh saw the agent
// do, one JSON line per ended tool call or usage report, in
// work-<id>.jsonl beside the session's history. It is a file of its own
// so tool calls never push list changes out of the history (the history
// caps at 2,000 lines; a turn may make hundreds of calls), and so a call
// costs one append (one write and one fsync), never a rewrite of the
// session file. Each line names the item that was in progress when it
// was written, read from the session file then: receipts and the ledger
// are derived from the log and the list, never stored on the items.

// MaxWorkBytes caps a work log; past it the oldest lines go, down to about
// half, so 10,000 tool calls of ordinary length always fit.
const MaxWorkBytes = 8 << 20

// MaxTokens is the largest usage one report may give; a number above it
// (or below zero) is a broken report, refused.
const MaxTokens = 1_000_000_000_000

// maxWorkText caps a line's tool name and target.
const maxWorkText = 500

// The kinds of work that can make a receipt, as agent.ToolKind names them.
const (
	WorkEdit    = "edit"
	WorkExecute = "execute"
)

// WorkLine is one line of the work log: an ended tool call (Tool set) or
// a usage report (In or Out set).
type WorkLine struct {
	At time.Time `json:"at"`
	// Item is the stable uid of the item in progress when the line was
	// written ("" when none was: unattributed). Next is, when none was,
	// the first open item's uid: what the agent works on next, which a
	// completion straight from pending takes its receipt from (an agent
	// that marks an item only when done; Codex's stream, which shows an
	// item in progress as pending).
	Item string `json:"item,omitempty"`
	Next string `json:"next,omitempty"`

	Tool   string `json:"tool,omitempty"`
	Kind   string `json:"kind,omitempty"`
	Target string `json:"target,omitempty"`
	OK     bool   `json:"ok,omitempty"`
	Exit   *int   `json:"exit,omitempty"`

	In  int64 `json:"in,omitempty"`
	Out int64 `json:"out,omitempty"`

	// Since is set on a usage report an agent gives only at a turn's end
	// (Codex's turn.completed, Gemini's result stats, an ACP prompt
	// response): the time the turn began. Such a report is charged to the
	// items in progress during the turn, not to Item (ChargeTurns).
	// Began is the item in progress when the turn began.
	Since time.Time `json:"since,omitzero"`
	Began string    `json:"began,omitempty"`
	// Msg is the agent's id of the model message a usage report is of,
	// when the report was read from its transcript (the hooks): a message
	// is recorded once, however many stops read it.
	Msg string `json:"msg,omitempty"`

	// Sees is set by a writer that sees the agent's work (a wrapped CLI's
	// stream, an ACP agent, the hooks): the session then shows work, and
	// a completion without a receipt is "done (reported)", even before
	// the agent ran a single command. A line may be only this.
	Sees bool `json:"sees,omitempty"`
}

// IsWork reports whether the line is work a receipt can show: an edit or
// a command that succeeded.
func (l WorkLine) IsWork() bool {
	return l.Tool != "" && l.OK && (l.Kind == WorkEdit || l.Kind == WorkExecute)
}

// WorkPath is the work log of session id.
func (s *Store) WorkPath(id string) string {
	return s.Dir + string(os.PathSeparator) + "work-" + id + ".jsonl"
}

// ErrBadUsage is a usage report with a negative or absurd count: ignored.
var ErrBadUsage = errors.New("usage out of range (negative or above 10^12 tokens): ignored")

// checkWork validates a line before it is written: counts in range, texts
// cut to one short line.
func checkWork(l *WorkLine) error {
	if l.In < 0 || l.Out < 0 || l.In > MaxTokens || l.Out > MaxTokens {
		return ErrBadUsage
	}
	l.Tool = todolist.ShortLine(l.Tool, maxWorkText)
	l.Target = todolist.ShortLine(l.Target, maxWorkText)
	l.Msg = todolist.ShortLine(l.Msg, maxWorkText)
	switch l.Kind {
	case WorkEdit, WorkExecute, "read", "other", "":
	default:
		l.Kind = "other"
	}
	if l.Tool == "" && l.In == 0 && l.Out == 0 && !l.Sees {
		return errors.New("nothing to record")
	}
	return nil
}

// AttributeTo fills l's Item and Next from the list as it is now: the
// item in progress (the first, when the agent keeps several), else the
// first open item as Next.
func AttributeTo(l *WorkLine, todos []todolist.Todo) {
	l.Item, l.Next = "", ""
	for _, t := range todos {
		if t.Status == todolist.InProgress {
			l.Item = t.UID
			return
		}
	}
	for _, t := range todos {
		if t.IsOpen() {
			l.Next = t.UID
			return
		}
	}
}

// AttributeAt fills l's Item and Next from the list as it was at the time
// at, by the history hist (oldest first): the list of the newest change
// made at or before at. Before the first change no item was in progress.
func AttributeAt(l *WorkLine, hist []HistoryLine, at time.Time) {
	l.Item, l.Next = "", ""
	for i := len(hist) - 1; i >= 0; i-- {
		if !hist[i].At.After(at) {
			AttributeTo(l, hist[i].Todos)
			return
		}
	}
}

// RecordWork appends one line to session id's work log, attributed to the
// item in progress in the session file now (a stat while the file is
// unchanged), and returns the line as written. A session without a file
// gets none: the line is recorded unattributed. One write and one fsync;
// no lock: lines are appended whole with O_APPEND, so writers of several
// processes never interleave within a line. A bad line (ErrBadUsage)
// writes nothing.
func (s *Store) RecordWork(id string, l WorkLine) (WorkLine, error) {
	return s.recordWork(id, l, true)
}

// RecordAttributed is RecordWork for a line its caller attributed
// already (AttributeAt: usage read after it was spent).
func (s *Store) RecordAttributed(id string, l WorkLine) (WorkLine, error) {
	return s.recordWork(id, l, false)
}

func (s *Store) recordWork(id string, l WorkLine, attribute bool) (WorkLine, error) {
	if err := checkWork(&l); err != nil {
		return l, err
	}
	if l.At.IsZero() {
		l.At = s.Now()
	}
	if attribute {
		if sess, err := s.ReadShared(id); err == nil {
			AttributeTo(&l, sess.Todos)
		}
	}
	data, err := json.Marshal(l)
	if err != nil {
		return l, err
	}
	if err := s.ensureDirs(); err != nil {
		return l, err
	}
	path := s.WorkPath(id)
	f, err := openWork(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return l, err
	}
	defer f.Close()
	data = append(data, '\n')
	n, err := f.Write(data)
	if err == nil {
		err = syncFile(f)
	}
	if err != nil {
		return l, fmt.Errorf("work log %s: %w", path, err)
	}
	if info, err := f.Stat(); err == nil && info.Size() > MaxWorkBytes && int64(n) <= info.Size() {
		return l, s.capWork(id)
	}
	return l, nil
}

// openWork opens a work log as openHistory opens a history: never through
// a symlink, only a regular file of the user's own.
func openWork(path string, flag int) (*os.File, error) {
	return openOwnFile(path, flag, "work log", "a work log")
}

// capWork keeps the newest half of a work log over its cap, under the
// session's lock, in one atomic rewrite. A line another process appends
// to the old file between the read and the rename is lost: a receipt at
// worst shows one call fewer.
func (s *Store) capWork(id string) error {
	unlock, err := s.lockFile(s.lockPath(id))
	if err != nil {
		return err
	}
	defer unlock()
	path := s.WorkPath(id)
	f, err := openWork(path, os.O_RDONLY)
	if err != nil {
		return err
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil || len(data) <= MaxWorkBytes {
		return err
	}
	cut := len(data) - MaxWorkBytes/2
	if i := bytes.IndexByte(data[cut:], '\n'); i >= 0 {
		cut += i + 1
	}
	if end := bytes.LastIndexByte(data, '\n'); end >= cut {
		err := writeLocked(path, data[cut:end+1])
		s.work.forget(id) // the log it replaced is not held open
		return err
	}
	return nil
}

// WorkLog is a session's work log as read.
type WorkLog struct {
	Lines []WorkLine
	// Bad counts lines that could not be used (not JSON, counts out of
	// range, a time before the line before it): skipped, never a receipt.
	Bad int
}

// Receipts is what a session's work log says of the agent's work, as one
// Store.Receipts call read it. Log and Sum are shared with the store's
// cache (workcache.go): read them, never change them.
type Receipts struct {
	Log WorkLog
	// Sum is Log summed (WorkLog.Summarize): each item's receipt and
	// ledger, and whether the session shows work at all.
	Sum todolist.Summary
	// Recorded says the call wrote the Sees line (see Store.Receipts).
	Recorded bool
}

// Receipts reads session id's work log and sums it: what every list that
// shows receipts, the turn's policy, the hooks' stop gate and
// --require-evidence decide with. No file is an empty log; a torn last
// line (a crash mid-append) is left for the append that ends it; every
// other bad line is counted in Bad and skipped. While the file is
// unchanged a read is one stat, and a log that only grew (this process's
// RecordWork or another's) is read on from where the last read stopped
// (workcache.go).
//
// sees says the caller sees the agent's work: turnstep for a backend that
// implements agent.WorkShower, and the hooks. Such a caller may run before
// the agent has made a single call, when nothing in the log says todosh
// sees this session's work, and lists (in this process and others: todosh
// list, the board, an editor) would count the agent's completions by
// status. So when the log does not show work yet, Receipts records a line
// that is only Sees (Recorded; Sum.Shows is then true). This is the one
// place that writes such a line; lines a seeing writer records carry it
// too (turnstep's workRecorder, hooks' work and recordUsage).
func (s *Store) Receipts(id string, sees bool) (Receipts, error) {
	r, err := s.work.read(s, id)
	if err != nil || !sees || r.Sum.Shows {
		return r, err
	}
	if _, err := s.RecordWork(id, WorkLine{Sees: true}); err != nil {
		return r, err
	}
	r.Sum.Shows, r.Recorded = true, true
	return r, nil
}

// Work is session id's work log as Receipts reads it (shared: never
// change its lines).
func (s *Store) Work(id string) (WorkLog, error) {
	r, err := s.work.read(s, id)
	return r.Log, err
}

// workParser reads a work log's lines in order, a piece of the file at a
// time, keeping what the next line is checked against.
type workParser struct {
	log  WorkLog
	last time.Time // the time of the last line kept
	off  int64     // the bytes taken: through the last whole line
}

// feed parses the whole lines of data, the file's bytes from p.off on. A
// last line without its newline is left for the next piece: torn by a
// crash, or still being appended.
func (p *workParser) feed(data []byte) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		raw := data[:i]
		data = data[i+1:]
		p.off += int64(i + 1)
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var l WorkLine
		if err := json.Unmarshal(raw, &l); err != nil || checkWork(&l) != nil || l.At.IsZero() || l.At.Before(p.last) {
			p.log.Bad++
			continue
		}
		p.last = l.At
		p.log.Lines = append(p.log.Lines, l)
	}
}

// ParseWork reads the lines of a work log; see Store.Receipts.
func ParseWork(data []byte) WorkLog {
	var p workParser
	p.feed(data)
	return p.log
}

// Summarize sums the log per item, a turn-end usage report charged as
// ChargeTurns says.
func (w WorkLog) Summarize() todolist.Summary {
	s := todolist.Summary{Items: map[string]todolist.ItemWork{}, Bad: w.Bad}
	for _, l := range ChargeTurns(w.Lines) {
		addWork(&s, l)
	}
	return s
}

// addWork adds one line, charged (ChargeTurns), to the sum s: Summarize a
// line at a time, so the cache sums only the lines a read added.
func addWork(s *todolist.Summary, l WorkLine) {
	iw := s.Unattributed
	if l.Item != "" {
		iw = s.Items[l.Item]
	}
	iw.In += l.In
	iw.Out += l.Out
	s.Shows = s.Shows || l.Sees
	if l.Tool != "" {
		iw.Calls++
		switch {
		case !l.OK:
			iw.Failed++
		case l.Kind == WorkEdit:
			iw.Edits++
		case l.Kind == WorkExecute:
			iw.Commands++
		}
		if l.Kind == WorkEdit || l.Kind == WorkExecute {
			s.Shows = true
		}
		if l.IsWork() {
			iw.Last = l.Target
			iw.Seen = iw.Seen || l.Item != ""
		}
	}
	if l.Item != "" {
		s.Items[l.Item] = iw
	} else {
		s.Unattributed = iw
	}
	if l.Item == "" && l.Next != "" && l.IsWork() {
		// The next open item's receipt, not its ledger: its calls and
		// tokens stay unattributed.
		nw := s.Items[l.Next]
		nw.Seen, nw.Last = true, l.Target
		if l.Kind == WorkEdit {
			nw.Edits++
		} else {
			nw.Commands++
		}
		s.Items[l.Next] = nw
	}
}

// Succeeded reports whether the log holds a command that succeeded whose
// target is cmd, white space aside: what --require-evidence checks a
// command named as evidence against.
func (w WorkLog) Succeeded(cmd string) bool {
	want := strings.Join(strings.Fields(cmd), " ")
	for _, l := range w.Lines {
		if l.Kind == WorkExecute && l.OK && strings.Join(strings.Fields(l.Target), " ") == want {
			return true
		}
	}
	return false
}
