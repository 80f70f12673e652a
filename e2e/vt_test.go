package e2e_test

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// vt is a small model of a terminal screen, enough for golden screens:
// printable text with display widths (CJK and emoji take two cells),
// auto-wrap at the right margin, CR, LF, BS, scrolling into a
// scrollback, cursor up/down/left/right/column, erase in line and erase
// below, save and restore of the cursor, and tmux's ways: a resize as
// tmux's (resize), and a screen cleared from its top-left corner copied
// into the scrollback first (tmux's scroll-on-clear, on by default).
// Colours and modes are ignored.
type vt struct {
	cols, rows int
	grid       [][]string // cells; "" is the right half of a wide character
	wrapped    []bool     // the row continues on the next one (auto-wrap)
	scrollback []string
	x, y       int
	pending    bool // the cursor is past the last column (wrap on the next character)
	savedX     int  // the cursor saved by ESC 7
	savedY     int
}

func newVT(cols, rows int) *vt {
	v := &vt{cols: cols, rows: rows}
	for range rows {
		v.grid = append(v.grid, v.blank())
		v.wrapped = append(v.wrapped, false)
	}
	return v
}

func (v *vt) blank() []string {
	row := make([]string, v.cols)
	for i := range row {
		row[i] = " "
	}
	return row
}

// resize changes the size as tmux does: a width change rewraps every
// line the terminal wrapped and splits every line wider than the new
// width (reflow), the cursor moving with its text, rows added at the top
// going into the scrollback (see reflow); a smaller height first
// deletes rows below the cursor, then pushes rows from the top into the
// scrollback; a greater height adds blank rows at the bottom.
func (v *vt) resize(cols, rows int) {
	if cols != v.cols {
		v.reflow(cols)
	}
	if need := len(v.grid) - rows; need > 0 {
		below := min(len(v.grid)-1-v.y, need)
		v.grid, v.wrapped = v.grid[:len(v.grid)-below], v.wrapped[:len(v.wrapped)-below]
		for range need - below {
			v.scrollback = append(v.scrollback, rowText(v.grid[0]))
			v.grid, v.wrapped = v.grid[1:], v.wrapped[1:]
			v.y--
		}
	}
	for len(v.grid) < rows {
		v.grid, v.wrapped = append(v.grid, v.blank()), append(v.wrapped, false)
	}
	v.rows = rows
	v.x, v.y = min(v.x, cols-1), max(0, min(v.y, rows-1))
}

// reflow lays the screen's lines out again at cols columns.
func (v *vt) reflow(cols int) {
	var grid [][]string
	var wrapped []bool
	cx, cy := v.x, v.y
	for i := 0; i < len(v.grid); i++ {
		// One line: rows joined while the terminal wrapped them.
		var cells []string
		offset := -1 // the cursor's cell in the line
		for {
			if i == v.y {
				offset = len(cells) + v.x
			}
			cells = append(cells, v.grid[i]...)
			if !v.wrapped[i] || i == len(v.grid)-1 {
				break
			}
			i++
		}
		end := len(cells)
		for end > 0 && cells[end-1] == " " {
			end--
		}
		if offset >= 0 {
			end = max(end, offset)
		}
		cells = cells[:end]
		start := len(grid)
		for {
			n := min(cols, len(cells))
			if n < len(cells) && n > 0 && cells[n] == "" {
				n-- // a wide character does not split
			}
			row := append(make([]string, 0, cols), cells[:n]...)
			for len(row) < cols {
				row = append(row, " ")
			}
			grid, wrapped = append(grid, row), append(wrapped, n < len(cells))
			cells = cells[n:]
			if len(cells) == 0 {
				break
			}
		}
		if offset >= 0 {
			cy, cx = start+offset/cols, offset%cols
			for cy >= len(grid) {
				grid, wrapped = append(grid, v.blankOf(cols)), append(wrapped, false)
			}
		}
	}
	// tmux keeps the bottom of the grid, blank rows too: the rows a
	// narrower window adds push rows from the top into the scrollback, and
	// a cursor whose row went there stays on the first row.
	for len(grid) > v.rows {
		v.scrollback = append(v.scrollback, rowText(grid[0]))
		grid, wrapped = grid[1:], wrapped[1:]
		cy--
	}
	if cy < 0 {
		cx, cy = 0, 0
	}
	v.grid, v.wrapped, v.cols, v.x, v.y = grid, wrapped, cols, cx, cy
	v.pending = false
}

func (v *vt) blankOf(cols int) []string {
	row := make([]string, cols)
	for i := range row {
		row[i] = " "
	}
	return row
}

func (v *vt) lineFeed() {
	if v.y == v.rows-1 {
		v.scrollback = append(v.scrollback, rowText(v.grid[0]))
		v.grid = append(v.grid[1:], v.blank())
		v.wrapped = append(v.wrapped[1:], false)
	} else {
		v.y++
	}
}

func (v *vt) write(s string) {
	for len(s) > 0 {
		if m := csi.FindStringSubmatch(s); m != nil {
			v.control(m[1], m[2])
			s = s[len(m[0]):]
			continue
		}
		if s[0] == 0x1b {
			s = s[1:]
			if len(s) > 0 {
				switch s[0] {
				case '7':
					v.savedX, v.savedY = v.x, v.y
				case '8':
					v.x, v.y, v.pending = min(v.savedX, v.cols-1), min(v.savedY, v.rows-1), false
				}
				s = s[1:]
			}
			continue
		}
		cluster, rest, width, _ := uniseg.FirstGraphemeClusterInString(s, -1)
		s = rest
		switch cluster {
		case "\r":
			v.x, v.pending = 0, false
		case "\n", "\r\n":
			if cluster == "\r\n" {
				v.x = 0
			}
			v.lineFeed()
			v.pending = false
		case "\b":
			v.x, v.pending = max(v.x-1, 0), false
		case "\a", "\t":
		default:
			if r, _ := utf8.DecodeRuneInString(cluster); r < 0x20 {
				continue
			}
			if v.pending || v.x+width > v.cols {
				v.wrapped[v.y] = true
				v.x, v.pending = 0, false
				v.lineFeed()
			}
			v.grid[v.y][v.x] = cluster
			for k := 1; k < width; k++ {
				v.grid[v.y][v.x+k] = ""
			}
			v.x += width
			if v.x >= v.cols {
				v.x, v.pending = v.cols-1, true
			}
		}
	}
}

func (v *vt) control(params, final string) {
	if strings.HasPrefix(params, "?") {
		return
	}
	n, err := strconv.Atoi(strings.SplitN(params, ";", 2)[0])
	if err != nil {
		n = 0
	}
	one := max(n, 1)
	v.pending = false
	switch final {
	case "A":
		v.y = max(v.y-one, 0)
	case "B":
		v.y = min(v.y+one, v.rows-1)
	case "C":
		v.x = min(v.x+one, v.cols-1)
	case "D":
		v.x = max(v.x-one, 0)
	case "G":
		v.x = min(one-1, v.cols-1)
	case "K":
		from, to := v.x, v.cols
		switch n {
		case 1:
			from, to = 0, v.x+1
		case 2:
			from = 0
		}
		for i := from; i < to; i++ {
			v.grid[v.y][i] = " "
		}
		if to == v.cols {
			v.wrapped[v.y] = false
		}
	case "J":
		if n == 2 || n == 0 && v.x == 0 && v.y == 0 {
			v.scrollOnClear()
		}
		from := v.y
		if n == 2 {
			from = 0
		}
		for i := v.x; i < v.cols; i++ {
			v.grid[v.y][i] = " "
		}
		v.wrapped[v.y] = false
		for r := from; r < v.y; r++ {
			v.grid[r], v.wrapped[r] = v.blank(), false
		}
		for r := v.y + 1; r < v.rows; r++ {
			v.grid[r], v.wrapped[r] = v.blank(), false
		}
	}
}

// scrollOnClear is tmux's scroll-on-clear: a clear of the whole screen
// first moves its rows, up to the last one written, into the scrollback.
func (v *vt) scrollOnClear() {
	last := -1
	for i, row := range v.grid {
		if rowText(row) != "" {
			last = i
		}
	}
	for i := 0; i <= last; i++ {
		v.scrollback = append(v.scrollback, rowText(v.grid[i]))
	}
}

func rowText(row []string) string { return strings.TrimRight(strings.Join(row, ""), " ") }

// text is the scrollback and the screen, without trailing blank lines.
func (v *vt) text() string {
	lines := append([]string(nil), v.scrollback...)
	for _, row := range v.grid {
		lines = append(lines, rowText(row))
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n") + "\n"
}

// The screen model resizes as tmux does: a narrower window splits long
// lines, moves the cursor with its text and pushes the rows it adds from
// the top into the scrollback (blank rows at the bottom stay), a wider one
// joins what the terminal wrapped, a shorter one drops blank rows below
// the cursor before pushing rows into the scrollback.
func TestVTResize(t *testing.T) {
	v := newVT(10, 4)
	v.write("abcdefgh\r\n12345678901")
	v.resize(4, 4)
	if got := v.text(); got != "abcd\nefgh\n1234\n5678\n901\n" {
		t.Errorf("after narrowing:\n%s", got)
	}
	if v.x != 3 || v.y != 2 || len(v.scrollback) != 2 {
		t.Errorf("cursor at %d,%d after narrowing, want 3,2 (with its text), two rows pushed (the blank row stays)", v.x, v.y)
	}
	v.resize(10, 4)
	if got := v.text(); got != "abcd\nefgh\n1234567890\n1\n" {
		t.Errorf("after widening:\n%s", got)
	}
	w := newVT(10, 6)
	w.write("one\r\ntwo")
	w.resize(10, 2)
	if got := w.text(); got != "one\ntwo\n" || len(w.scrollback) != 0 {
		t.Errorf("a shorter window pushed rows that fit: scrollback %q, text %q", w.scrollback, got)
	}
}
