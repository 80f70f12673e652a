package repl

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/todosh/todosh/textwidth"
	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"
)

// spinnerFrames are the status line's spinner, one per tick.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// spinnerTick is how often the status line is redrawn while nothing else
// happens (spinner and elapsed time).
const spinnerTick = 100 * time.Millisecond

// liveRegion is the bottom of the screen during a prompt in a terminal: a
// status line (spinner, elapsed time, what the agent does now) and the
// list, redrawn in place as they change, never copied into the
// scrollback. Lines written through it (the agent's text, tool calls,
// decisions) go above it: the region is erased, the lines written, the
// region drawn again. Outside Start..Stop it passes writes through.
//
// Every region line is cut to the width less one column, so the terminal
// never wraps one, and the region takes at most half the window's rows, so
// drawing it never scrolls a frame into the scrollback. Between frames the
// cursor rests at the start of the region's first line, so erasing clears
// every row from there to the bottom of the window, whatever the terminal
// did to them on a resize (a terminal that reflows, as tmux and most
// emulators do, splits region lines wider than a narrower window). The
// rows are cleared one by one, never with "erase below" from the top-left
// corner: tmux (scroll-on-clear, on by default) copies a screen cleared
// that way into the scrollback, which put every frame there once the
// region had reached the first row (regionErase).
type liveRegion struct {
	out  io.Writer
	size func() (cols, rows int)
	pal  palette
	now  func() time.Time

	mu       sync.Mutex
	active   bool
	drawn    bool // the region is on the screen, the cursor at its start
	started  time.Time
	frame    int
	activity string // the current tool call or the agent's status
	status   string // the runner's: "continuation 2/3", a countdown
	todos    []todolist.Todo
	work     *todolist.Summary // receipts of todos, read when the list was set
	hasList  bool
	stop     chan struct{}
	// suspended is set while todosh is stopped (Ctrl-Z): the region is
	// off the screen, which is the shell's, and not drawn until Resume.
	suspended bool
}

func newLiveRegion(out io.Writer, size func() (int, int), pal palette) *liveRegion {
	return &liveRegion{out: out, size: size, pal: pal, now: time.Now}
}

// Start shows the region with todos and ticks its spinner until Stop.
func (l *liveRegion) Start(todos []todolist.Todo) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.active {
		return
	}
	l.active, l.started, l.frame = true, l.now(), 0
	l.activity, l.status = "", ""
	l.todos, l.hasList = todolist.CloneTodos(todos), len(todos) > 0
	l.stop = make(chan struct{})
	l.redraw()
	go l.tick(l.stop)
}

func (l *liveRegion) tick(stop chan struct{}) {
	t := time.NewTicker(spinnerTick)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			l.mu.Lock()
			if l.active && !l.suspended {
				l.frame++
				l.redraw()
			}
			l.mu.Unlock()
		}
	}
}

// Stop erases the region; what follows is written as plain lines.
func (l *liveRegion) Stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.active {
		return
	}
	l.erase()
	l.active = false
	close(l.stop)
}

// Suspend takes the region off the screen as todosh is stopped, so the
// shell that takes the terminal writes on a clean one.
func (l *liveRegion) Suspend() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.erase()
	l.suspended = true
}

// Resume draws the region again after a stop.
func (l *liveRegion) Resume() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.suspended = false
	if l.active {
		l.redraw()
	}
}

// Active reports whether the region is shown.
func (l *liveRegion) Active() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.active
}

// SetListSeen replaces the list the region shows, with the receipts of
// its completed items (nil: none shown).
func (l *liveRegion) SetListSeen(todos []todolist.Todo, work *todolist.Summary) {
	l.update(func() { l.todos, l.work, l.hasList = todolist.CloneTodos(todos), work, true })
}

// SetActivity says what the agent does now (a tool call, "retrying the
// API (3/10)", "waiting for permission").
func (l *liveRegion) SetActivity(s string) { l.update(func() { l.activity = s }) }

// SetStatus sets the runner's part of the status line.
func (l *liveRegion) SetStatus(s string) { l.update(func() { l.status = s }) }

// Resized redraws the region for the new window size.
func (l *liveRegion) Resized() { l.update(func() {}) }

func (l *liveRegion) update(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f()
	if l.active && !l.suspended {
		l.redraw()
	}
}

// Write writes whole lines above the region.
func (l *liveRegion) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.active {
		return l.out.Write(p)
	}
	l.erase()
	n, err := l.out.Write(p)
	if !l.suspended {
		l.draw()
	}
	return n, err
}

// erase clears the region: the cursor is at its first line.
func (l *liveRegion) erase() {
	if !l.drawn {
		return
	}
	_, rows := l.size()
	io.WriteString(l.out, regionErase(rows))
	l.drawn = false
}

// regionErase clears the row of the cursor and every row below it in a
// window of rows rows (24 if unknown), and puts the cursor back at the
// start of its row: save the cursor, erase the line, cursor down (which
// stops at the last row and never scrolls), …, restore the cursor.
func regionErase(rows int) string {
	if rows <= 0 {
		rows = 24
	}
	var b strings.Builder
	b.WriteString("\r\x1b7\x1b[2K")
	for range rows - 1 {
		b.WriteString("\x1b[B\x1b[2K")
	}
	b.WriteString("\x1b8")
	return b.String()
}

func (l *liveRegion) redraw() {
	l.erase()
	l.draw()
}

// draw writes the region from the cursor's line (at column 0) and moves
// the cursor back to the start of its first line: no line wraps, so the
// lines written are the rows to go up.
func (l *liveRegion) draw() {
	lines := l.lines()
	var b strings.Builder
	for i, line := range lines {
		if i > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString(l.paint(i, line))
	}
	b.WriteString("\r")
	if len(lines) > 1 {
		fmt.Fprintf(&b, "\x1b[%dA", len(lines)-1)
	}
	io.WriteString(l.out, b.String())
	l.drawn = true
}

// paint colours region line i: the status line muted, the list as lists.
func (l *liveRegion) paint(i int, line string) string {
	if i == 0 {
		return l.pal.Muted(line)
	}
	return l.pal.List(line)
}

// lines is the region's content for the current window size, uncoloured:
// the status line, then the list folded so that the whole region takes at
// most half of the window's rows (the status line alone in a window of
// three rows or fewer), every line cut to the width less one column.
func (l *liveRegion) lines() []string {
	cols, rows := l.size()
	if cols <= 0 {
		cols = 80
	}
	if rows <= 0 {
		rows = 24
	}
	width := max(cols-1, 1)
	status := l.statusLine()
	if textwidth.Width(status) > width && l.status != "" {
		// A narrow window: the countdown's seconds matter most.
		status = l.status
	}
	out := []string{textwidth.Truncate(status, width)}
	limit := max(rows/2, 1)
	if room := limit - 1; room > 0 && l.hasList && len(l.todos) > 0 {
		// FoldList needs three lines to fold (the header, the folded done
		// items, "… N more open"); with less room the header says it all.
		list := todoview.FoldListSeen(l.todos, max(width, textwidth.MinWidth), max(room, 3), l.work)
		lines := strings.Split(strings.TrimSuffix(list, "\n"), "\n")
		if room < 3 {
			lines = lines[:1]
		}
		for _, line := range lines {
			out = append(out, textwidth.Truncate(line, width))
		}
	}
	// Never taller than half the window, so a frame never scrolls.
	return out[:min(len(out), limit)]
}

// statusLine is "⠋ 12s · continuation 1/3 · Bash ls -la": the runner's
// status (a countdown) comes before the agent's activity, so a narrow
// window cuts the activity first.
func (l *liveRegion) statusLine() string {
	elapsed := l.now().Sub(l.started).Truncate(time.Second)
	parts := []string{spinnerFrames[l.frame%len(spinnerFrames)] + " " + elapsed.String()}
	if l.status != "" {
		parts = append(parts, l.status)
	}
	if l.activity != "" {
		parts = append(parts, todolist.ShortLine(l.activity, 0))
	} else if l.status == "" {
		parts = append(parts, "working")
	}
	return strings.Join(parts, " · ")
}
