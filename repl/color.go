package repl

import (
	"io"
	"strings"
)

// Colour modes of --color.
const (
	ColorAuto   = "auto"   // in a terminal, unless NO_COLOR is set or TERM=dumb
	ColorAlways = "always" // even in scripts
	ColorNever  = "never"
)

// UseColor decides --color: mode is auto, always or never; tty is whether
// output is a terminal. NO_COLOR (any value, https://no-color.org) and
// TERM=dumb turn auto off; always wins over both.
func UseColor(mode string, tty bool, getenv func(string) string) bool {
	switch mode {
	case ColorAlways:
		return true
	case ColorNever:
		return false
	}
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return tty && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// palette colours todosh's own output. Only the eight basic colours,
// bold and dim are used: terminals map them to their theme, so they read
// on dark and light backgrounds alike (no white, black, yellow or blue
// text). The zero palette (colour off) returns text unchanged.
type palette struct{ on bool }

// SGR codes, one per role.
const (
	sgrDone     = "32"   // green: completed
	sgrActive   = "1;35" // bold magenta: in progress
	sgrMuted    = "2"    // dim: cancelled, notes, tool lines, status
	sgrError    = "1;31" // bold red: errors
	sgrDecision = "1"    // bold: the continuation decision line
	sgrTool     = "36"   // cyan: the agent's tool calls
)

func (p palette) paint(sgr, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + sgr + "m" + s + "\x1b[0m"
}

// Error, Muted, Tool and Decision colour one line of each kind.
func (p palette) Error(s string) string    { return p.paint(sgrError, s) }
func (p palette) Muted(s string) string    { return p.paint(sgrMuted, s) }
func (p palette) Tool(s string) string     { return p.paint(sgrTool, s) }
func (p palette) Decision(s string) string { return p.paint(sgrDecision, s) }

// itemMark splits an item line of todoview.FormatList ("  2. ▸ text")
// at its status mark, or a subtask line ("  2.1 [x] text") at its box:
// what comes before the mark, the mark, and the rest from the space after
// it. Plain string code: a regular expression links the regexp package
// into todosh, whose start-up pays for it.
func itemMark(l string) (pre, mark, rest string, ok bool) {
	i := len(l) - len(strings.TrimLeft(l, " "))
	digits := func(i int) int { // the end of the digits from i
		for i < len(l) && '0' <= l[i] && l[i] <= '9' {
			i++
		}
		return i
	}
	end := digits(i)
	if end == i || end >= len(l) || l[end] != '.' {
		return "", "", "", false
	}
	if strings.HasPrefix(l[end:], ". ") { // an item: one mark, then a space
		for _, m := range []string{"○", "▸", "✓", "✗", "?"} {
			if after := l[end+2:]; strings.HasPrefix(after, m+" ") {
				return l[:end+2], m, after[len(m):], true
			}
		}
		return "", "", "", false
	}
	sub := digits(end + 1) // a subtask: N.M, a space, a box, a space
	if sub == end+1 || !strings.HasPrefix(l[sub:], " ") {
		return "", "", "", false
	}
	for _, m := range []string{"[ ]", "[x]"} {
		if after := l[sub+1:]; strings.HasPrefix(after, m+" ") {
			return l[:sub+1], m, after[len(m):], true
		}
	}
	return "", "", "", false
}

// List colours a formatted list: each mark by its status, a completed or
// cancelled item's line dim after its mark.
func (p palette) List(text string) string {
	if !p.on {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if c := p.Change(l); c != l {
			lines[i] = c
			continue
		}
		pre, mark, rest, ok := itemMark(l)
		if !ok {
			if i == 0 && strings.HasPrefix(l, "Todo ") {
				lines[i] = p.paint("1", strings.TrimSuffix(l, "\n")) + tail(l)
			}
			continue
		}
		switch mark {
		case "✓", "[x]":
			mark = p.paint(sgrDone, mark)
		case "▸":
			mark = p.paint(sgrActive, mark)
			rest = p.paint("1", strings.TrimSuffix(rest, "\n")) + tail(rest)
		case "✗":
			mark = p.paint(sgrMuted, mark)
			rest = p.paint(sgrMuted, strings.TrimSuffix(rest, "\n")) + tail(rest)
		}
		lines[i] = pre + mark + rest
	}
	return strings.Join(lines, "")
}

func tail(s string) string {
	if strings.HasSuffix(s, "\n") {
		return "\n"
	}
	return ""
}

// Change colours a one-line change message by its leading mark.
func (p palette) Change(line string) string {
	if !p.on {
		return line
	}
	for _, m := range []struct{ mark, sgr string }{{"✓", sgrDone}, {"▸", sgrActive}, {"✗", sgrMuted}, {"-", sgrMuted}} {
		if strings.HasPrefix(line, m.mark+" ") {
			return p.paint(m.sgr, m.mark) + line[len(m.mark):]
		}
	}
	return line
}

// paintWriter colours every write with paint (whole lines in, whole
// lines out); with colour off it passes writes through.
type paintWriter struct {
	w     io.Writer
	on    bool
	paint func(string) string
}

func (p paintWriter) Write(b []byte) (int, error) {
	if !p.on {
		return p.w.Write(b)
	}
	if _, err := io.WriteString(p.w, p.paint(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// colorWriter colours what commands print: lists and change lines.
func colorWriter(w io.Writer, pal palette) io.Writer {
	return paintWriter{w, pal.on, pal.List}
}

// errorWriter colours every line written to it as an error.
func errorWriter(w io.Writer, pal palette) io.Writer {
	return paintWriter{w, pal.on, func(s string) string {
		var b strings.Builder
		for _, line := range strings.SplitAfter(s, "\n") {
			b.WriteString(pal.Error(strings.TrimSuffix(line, "\n")) + tail(line))
		}
		return b.String()
	}}
}
