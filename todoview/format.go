// Package todoview renders a list: the one formatter every list a person
// reads goes through (FormatList, laid out by display width), the list
// block a model reads (FormatListForModel, QuoteForModel) and its inverse
// (DecodeModelList). It does no I/O and imports only todolist and
// textwidth (ARCHITECTURE.md §6).
package todoview

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/todosh/todosh/textwidth"
	"github.com/todosh/todosh/todolist"
)

// noteColumn is where the "(in progress, 1/2)" note starts when the text is
// shorter; longer text just gets two spaces before it.
const noteColumn = 40

// FormatList renders a list exactly as the person and the agent see it: a
// header with progress, then one line per todo with its position, and one
// line per subtask. It is the only formatter: /todo show, the list shown
// after each change, todo_read and the continuation prompt all use it
// (FormatListWidth for a terminal, FormatListForModel for a model). An
// empty list renders as "Todo list is empty". Lines are not wrapped.
func FormatList(todos []todolist.Todo) string { return formatList(todos, 0, oneLine, nil) }

// FormatListForModel is FormatList for a model: every piece of todo text
// (content, evidence) is written by QuoteForModel, so the list a model
// reads cannot contain a '<' or any character that is not ASCII except the
// formatter's own status marks. No todo text can therefore close or imitate
// the delimiters around it, whatever its letters. It is the one encoder of
// todo text for models: the todo context of every prompt, the continuation
// prompt, the model API's system prompt and the todo tools' results.
func FormatListForModel(todos []todolist.Todo) string {
	return formatList(todos, 0, QuoteForModel, nil)
}

// FormatListWidth is FormatList for a terminal cols columns wide: texts
// wrap at word boundaries with a hanging indent under the text, and the
// "(in progress, 1/2)" note goes at the end of the last line when it fits,
// else on a line of its own. Columns are counted by display width, so CJK
// and emoji items align. cols <= 0 wraps nothing; a width below
// textwidth.MinWidth is laid out for textwidth.MinWidth.
func FormatListWidth(todos []todolist.Todo, cols int) string {
	return formatList(todos, cols, oneLine, nil)
}

// FormatListSeen is FormatListWidth with what todosh saw of the work
// (issue 26): when the session shows the agent's work (todolist.Summary.Shows),
// each completed item says whether it has a receipt ("seen: 1 edit,
// 2 commands") or was only reported done ("reported, no receipt"). A nil
// work is FormatListWidth.
func FormatListSeen(todos []todolist.Todo, cols int, work *todolist.Summary) string {
	return formatList(todos, cols, oneLine, work)
}

// formatList is the layout of the list in cols columns (0: unwrapped),
// with text rendering each piece of todo text.
func formatList(todos []todolist.Todo, cols int, text func(string) string, work *todolist.Summary) string {
	if len(todos) == 0 {
		return "Todo list is empty\n"
	}
	if cols > 0 && cols < textwidth.MinWidth {
		cols = textwidth.MinWidth
	}
	var b strings.Builder
	c := todolist.CountTodos(todos)
	fmt.Fprintf(&b, "Todo %d/%d done\n", c.Done(), c.Total)
	for i := range todos {
		writeLines(&b, itemBlock(todos, i, cols, text, work))
	}
	return b.String()
}

// FoldList is FormatListWidth cut to at most maxLines lines (at least the
// header and one more) for the live region of a terminal: when the list
// is too long, done and cancelled items fold first into one line, then
// the open items at the end fold into "… N more". Positions stay those of
// the whole list.
func FoldList(todos []todolist.Todo, cols, maxLines int) string {
	return FoldListSeen(todos, cols, maxLines, nil)
}

// FoldListSeen is FoldList with what todosh saw of the work, as
// FormatListSeen shows it.
func FoldListSeen(todos []todolist.Todo, cols, maxLines int, work *todolist.Summary) string {
	if len(todos) == 0 {
		return FormatListWidth(todos, cols)
	}
	if cols > 0 && cols < textwidth.MinWidth {
		cols = textwidth.MinWidth
	}
	blocks := make([][]string, len(todos))
	n := 1
	for i := range todos {
		blocks[i] = itemBlock(todos, i, cols, oneLine, work)
		n += len(blocks[i])
	}
	c := todolist.CountTodos(todos)
	header := fmt.Sprintf("Todo %d/%d done\n", c.Done(), c.Total)
	if n <= maxLines {
		var b strings.Builder
		b.WriteString(header)
		for _, bl := range blocks {
			writeLines(&b, bl)
		}
		return b.String()
	}
	maxLines = max(maxLines, 2)
	var closed, open []int
	for i, t := range todos {
		if t.IsOpen() {
			open = append(open, i)
		} else {
			closed = append(closed, i)
		}
	}
	var lines []string
	room := maxLines - 2 // the header and the fold line of closed items
	if len(closed) == 0 {
		room++
	}
	shown := 0
	for n, i := range open {
		block := blocks[i]
		reserve := 0
		if n < len(open)-1 {
			reserve = 1 // for "… N more open"
		}
		if len(block)+reserve > room {
			if room-reserve >= 1 || n == len(open)-1 && room >= 1 {
				// Its first line, cut, rather than nothing.
				lines = append(lines, textwidth.Truncate(block[0], cols))
				shown++
			}
			break
		}
		lines = append(lines, block...)
		room -= len(block)
		shown++
	}
	var b strings.Builder
	b.WriteString(header)
	if len(closed) > 0 {
		fmt.Fprintf(&b, "  ✓ %s done or cancelled (folded)\n", todolist.Plural(len(closed), "item"))
	}
	writeLines(&b, lines)
	if more := len(open) - shown; more > 0 {
		fmt.Fprintf(&b, "  … %d more open\n", more)
	}
	return b.String()
}

// itemBlock is the lines of item i of todos: the item, its evidence, its
// subtasks and theirs.
func itemBlock(todos []todolist.Todo, i, cols int, text func(string) string, work *todolist.Summary) []string {
	t := todos[i]
	width := len(fmt.Sprint(len(todos)))
	indent := strings.Repeat(" ", width+3)
	mark := todolist.StatusMarks[t.Status]
	if mark == "" {
		mark = "?"
	}
	prefix := fmt.Sprintf(" %*d. %s ", width, i+1, mark)
	lines := wrapItem(prefix, text(t.Content), cols)
	if note := itemNote(t, work); note != "" {
		last := lines[len(lines)-1]
		lw := textwidth.Width(last)
		switch {
		case cols <= 0 || max(lw, noteColumn)+textwidth.Width(note) <= cols && lw+2 <= noteColumn:
			lines[len(lines)-1] = textwidth.Pad(last, max(noteColumn, lw+2)) + note
		case lw+2+textwidth.Width(note) <= cols:
			lines[len(lines)-1] = last + "  " + note
		default:
			lines = append(lines, wrapItem(hangIndent(prefix, cols), note, cols)...)
		}
	}
	if t.Evidence != "" {
		lines = append(lines, wrapItem(indent+"  evidence: ", text(t.Evidence), cols)...)
	}
	for j, s := range t.Subtasks {
		box := "[ ]"
		if s.Status == todolist.Completed {
			box = "[x]"
		}
		sub := fmt.Sprintf("%s%d.%d %s ", indent, i+1, j+1, box)
		lines = append(lines, wrapItem(sub, text(s.Content), cols)...)
		if s.Evidence != "" {
			lines = append(lines, wrapItem(indent+"      evidence: ", text(s.Evidence), cols)...)
		}
	}
	return lines
}

// hangIndent is the indent of an item's continuation lines: under its text,
// or less when that would leave fewer than 12 columns for the text.
func hangIndent(prefix string, cols int) string {
	n := textwidth.Width(prefix)
	if cols <= 0 {
		return ""
	}
	if cols > 0 && cols-n < 12 {
		n = max(2, cols-12)
		n = min(n, textwidth.Width(prefix))
	}
	return strings.Repeat(" ", n)
}

// wrapItem lays out prefix and text in cols columns (0: one line), the
// text's further lines under the text.
func wrapItem(prefix, text string, cols int) []string {
	if cols <= 0 {
		return []string{prefix + text}
	}
	hang := hangIndent(prefix, cols)
	first := cols - textwidth.Width(prefix)
	parts := textwidth.WrapFirst(text, first, cols-len(hang))
	lines := make([]string, len(parts))
	for i, p := range parts {
		if i == 0 {
			lines[i] = prefix + p
		} else {
			lines[i] = hang + p
		}
	}
	return lines
}

func writeLines(b *strings.Builder, lines []string) {
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
}

// itemNote is the parenthesised note after an item: its status when that is
// not obvious from the mark alone, its subtask progress, and for a
// completed item in a session whose work todosh sees, its receipt.
func itemNote(t todolist.Todo, work *todolist.Summary) string {
	var parts []string
	switch t.Status {
	case todolist.InProgress:
		parts = append(parts, "in progress")
	case todolist.Cancelled:
		parts = append(parts, "cancelled")
	}
	if len(t.Subtasks) > 0 {
		parts = append(parts, fmt.Sprintf("%d/%d", t.DoneSubtasks(), len(t.Subtasks)))
	}
	if n := work.Note(t); n != "" {
		parts = append(parts, n)
	}
	if len(parts) == 0 {
		return ""
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// QuoteForModel writes todo text for a model as a JSON string literal that
// holds printable ASCII only: '"' and '\\' are escaped as JSON escapes them,
// and '<', '>', '&', every control character and every character outside
// ASCII as \uXXXX (a surrogate pair above U+FFFF; a byte that is not UTF-8
// as \ufffd). A model decodes it as JSON; no spelling, look-alike or
// invisible character in the text survives as itself, so the text can end
// neither its quotes, nor its line, nor the block around it.
func QuoteForModel(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r >= 0x20 && r < 0x7f && r != '<' && r != '>' && r != '&':
			b.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, "\\u%04x\\u%04x", r1, r2)
		default:
			fmt.Fprintf(&b, "\\u%04x", r) // an invalid byte comes as U+FFFD
		}
	}
	b.WriteByte('"')
	return b.String()
}

// oneLine keeps a multi-line text on its row so positions stay readable;
// newlines and tabs are shown as spaces, the stored text is unchanged.
func oneLine(s string) string { return todolist.DisplayLine(s) }

// DecodeModelList reads back what FormatListForModel wrote: the list as a
// model decodes it, with each text unquoted and each status taken from its
// mark. It is the oracle of the tests that prove no todo text can change
// the structure a model sees; ids are positions, as todolist.Normalize sets them.
func DecodeModelList(body string) ([]todolist.Todo, error) {
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if len(lines) == 1 && lines[0] == "Todo list is empty" {
		return []todolist.Todo{}, nil
	}
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "Todo ") || !strings.HasSuffix(lines[0], " done") {
		return nil, fmt.Errorf("line 1: no header: %q", todolist.ShortLine(lines[0], 60))
	}
	todos := []todolist.Todo{}
	for n, line := range lines[1:] {
		fail := func(what string) error { return fmt.Errorf("line %d: %s: %q", n+2, what, todolist.ShortLine(line, 60)) }
		rest := strings.TrimLeft(line, " ")
		switch {
		case strings.HasPrefix(rest, "evidence: "):
			text, tail, err := unquoteModel(strings.TrimPrefix(rest, "evidence: "))
			if err != nil || tail != "" || len(todos) == 0 {
				return nil, fail("bad evidence line")
			}
			t := &todos[len(todos)-1]
			if len(t.Subtasks) > 0 {
				t.Subtasks[len(t.Subtasks)-1].Evidence = text
			} else {
				t.Evidence = text
			}
		case strings.Contains(strings.SplitN(rest, " ", 2)[0], "."):
			pos, after, _ := strings.Cut(rest, " ")
			if strings.HasSuffix(pos, ".") { // an item: "3." then its mark
				if pos != fmt.Sprintf("%d.", len(todos)+1) {
					return nil, fail("item out of place")
				}
				mark, quoted, _ := strings.Cut(after, " ")
				var st todolist.Status
				for s, m := range todolist.StatusMarks {
					if m == mark {
						st = s
					}
				}
				text, tail, err := unquoteModel(quoted)
				if st == "" || err != nil || tail != "" && !strings.HasPrefix(strings.TrimLeft(tail, " "), "(") {
					return nil, fail("bad item line")
				}
				todos = append(todos, todolist.Todo{ID: strconv.Itoa(len(todos) + 1), Content: text, Status: st})
				continue
			}
			if len(todos) == 0 || pos != fmt.Sprintf("%d.%d", len(todos), len(todos[len(todos)-1].Subtasks)+1) {
				return nil, fail("subtask out of place")
			}
			st := todolist.Pending
			switch {
			case strings.HasPrefix(after, "[x] "):
				st = todolist.Completed
			case !strings.HasPrefix(after, "[ ] "):
				return nil, fail("bad subtask box")
			}
			text, tail, err := unquoteModel(after[4:])
			if err != nil || tail != "" {
				return nil, fail("bad subtask line")
			}
			t := &todos[len(todos)-1]
			t.Subtasks = append(t.Subtasks, todolist.Subtask{ID: pos, Content: text, Status: st})
		default:
			return nil, fail("not a list line")
		}
	}
	return todos, nil
}

// unquoteModel decodes the JSON string at the start of s and returns the
// rest of s after it.
func unquoteModel(s string) (text, rest string, err error) {
	if !strings.HasPrefix(s, `"`) {
		return "", "", errors.New("no quoted text")
	}
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&text); err != nil {
		return "", "", err
	}
	return text, s[dec.InputOffset():], nil
}
