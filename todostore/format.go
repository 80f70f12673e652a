package todostore

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// statusMarks are the one-character markers of the list format (DESIGN §4).
var statusMarks = map[Status]string{
	Pending:    "○",
	InProgress: "▸",
	Completed:  "✓",
	Cancelled:  "✗",
}

// noteColumn is where the "(in progress, 1/2)" note starts when the text is
// shorter; longer text just gets two spaces before it.
const noteColumn = 40

// FormatList renders a list exactly as the person and the agent see it: a
// header with progress, then one line per todo with its position, and one
// line per subtask. It is the only formatter: /todo show, the list shown
// after each change, todo_read and the continuation prompt all use it. An
// empty list renders as "Todo list is empty".
func FormatList(todos []Todo) string {
	if len(todos) == 0 {
		return "Todo list is empty\n"
	}
	var b strings.Builder
	c := CountTodos(todos)
	fmt.Fprintf(&b, "Todo %d/%d done\n", c.Done(), c.Total)
	width := len(fmt.Sprint(len(todos)))
	for i, t := range todos {
		mark := statusMarks[t.Status]
		if mark == "" {
			mark = "?"
		}
		line := fmt.Sprintf(" %*d. %s %s", width, i+1, mark, oneLine(t.Content))
		if note := itemNote(t); note != "" {
			if pad := noteColumn - utf8.RuneCountInString(line); pad > 2 {
				line += strings.Repeat(" ", pad)
			} else {
				line += "  "
			}
			line += note
		}
		b.WriteString(line)
		b.WriteByte('\n')
		indent := strings.Repeat(" ", width+3)
		if t.Evidence != "" {
			fmt.Fprintf(&b, "%s  evidence: %s\n", indent, oneLine(t.Evidence))
		}
		for j, s := range t.Subtasks {
			box := "[ ]"
			if s.Status == Completed {
				box = "[x]"
			}
			fmt.Fprintf(&b, "%s%d.%d %s %s\n", indent, i+1, j+1, box, oneLine(s.Content))
			if s.Evidence != "" {
				fmt.Fprintf(&b, "%s      evidence: %s\n", indent, oneLine(s.Evidence))
			}
		}
	}
	return b.String()
}

// itemNote is the parenthesised note after an item: its status when that is
// not obvious from the mark alone, and its subtask progress.
func itemNote(t Todo) string {
	var parts []string
	switch t.Status {
	case InProgress:
		parts = append(parts, "in progress")
	case Cancelled:
		parts = append(parts, "cancelled")
	}
	if len(t.Subtasks) > 0 {
		parts = append(parts, fmt.Sprintf("%d/%d", t.DoneSubtasks(), len(t.Subtasks)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// oneLine keeps a multi-line text on its row so positions stay readable;
// newlines and tabs are shown as spaces, the stored text is unchanged.
func oneLine(s string) string { return DisplayLine(s) }

// DisplayLine makes text from an agent, a file or the person safe to print
// as (part of) one terminal line: line breaks, tabs, other control
// characters (ESC above all, which could retitle or clear the terminal) and
// bidirectional overrides each become a space, and a byte that is not UTF-8
// becomes "?". The result is never longer than s, so callers can cut lines
// to a byte limit first. The stored text is unchanged.
func DisplayLine(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || isDisplayControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteByte('?')
		case isDisplayControl(r):
			b.WriteByte(' ')
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// isDisplayControl reports runes a terminal would act on instead of show,
// or that would start a new line in a reader's eyes.
func isDisplayControl(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r)
}

// ShortLine is DisplayLine for one-line summaries and error messages: runs
// of white space also collapse to one space, and the result is cut to at
// most n characters, ending in "…" when cut (n <= 0 cuts nothing).
func ShortLine(s string, n int) string {
	s = strings.Join(strings.Fields(DisplayLine(s)), " ")
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// Plural counts a noun for a message: "1 item", "3 items".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
