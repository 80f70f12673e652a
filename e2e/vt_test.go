package e2e_test

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// vt is a small model of a terminal screen, enough for golden screens:
// printable text with display widths (CJK and emoji take two cells),
// auto-wrap at the right margin, CR, LF, BS, scrolling into a
// scrollback, cursor up/down/left/right/column, erase in line and erase
// below. Colours and modes are ignored.
type vt struct {
	cols, rows int
	grid       [][]string // cells; "" is the right half of a wide character
	scrollback []string
	x, y       int
	pending    bool // the cursor is past the last column (wrap on the next character)
}

func newVT(cols, rows int) *vt {
	v := &vt{cols: cols, rows: rows}
	for range rows {
		v.grid = append(v.grid, v.blank())
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

// resize changes the size as a terminal that neither reflows nor keeps
// cut columns would.
func (v *vt) resize(cols, rows int) {
	for i := range v.grid {
		row := v.blank()
		if cols > v.cols {
			row = append(v.grid[i], make([]string, cols-v.cols)...)
			for j := v.cols; j < cols; j++ {
				row[j] = " "
			}
		} else {
			row = v.grid[i][:cols]
		}
		v.grid[i] = row
	}
	v.cols = cols
	for len(v.grid) > rows {
		v.scrollback = append(v.scrollback, rowText(v.grid[0]))
		v.grid = v.grid[1:]
		v.y--
	}
	for len(v.grid) < rows {
		v.grid = append(v.grid, v.blank())
	}
	v.rows = rows
	v.x, v.y = min(v.x, cols-1), max(0, min(v.y, rows-1))
}

func (v *vt) lineFeed() {
	if v.y == v.rows-1 {
		v.scrollback = append(v.scrollback, rowText(v.grid[0]))
		v.grid = append(v.grid[1:], v.blank())
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
	case "J":
		for i := v.x; i < v.cols; i++ {
			v.grid[v.y][i] = " "
		}
		for r := v.y + 1; r < v.rows; r++ {
			v.grid[r] = v.blank()
		}
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
