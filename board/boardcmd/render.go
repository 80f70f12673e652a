package boardcmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/board"
)

// Line is one item in one line: id, status, text, and its claim or
// blockers.
func Line(it *board.Item, now time.Time) string {
	status := string(it.Status)
	if it.Status == board.Claimed && !it.Leased(now) {
		status = "lease ended"
	}
	s := fmt.Sprintf("%s  %-11s %s", it.ID, status, todolist.DisplayLine(it.Text))
	if it.Status == board.Claimed && it.Claim != nil {
		s += fmt.Sprintf("  [%s until %s]", todolist.DisplayLine(it.Claim.Who.String()), it.Claim.Until.Local().Format(time.DateTime))
	}
	if len(it.BlockedBy) > 0 && !it.Closed() {
		s += "  [blocked by " + strings.Join(it.BlockedBy, ", ") + "]"
	}
	return s
}

// Grouped is the board as show and watch draw it: ready, claimed,
// blocked and done (dropped items with done), each group in the board's
// order.
func Grouped(items []board.Item, now time.Time) string {
	get := board.Lookup(items)
	groups := []struct {
		name string
		in   func(*board.Item) bool
	}{
		{"ready", func(it *board.Item) bool { return board.Ready(it, now, get) }},
		{"claimed", func(it *board.Item) bool { return it.Leased(now) }},
		{"blocked", func(it *board.Item) bool {
			return !it.Closed() && !it.Leased(now) && len(board.Blockers(it, get)) > 0
		}},
		{"done", func(it *board.Item) bool { return it.Closed() }},
	}
	var b strings.Builder
	for _, g := range groups {
		var lines []string
		for i := range items {
			if g.in(&items[i]) {
				lines = append(lines, "  "+Line(&items[i], now))
			}
		}
		fmt.Fprintf(&b, "%s (%d)\n", g.name, len(lines))
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// Detail is one item in full, for show ID.
func Detail(it *board.Item) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s\n", it.ID, todolist.DisplayLine(it.Text))
	fmt.Fprintf(&b, "status:     %s\n", it.Status)
	if it.Claim != nil {
		fmt.Fprintf(&b, "claim:      %s (%s) from %s until %s\n", todolist.DisplayLine(it.Claim.Who.String()),
			todolist.DisplayLine(it.Claim.Agent), it.Claim.At.Local().Format(time.DateTime), it.Claim.Until.Local().Format(time.DateTime))
	}
	if len(it.BlockedBy) > 0 {
		fmt.Fprintf(&b, "blocked by: %s\n", strings.Join(it.BlockedBy, ", "))
	}
	if it.Evidence != "" {
		fmt.Fprintf(&b, "evidence:   %s\n", todolist.DisplayLine(it.Evidence))
	}
	if len(it.Receipt) > 0 {
		fmt.Fprintf(&b, "receipt:    %d bytes\n", len(it.Receipt))
	}
	fmt.Fprintf(&b, "created:    %s\n", it.Created.Local().Format(time.DateTime))
	fmt.Fprintf(&b, "updated:    %s\n", it.Updated.Local().Format(time.DateTime))
	for _, n := range it.Notes {
		fmt.Fprintf(&b, "note:       %s %s: %s\n", n.At.Local().Format(time.DateTime), todolist.DisplayLine(n.By), todolist.DisplayLine(n.Text))
	}
	return b.String()
}
