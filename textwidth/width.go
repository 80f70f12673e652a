// Package textwidth lays text out by terminal display width (Width,
// Truncate, Pad, Wrap, FitLines): grapheme clusters and East Asian Width
// through rivo/uniseg, its only import outside the standard library. Of
// todosh it imports nothing (ARCHITECTURE.md §5).
package textwidth

import (
	"strings"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// MinWidth is the narrowest terminal todosh lays text out for; a smaller
// width is treated as this one.
const MinWidth = 20

// Width is the number of terminal columns s takes: a CJK character or an
// emoji takes two, a combining mark none (Unicode East Asian Width and
// emoji presentation, via uniseg).
func Width(s string) int {
	if n, ok := asciiWidth(s); ok {
		return n
	}
	return uniseg.StringWidth(s)
}

// asciiWidth is the width of text made only of printable characters below
// U+0300 (ASCII and the Latin letters, before the combining marks): one
// column each. ok is false for anything else, which needs uniseg.
func asciiWidth(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 {
			if c < 0x20 || c == 0x7f {
				return 0, false
			}
			n++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r < 0xa0 || r >= 0x300 {
			return 0, false
		}
		n++
		i += size - 1
	}
	return n, true
}

// nextSegment is uniseg.FirstLineSegmentInString with a fast path for
// ASCII text: a word and the spaces after it, the only break
// opportunities of plain ASCII prose that matter for wrapping (uniseg also
// breaks after hyphens; here they stay inside words).
func nextSegment(s string, state int) (seg, rest string, newState int) {
	i := 0
	for i < len(s) && s[i] != ' ' {
		if s[i] >= 0x80 {
			seg, rest, _, newState = uniseg.FirstLineSegmentInString(s, state)
			return seg, rest, newState
		}
		i++
	}
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return s[:i], s[i:], -1
}

// Truncate cuts s to at most cols columns, ending in "…" when cut; it never
// splits a grapheme cluster (an emoji with its modifiers, a letter with its
// accents). cols <= 0 cuts nothing.
func Truncate(s string, cols int) string {
	if cols <= 0 || Width(s) <= cols {
		return s
	}
	var b strings.Builder
	used, state := 0, -1
	rest := s
	for rest != "" {
		var cluster string
		var w int
		cluster, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
		if used+w > cols-1 {
			break
		}
		b.WriteString(cluster)
		used += w
	}
	return b.String() + "…"
}

// Pad appends spaces to s up to cols columns (nothing if it is wider).
func Pad(s string, cols int) string {
	if w := Width(s); w < cols {
		return s + strings.Repeat(" ", cols-w)
	}
	return s
}

// Wrap breaks one line of text into lines of at most cols columns, at the
// break opportunities of Unicode line breaking (after spaces, between CJK
// characters), never inside a word unless the word alone is wider than
// cols, which is then cut between grapheme clusters. Trailing spaces of a
// line are dropped. cols <= 0, or a text that fits, gives one line.
func Wrap(s string, cols int) []string { return WrapFirst(s, cols, cols) }

// WrapFirst is Wrap with a different width for the first line, which follows a
// prefix (an item's number and mark) the other lines are indented under.
func WrapFirst(s string, first, cols int) []string {
	if cols <= 0 || Width(s) <= first {
		return []string{s}
	}
	if first < 1 {
		first = 1
	}
	var lines []string
	var line strings.Builder
	lineW := 0
	limit := first
	flush := func() {
		lines = append(lines, strings.TrimRight(line.String(), " "))
		line.Reset()
		lineW = 0
		limit = cols
	}
	state := -1
	rest := s
	for rest != "" {
		var seg string
		seg, rest, state = nextSegment(rest, state)
		segW := Width(seg)
		// Trailing spaces may hang past the edge: they are dropped.
		visible := segW - (len(seg) - len(strings.TrimRight(seg, " ")))
		if lineW+visible <= limit {
			line.WriteString(seg)
			lineW += segW
			continue
		}
		if lineW > 0 || len(lines) == 0 && limit < cols && visible <= cols {
			// The second case leaves a narrow first line empty rather
			// than cut a word that fits the next one.
			flush()
		}
		if visible <= limit {
			line.WriteString(seg)
			lineW = segW
			continue
		}
		// A word wider than a whole line: cut it by grapheme clusters.
		gstate := -1
		for seg != "" {
			var cluster string
			var w int
			cluster, seg, w, gstate = uniseg.FirstGraphemeClusterInString(seg, gstate)
			if lineW+w > limit && lineW > 0 {
				flush()
			}
			line.WriteString(cluster)
			lineW += w
		}
	}
	if line.Len() > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}

// FitLines wraps every line of text wider than cols at word boundaries,
// so help and tables fit a terminal. A line's further lines hang under its
// second column (the text after the first run of two or more spaces, as
// in "  /help [COMMAND]  list the commands") when that leaves 12 columns,
// else two columns past the line's own indent. cols <= 0 changes nothing.
func FitLines(text string, cols int) string {
	if cols <= 0 {
		return text
	}
	cols = max(cols, MinWidth)
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		body := strings.TrimSuffix(line, "\n")
		if Width(body) <= cols {
			b.WriteString(line)
			continue
		}
		trimmed := strings.TrimLeft(body, " ")
		indent := min(len(body)-len(trimmed), cols/2)
		hangAt := -1
		if gap := strings.Index(trimmed, "  "); gap > 0 {
			col := indent + gap + len(trimmed[gap:]) - len(strings.TrimLeft(trimmed[gap:], " "))
			hangAt = Width(body[:col])
		}
		b.WriteString(FitLineAt(body, cols, hangAt))
	}
	return b.String()
}

// FitLineAt wraps one line (without its newline) wider than cols at word
// boundaries, its further lines hanging at column hang when that leaves 12
// columns, else two columns past the line's own indent; the result ends in
// a newline. Tables use it to hang under a column of their choosing.
func FitLineAt(line string, cols, hang int) string {
	if cols <= 0 || Width(line) <= max(cols, MinWidth) {
		return line + "\n"
	}
	cols = max(cols, MinWidth)
	trimmed := strings.TrimLeft(line, " ")
	indent := min(len(line)-len(trimmed), cols/2)
	hangAt := indent + 2
	if hang > 0 && cols-hang >= 12 {
		hangAt = hang
	}
	var b strings.Builder
	pad := strings.Repeat(" ", hangAt)
	for i, part := range WrapFirst(trimmed, cols-indent, cols-hangAt) {
		if i == 0 {
			b.WriteString(line[:indent])
		} else {
			b.WriteString(pad)
		}
		b.WriteString(part)
		b.WriteByte('\n')
	}
	return b.String()
}
