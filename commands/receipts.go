package commands

import (
	"fmt"
	"strings"
	"time"

	"github.com/todosh/todosh/textwidth"
	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/todostore"
)

// work is what the session's work log shows of the agent's work (issue
// 26), for lists that say which completed items have a receipt; nil when
// the log cannot be read, which is said on Err and shows lists without
// receipts. Bad lines are skipped and said once.
func (x *call) work() *todolist.Summary {
	r, err := x.env.Store.Receipts(x.env.SessionID, false)
	if err != nil {
		if x.env.Err != nil {
			fmt.Fprintf(x.env.Err, "%s: receipts not shown: %s\n", x.name, oneLine(err.Error()))
		}
		return nil
	}
	sum := r.Sum
	if sum.Bad > 0 && x.env.Err != nil {
		fmt.Fprintf(x.env.Err, "%s: %s of the work log skipped (not a tool call or usage todosh wrote)\n", x.name, todolist.Plural(sum.Bad, "bad line"))
	}
	return &sum
}

// runCost implements /todo cost: the ledger of issue 26, one row per item
// in list order (items no longer on the list after them), then what was
// spent while no item was in progress, then the total, which the rows
// above add up to exactly.
func runCost(x *call) error {
	if err := x.noMoreArgs(); err != nil {
		return err
	}
	l, err := x.env.Store.Ledger(x.env.SessionID, x.env.now())
	if err != nil {
		return err
	}
	for _, n := range l.Notices {
		if x.env.Err != nil {
			fmt.Fprintf(x.env.Err, "%s: %s\n", x.name, n)
		}
	}
	return x.print(FormatLedger(l, x.env.width()))
}

// FormatLedger renders a ledger as /todo cost prints it, cols wide (0:
// unlimited): per row its position and mark, its text, then time in
// progress, tokens in and out, and tool calls.
func FormatLedger(l todostore.Ledger, cols int) string {
	var b strings.Builder
	b.WriteString("Cost by item (tokens as the agent reported them; time in progress from the list's changes)\n")
	cells := func(c todostore.Cost) string {
		// "—" is one column but three bytes: pad by columns, not by
		// fmt's bytes, so every row's cells line up.
		d := duration(c.InProgress)
		return fmt.Sprintf("%s%s  in %9s  out %8s  %s", strings.Repeat(" ", max(0, 8-textwidth.Width(d))), d,
			todolist.Thousands(c.In), todolist.Thousands(c.Out), todolist.Plural(c.Calls, "tool call"))
	}
	width := len(fmt.Sprint(len(l.Items)))
	// An item's head is " N. ✓ ", width+5 columns; the other rows' heads
	// take as many, so their texts and cells line up with the items'.
	headCols := width + 5
	for _, c := range l.Items {
		head := " " + strings.Repeat(" ", width-1) + "—    "
		if c.Pos > 0 {
			head = fmt.Sprintf(" %*d. %s ", width, c.Pos, todolist.Mark(c.Status))
		}
		text := c.Content
		if c.Pos == 0 {
			text = "(no longer on the list) " + text
		}
		b.WriteString(costLine(textwidth.Pad(head, headCols), text, cells(c), cols))
	}
	b.WriteString(costLine(textwidth.Pad(" ", headCols), "unattributed (no item in progress)", cells(l.Unattributed), cols))
	b.WriteString(costLine(textwidth.Pad(" ", headCols), "total", cells(l.Total), cols))
	return b.String()
}

// costLine is one row: head and text cut to leave room for the cells.
func costLine(head, text, cells string, cols int) string {
	const textCols = 36
	t := textwidth.Pad(textwidth.Truncate(todolist.DisplayLine(text), textCols), textCols)
	line := head + t + "  " + cells
	if cols > 0 {
		line = textwidth.Truncate(line, cols-1)
	}
	return line + "\n"
}

// duration is a short duration: 45s, 12m05s, 3h02m.
func duration(d time.Duration) string {
	switch {
	case d <= 0:
		return "—"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
