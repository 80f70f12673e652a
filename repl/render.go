package repl

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/todosh/todosh/textwidth"
	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/continuation"
)

// Limits of what the renderer prints on one line. A reply line longer than
// renderMaxLine is cut into several lines, so a stream without newlines
// cannot grow the buffer without bound; tool calls and notices are one short
// line.
const (
	renderMaxLine  = 16 << 10 // bytes
	renderMaxShort = 120      // characters
	// renderFlushAt is how much output Text gathers before it writes, so a
	// long reply is written as it streams instead of held whole.
	renderFlushAt = 64 << 10
)

// Renderer turns the events of agent turns into whole lines on an
// io.Writer. Every Write it makes ends with a newline, because readline
// redraws its prompt between writes and would erase a partial line. It also
// remembers the last list it showed, so an unchanged list is never printed
// twice. Agents emit from one goroutine; only the list methods (Todos,
// Seen, Changed) may also be called from another, the live view's.
type Renderer struct {
	out     io.Writer
	pending []byte // reply text after the last newline
	maxLine int    // renderMaxLine; tests lower it to reach the cut cheaply

	mu         sync.Mutex               // guards shown, shownTodos, known and seen, and orders list output
	shown      string                   // FormatList of the last list shown or known to the person
	work       func() *todolist.Summary // the work log's receipts; nil: none shown
	shownTodos []todolist.Todo
	known      bool // shown is set
	// seen is the last list the person was shown with its positions
	// (whole, or as the result of their own command): a change line of
	// another process's change ("list reordered") does not say where
	// things are now, so positions still mean this one (Shown).
	seen      []todolist.Todo
	seenKnown bool

	// InPlace shows the agent's status (agent.EventStatus) on one line
	// rewritten in place, as in a terminal; otherwise each new status is a
	// line of its own. The live region, when there is one, shows it
	// instead.
	InPlace  bool
	status   string     // the status shown last, "" when none
	wmu      sync.Mutex // guards statusUp and orders writes
	statusUp bool       // an in-place status line, without newline, is on screen

	// The terminal's part; all zero in a script. live, when set, shows
	// the list and the agent's activity during a prompt; fullList prints
	// a changed list whole (at the end of a prompt) instead of as one
	// change line; cols is the width lists are laid out for.
	live     *liveRegion
	fullList bool
	cols     func() int
	pal      palette
	// errOut receives the lines that say a prompt failed; nil means out.
	errOut io.Writer
}

// NewRenderer returns a Renderer writing to out.
func NewRenderer(out io.Writer) *Renderer { return &Renderer{out: out, maxLine: renderMaxLine} }

// Event renders one event of a turn.
func (r *Renderer) Event(ev agent.Event) {
	switch ev.Kind {
	case agent.EventText:
		r.Text(ev.Text)
	case agent.EventToolCall:
		if ev.Text == "" {
			return // a call's end: its start showed it (agent.ToolCall)
		}
		if r.live != nil {
			r.live.SetActivity(ev.Text)
		}
		r.Flush()
		r.write(r.pal.Tool("  ⏺ "+renderShort(ev.Text)) + "\n")
	case agent.EventTodos:
		r.Todos(ev.Todos)
	case agent.EventPause:
		// The tool call line and the decision line already show the
		// reason; a third line would only repeat it.
	case agent.EventNotice:
		r.Flush()
		r.write(r.pal.Muted("  note: "+renderShort(ev.Text)) + "\n")
	case agent.EventStatus:
		if r.live != nil && r.live.Active() {
			r.live.SetActivity(ev.Text)
			r.status = ev.Text
		} else {
			r.Status(ev.Text)
		}
	}
}

// Status shows the agent's status s in place of the previous one; "" takes
// it away. In place it is one line without newline that the next output
// (or status) overwrites; otherwise a status is printed only when it
// differs from the last one.
func (r *Renderer) Status(s string) {
	s = strings.TrimSpace(s)
	if !r.InPlace {
		if s != "" && s != r.status {
			r.Line("  status: " + renderShort(s))
		}
		r.status = s
		return
	}
	r.status = s
	r.wmu.Lock()
	defer r.wmu.Unlock()
	line := statusClear
	if s != "" {
		line += "  ⟳ " + renderShort(s)
	}
	if s != "" || r.statusUp {
		_, _ = io.WriteString(r.out, line)
	}
	r.statusUp = s != ""
}

// statusClear returns to the start of the line and erases it.
const statusClear = "\r\x1b[2K"

// Text adds a piece of the agent's reply and prints every line it
// completes. CRLF endings print as plain lines, and a line longer than
// renderMaxLine bytes is printed in pieces of at most that size.
func (r *Renderer) Text(s string) {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '\n')
		seg := s
		if i >= 0 {
			seg = s[:i]
		}
		// Take the segment a line at a time: pending never holds more than
		// maxLine+1 bytes, and only the few bytes after a cut are moved,
		// so a line of any length costs constant memory and linear time.
		for len(r.pending)+len(seg) > r.maxLine {
			take := r.maxLine + 1 - len(r.pending)
			r.pending = append(r.pending, seg[:take]...)
			seg = seg[take:]
			cut := renderRuneCut(r.pending, r.maxLine)
			b.WriteString(renderReplyLine(r.pending[:cut]))
			b.WriteByte('\n')
			r.pending = append(r.pending[:0], r.pending[cut:]...)
			if b.Len() >= renderFlushAt {
				r.write(b.String()) // whole lines only, as every write
				b.Reset()
			}
		}
		r.pending = append(r.pending, seg...)
		if i < 0 {
			break
		}
		b.WriteString(renderReplyLine(bytes.TrimSuffix(r.pending, []byte("\r"))))
		b.WriteByte('\n')
		r.pending = r.pending[:0]
		s = s[i+1:]
	}
	r.write(b.String())
}

// Flush prints the reply text that has no newline yet as a line of its own;
// it is called before any other output and at the end of a turn.
func (r *Renderer) Flush() {
	rest := renderReplyLine(bytes.TrimSuffix(r.pending, []byte("\r")))
	r.pending = nil
	if strings.TrimSpace(rest) != "" {
		r.write(rest + "\n")
	}
}

// Line prints one line of todosh's own (a decision, an error), after any
// pending reply text. Newlines inside s are shown as spaces.
func (r *Renderer) Line(s string) {
	r.Flush()
	r.write(r.fit(renderOneLine(s)) + "\n")
}

// Todos shows the list unless it equals the last one shown, and reports
// whether it printed: in the live region while it is shown, else whole in
// a terminal and as one change line in a script.
func (r *Renderer) Todos(todos []todolist.Todo) bool {
	r.Flush()
	return r.show(todos, "", r.fullList)
}

// Changed shows a list that changed, after notice (if any), unless it
// equals the last one shown: in the live region while it is shown, else
// as one line saying what changed. It reports whether it printed. Unlike
// Todos it leaves a partial reply line alone, so the live view can call
// it during a turn.
func (r *Renderer) Changed(todos []todolist.Todo, notice string) bool {
	return r.show(todos, notice, false)
}

func (r *Renderer) show(todos []todolist.Todo, notice string, whole bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	// The same list shows the same text: compared field by field, not
	// formatted, at the end of every turn.
	if r.known && todolist.SameTodos(todos, r.shownTodos) {
		return false
	}
	text := todoview.FormatList(todos)
	if r.known && text == r.shown {
		return false
	}
	if r.live != nil && r.live.Active() {
		// The region shows it; the scrollback gets the list at the end.
		r.live.SetListSeen(todos, r.summary())
		return false
	}
	change := ""
	if r.known && !whole {
		change = todolist.DescribeChange(r.shownTodos, todos)
	}
	prev := r.shownTodos
	r.shown, r.shownTodos, r.known = text, todolist.CloneTodos(todos), true
	if change == "" && len(todos) == 0 && len(prev) == 0 {
		return false
	}
	switch {
	case change != "" && notice != "":
		r.write(renderOneLine(notice) + " " + r.pal.Change(renderOneLine(change)) + "\n")
	case change != "":
		r.write(r.pal.Change(renderOneLine(change)) + "\n")
	default:
		if notice != "" {
			r.write(renderOneLine(notice) + "\n")
		}
		r.write(r.pal.List(todoview.FormatListSeen(todos, r.width(), r.summary())))
		r.seen, r.seenKnown = r.shownTodos, true
	}
	return true
}

// Shown is the list the person last saw with its positions: the last one
// shown whole, or recorded with Seen (a command's own result); ok false
// before any. A change line of another process's change does not count:
// it does not say where things are now. Slash commands resolve positions
// against it (commands.Env.Seen). It is never changed in place.
func (r *Renderer) Shown() (todos []todolist.Todo, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen, r.seenKnown
}

// SetWork gives the renderer the session's work log, so the lists it
// shows say which completed items have a receipt (issue 26).
func (r *Renderer) SetWork(work func() *todolist.Summary) { r.work = work }

// summary is the work log's summary now, nil when there is none.
func (r *Renderer) summary() *todolist.Summary {
	if r.work == nil {
		return nil
	}
	return r.work()
}

// Seen records todos as the list the person already knows, without printing
// it, so that only later changes are shown.
func (r *Renderer) Seen(todos []todolist.Todo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.known && todolist.SameTodos(todos, r.shownTodos) {
		r.seen, r.seenKnown = r.shownTodos, true
		return
	}
	r.shown, r.shownTodos, r.known = todoview.FormatList(todos), todolist.CloneTodos(todos), true
	r.seen, r.seenKnown = r.shownTodos, true
}

// Error prints a line saying a prompt failed, after the reply text shown
// so far, on errOut.
func (r *Renderer) Error(msg string) {
	r.Flush()
	w := r.errOut
	if w == nil {
		w = r.out
	}
	// A terminal that stopped accepting output cannot be told so.
	_, _ = io.WriteString(w, r.pal.Error(r.fit(renderOneLine(msg)))+"\n")
}

// Decision prints the continuation policy's line for a turn; it is empty
// for a conversation that never had a list, where there is nothing to say.
func (r *Renderer) Decision(dec continuation.Decision) {
	if dec.Line == "" {
		return
	}
	r.Flush()
	r.write(r.pal.Decision(r.fit(renderOneLine(dec.Line))) + "\n")
}

// fit wraps one of todosh's own lines at word boundaries to the terminal's
// width, further lines indented, so a long decision or error never breaks
// mid-word where the terminal would cut it; outside a terminal (width 0)
// the line stays whole for programs that read it.
func (r *Renderer) fit(line string) string {
	return strings.TrimSuffix(textwidth.FitLines(line+"\n", r.width()), "\n")
}

// End does nothing: in text, the decision line already said how the
// prompt ended.
func (r *Renderer) End(string) {}

func (r *Renderer) width() int {
	if r.cols == nil {
		return 0
	}
	return r.cols()
}

func (r *Renderer) write(s string) {
	if s == "" {
		return
	}
	r.wmu.Lock()
	defer r.wmu.Unlock()
	if r.statusUp {
		// The status line is erased and the output takes its place; the
		// next status comes back below it.
		s = statusClear + s
		r.statusUp = false
	}
	// A terminal that stopped accepting output cannot be told so.
	_, _ = io.WriteString(r.out, s)
}

// renderRuneCut returns the largest n <= limit that does not split a UTF-8
// sequence of b, so a cut long line stays valid text.
func renderRuneCut(b []byte, limit int) int {
	n := limit
	for n > limit-utf8.UTFMax && n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	if n == 0 || !utf8.RuneStart(b[n]) {
		return limit // not UTF-8 around here; any cut is as good
	}
	return n
}

// renderShort keeps a tool call or remark on one short line.
func renderShort(s string) string { return todolist.ShortLine(s, renderMaxShort) }

// renderOneLine keeps a message on one line and harmless to the terminal:
// line breaks, tabs and other control characters (a stray escape sequence)
// are shown as spaces.
func renderOneLine(s string) string { return todolist.DisplayLine(s) }

// renderReplyLine is one line of the agent's reply made harmless to the
// terminal. Tabs stay (code keeps its indentation); it is never longer than
// line, so the cut to renderMaxLine holds.
func renderReplyLine(line []byte) string {
	if bytes.IndexByte(line, '\t') < 0 {
		return todolist.DisplayLine(string(line))
	}
	parts := strings.Split(string(line), "\t")
	for i, p := range parts {
		parts[i] = todolist.DisplayLine(p)
	}
	return strings.Join(parts, "\t")
}
