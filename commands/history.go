package commands

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/todosh/todosh/textwidth"
	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"

	"github.com/todosh/todosh/todostore"
)

// historyPageSize is how many changes /todo history shows per page.
const historyPageSize = 20

// changeNumber reads the N of /todo history show N and /todo restore N.
func (x *call) changeNumber(usage string) (int, error) {
	w, ok, err := x.args.Next()
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("missing change number (usage: %s; /todo history numbers the changes)", usage)
	}
	n, valid := parseCount(w.Value)
	if !valid || n < 1 {
		return 0, fmt.Errorf("%q is not a change number (usage: %s; /todo history numbers the changes)", w.Value, usage)
	}
	return n, x.noMoreArgs()
}

// history reads this session's history; unreadable lines are reported in
// one line on Err and skipped.
func (x *call) history() ([]todostore.HistoryLine, error) {
	lines, err := x.env.Store.History(x.env.SessionID)
	var herr *todostore.HistoryError
	if errors.As(err, &herr) {
		if x.env.Err != nil {
			fmt.Fprintf(x.env.Err, "%s: %s\n", x.name, oneLine(err.Error()))
		}
		err = nil
	}
	return lines, err
}

// runHistory implements /todo history [PAGE] and /todo history show N.
func runHistory(x *call) error {
	page := 1
	if w, ok, err := x.args.Next(); err != nil {
		return err
	} else if ok && w.Value == "show" {
		return showChange(x)
	} else if ok {
		n, valid := parseCount(w.Value)
		if !valid || n < 1 {
			return fmt.Errorf("%q is neither a page number nor show N (e.g. /todo history 2, /todo history show 5)", w.Value)
		}
		page = n
	}
	if err := x.noMoreArgs(); err != nil {
		return err
	}
	lines, err := x.history()
	if err != nil {
		return err
	}
	if len(lines) == 0 {
		return x.print("This session has no changes yet\n")
	}
	pages := (len(lines) + historyPageSize - 1) / historyPageSize
	if page > pages {
		return pageOutOfRange(page, pages, "the history has", "/todo history")
	}
	return x.print(renderHistory(lines, page, x.env.now(), x.env.width()))
}

// renderHistory is one page of /todo history: newest first, one line a
// change: number, when, who, what. In a window cols wide (0: not a
// terminal) the header wraps at words and a change's words wrap under
// their column, so no row runs past the edge and loses its end.
func renderHistory(lines []todostore.HistoryLine, page int, now time.Time, cols int) string {
	pages := (len(lines) + historyPageSize - 1) / historyPageSize
	var b strings.Builder
	b.WriteString(textwidth.FitLines(fmt.Sprintf("Changes to this session's list (%s, newest first; /todo history show N prints the list after N, /todo restore N brings it back):\n", todolist.Plural(len(lines), "change")), cols))
	hi := len(lines) - (page-1)*historyPageSize
	lo := max(hi-historyPageSize, 0)
	width := len(fmt.Sprint(lines[hi-1].N))
	for i := hi - 1; i >= lo; i-- {
		l := lines[i]
		num, at, who := fmt.Sprintf("%*d", width, l.N), when(now, l.At), string(l.Who())
		row := fmt.Sprintf(" %s  %-12s  %-13s  ", num, at, who)
		if cols > 0 && textwidth.Width(row)+16 > cols {
			// Too narrow for the columns: one space between them.
			row = " " + strings.Join([]string{strings.TrimSpace(num), at, who}, " ") + "  "
		}
		b.WriteString(historyRow(row, oneLine(l.Said()), cols))
		if l.Gap != nil {
			// What the history lost before this change: a revert stops here.
			b.WriteString(textwidth.FitLines(fmt.Sprintf(" %*s  lost from the history: %s\n", width, "⋯", l.Gap), cols))
		}
	}
	b.WriteString(textwidth.FitLines(pageLine(page, pages, "/todo history"), cols))
	return b.String()
}

// historyRow is a change's row: its columns, then its words, which wrap
// at word boundaries under their own column when that leaves them 16
// columns, else on lines of their own indented by four.
func historyRow(columns, words string, cols int) string {
	at := textwidth.Width(columns)
	if cols <= 0 || at+textwidth.Width(words) <= cols {
		return columns + words + "\n"
	}
	cols = max(cols, textwidth.MinWidth)
	indent := at
	var b strings.Builder
	if cols-at >= 16 {
		b.WriteString(columns)
	} else {
		indent = 4
		b.WriteString(strings.TrimRight(columns, " ") + "\n    ")
	}
	for i, part := range textwidth.Wrap(words, cols-indent) {
		if i > 0 {
			b.WriteString("\n" + strings.Repeat(" ", indent))
		}
		b.WriteString(part)
	}
	return b.String() + "\n"
}

// when shows a change's time: the time of day for today, else the date;
// a file written without times gives none.
func when(now, at time.Time) string {
	if at.IsZero() {
		return "time unknown"
	}
	at = at.In(now.Location())
	if y, m, d := at.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return at.Format("15:04:05")
	}
	return at.Format("Jan _2 15:04")
}

// showChange implements /todo history show N.
func showChange(x *call) error {
	n, err := x.changeNumber("/todo history show N")
	if err != nil {
		return err
	}
	lines, err := x.history()
	if err != nil {
		return err
	}
	l, err := todostore.FindChange(lines, n)
	if err != nil {
		return err
	}
	head := textwidth.FitLines(fmt.Sprintf("After change %d (%s, %s: %s):\n", l.N, when(x.env.now(), l.At), l.Who(), oneLine(l.Said())), x.env.width())
	if len(l.Todos) == 0 {
		return x.print(head + "the list was empty\n")
	}
	return x.print(head + todoview.FormatListSeen(l.Todos, x.env.width(), x.work()))
}

// runRevert implements /todo revert: the last change to the list is taken
// back, whoever made it; repeated, it goes one change further back.
func runRevert(x *call) error {
	if err := x.noMoreArgs(); err != nil {
		return err
	}
	sess, took, err := x.env.Store.Revert(x.env.SessionID, todolist.ByYou)
	if errors.Is(err, todostore.ErrNothingToRevert) && took.N > 0 {
		return fmt.Errorf("%w, so taking it back changes nothing (/todo history shows the changes kept, and /todo restore N brings back the list after one of them)", err)
	}
	if errors.Is(err, todostore.ErrNothingToRevert) {
		return fmt.Errorf("%w (this session's history holds no earlier change of the list; /todo history shows it)", err)
	}
	if errors.Is(err, todostore.ErrHistoryGap) {
		return fmt.Errorf("not reverted, nothing changed: %w; /todo history shows the changes kept, and /todo restore N brings back the list after one of them", err)
	}
	if err != nil {
		return err
	}
	return x.printList(oneLine(fmt.Sprintf("Reverted change %d (%s: %s)", took.N, took.Who(), took.Said())), sess)
}

// runRestore implements /todo restore N.
func runRestore(x *call) error {
	n, err := x.changeNumber("/todo restore N")
	if err != nil {
		return err
	}
	sess, changed, err := x.env.Store.Restore(x.env.SessionID, n, todolist.ByYou)
	if err != nil {
		return err
	}
	if !changed {
		return x.print(fmt.Sprintf("The list is already as it was after change %d: nothing to restore\n", n))
	}
	return x.printList(fmt.Sprintf("Restored the list of change %d", n), sess)
}

// moveOne returns list with list[from] moved to index to.
func moveOne[T any](list []T, from, to int) []T {
	v := list[from]
	list = slices.Delete(slices.Clone(list), from, from+1)
	return slices.Insert(list, to, v)
}
