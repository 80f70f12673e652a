package repl

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// chzyer/readline v1.5.1 (the version todosh uses; its maintained fork
// github.com/ergochat/readline cannot be fetched here) decodes ESC[H,
// ESC[F, ESCOH and ESCOF as Home and End, but drops every ESC[N~ key
// except Delete (ESC[3~): the Home and End of tmux and the Linux console
// (ESC[1~, ESC[4~) and of rxvt (ESC[7~, ESC[8~) do nothing. It knows no
// bracketed paste either: the ESC[200~ and ESC[201~ markers are dropped
// and the pasted newlines are Enter, so a pasted block ran line by line.
// Alt-Enter (ESC CR) is plain Enter to it. And it redraws the whole line
// for every rune inserted, so a 10,000-character paste took seconds.
//
// keyFilter sits between the terminal and readline and rewrites those
// keys into ones readline knows, before it sees them.

// Key sequences keyFilter understands.
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
	// bracketedPasteOn and bracketedPasteOff ask the terminal to mark
	// pastes with pasteStart and pasteEnd.
	bracketedPasteOn  = "\x1b[?2004h"
	bracketedPasteOff = "\x1b[?2004l"
)

// newlineMark stands for a line break inside the line being edited (a
// pasted block, or Alt-Enter): readline keeps one line, so the break is
// shown as this symbol and turned back into "\n" when the line is sent.
const newlineMark = '␤'

// pasteMark is a private-use rune keyFilter sends in place of a pasted
// block; the editor's listener swaps it for the block in one redraw.
const pasteMark = '\uE000'

// homeEndKeys maps the Home and End sequences readline drops to Ctrl-A
// and Ctrl-E, which it handles.
var homeEndKeys = map[string]byte{
	"\x1b[1~": 0x01, "\x1b[7~": 0x01,
	"\x1b[4~": 0x05, "\x1b[8~": 0x05,
}

// bulkText is how many printable bytes arriving in one read make a paste
// of their own (a terminal without bracketed paste, or very fast typing):
// they are inserted at once, not rune by rune.
const bulkText = 64

// translateKeys rewrites the bytes typed at the terminal for readline.
// in is what has arrived and not been translated yet; inPaste says a
// bracketed paste is open. It returns what to hand readline, the pasted
// blocks completed (each one pasteMark in out), the bytes to keep for
// the next call (an incomplete sequence at the end), and the paste state.
// A pasted block's line breaks become newlineMark; other control
// characters in it become spaces, so a paste can never act as keys.
func translateKeys(in []byte, inPaste bool, paste *strings.Builder) (out []byte, pastes []string, rest []byte, stillInPaste bool) {
	for len(in) > 0 {
		if inPaste {
			i := bytes.Index(in, []byte(pasteEnd))
			chunk := in
			if i < 0 {
				// Keep a possible start of pasteEnd for the next read.
				keep := partialSuffix(in, pasteEnd)
				if keep == 0 && in[len(in)-1] == '\r' {
					keep = 1 // CR LF split by the read is one break
				}
				chunk, in = in[:len(in)-keep], in[len(in)-keep:]
				pasteText(paste, chunk)
				return out, pastes, in, true
			}
			pasteText(paste, chunk[:i])
			in = in[i+len(pasteEnd):]
			inPaste = false
			pastes = append(pastes, paste.String())
			paste.Reset()
			out = utf8.AppendRune(out, pasteMark)
			continue
		}
		if in[0] == 0x1b {
			switch {
			case bytes.HasPrefix(in, []byte(pasteStart)):
				in, inPaste = in[len(pasteStart):], true
				continue
			case len(in) >= 2 && (in[1] == '\r' || in[1] == '\n'):
				// Alt-Enter: a line break inside the prompt.
				out = utf8.AppendRune(out, newlineMark)
				in = in[2:]
				continue
			}
			if k, n := homeEnd(in); n > 0 {
				out = append(out, k)
				in = in[n:]
				continue
			}
			if isPartialKey(in) {
				return out, pastes, in, false
			}
			out = append(out, in[0])
			in = in[1:]
			continue
		}
		// A run of printable text long enough to be a paste.
		n := printableRun(in)
		if n >= bulkText {
			whole := n
			if n == len(in) {
				// A rune split by the read waits for its other bytes.
				for whole > 0 && !utf8.Valid(in[:whole]) && n-whole < utf8.UTFMax {
					whole--
				}
			}
			if whole > 0 && utf8.Valid(in[:whole]) {
				pastes = append(pastes, string(in[:whole]))
				out = utf8.AppendRune(out, pasteMark)
				in = in[whole:]
				if whole < n { // only the split rune is left
					return out, pastes, in, false
				}
				continue
			}
		}
		if n == 0 {
			n = 1
		}
		out = append(out, in[:n]...)
		in = in[n:]
	}
	return out, pastes, nil, inPaste
}

// pasteText adds pasted bytes to the block being pasted: CRLF, CR and LF
// are one line break each, tabs stay, other control characters become
// spaces.
func pasteText(b *strings.Builder, chunk []byte) {
	s := strings.ReplaceAll(string(chunk), "\r\n", "\n")
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r':
			b.WriteRune(newlineMark)
		case r == '\t':
			b.WriteString("    ")
		case r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
}

// homeEnd recognises the Home and End sequences readline drops.
func homeEnd(in []byte) (key byte, n int) {
	for seq, k := range homeEndKeys {
		if bytes.HasPrefix(in, []byte(seq)) {
			return k, len(seq)
		}
	}
	return 0, 0
}

// isPartialKey reports whether in is the incomplete start of a sequence
// keyFilter rewrites, so it must wait for more bytes.
func isPartialKey(in []byte) bool {
	if len(in) == 1 {
		return true // ESC alone: Alt-Enter, a paste or Home may follow
	}
	for _, seq := range []string{pasteStart, "\x1b[1~", "\x1b[4~", "\x1b[7~", "\x1b[8~"} {
		if len(in) < len(seq) && strings.HasPrefix(seq, string(in)) {
			return true
		}
	}
	return false
}

// partialSuffix is the length of the longest suffix of in that starts seq.
func partialSuffix(in []byte, seq string) int {
	for n := min(len(seq)-1, len(in)); n > 0; n-- {
		if strings.HasPrefix(seq, string(in[len(in)-n:])) {
			return n
		}
	}
	return 0
}

// printableRun is the length of the leading run of in without control
// bytes (UTF-8 continuation bytes count as printable).
func printableRun(in []byte) int {
	for i, c := range in {
		if c < 0x20 || c == 0x7f {
			return i
		}
	}
	return len(in)
}

// keyFilter is the io.ReadCloser readline reads keys from: translateKeys
// over the terminal's input. Pasted blocks wait in pastes until the
// editor's listener takes them, in order.
type keyFilter struct {
	src io.ReadCloser

	buf     []byte // translated, not yet read by readline
	pending []byte // untranslated rest of an escape sequence
	inPaste bool
	paste   strings.Builder

	mu     sync.Mutex
	pastes []string
}

func newKeyFilter(src io.ReadCloser) *keyFilter { return &keyFilter{src: src} }

// Read implements io.Reader for readline's key loop (one goroutine).
func (f *keyFilter) Read(p []byte) (int, error) {
	for len(f.buf) == 0 {
		chunk := make([]byte, 4096)
		n, err := f.src.Read(chunk)
		if n > 0 {
			in := append(f.pending, chunk[:n]...)
			out, pastes, rest, inPaste := translateKeys(in, f.inPaste, &f.paste)
			f.pending, f.inPaste = append([]byte(nil), rest...), inPaste
			if len(pastes) > 0 {
				f.mu.Lock()
				f.pastes = append(f.pastes, pastes...)
				f.mu.Unlock()
			}
			f.buf = out
		}
		if err != nil {
			if len(f.buf) == 0 {
				return 0, err
			}
			break
		}
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}

// Close closes the terminal input, ending readline's key loop.
func (f *keyFilter) Close() error { return f.src.Close() }

// takePaste returns the oldest pasted block not yet inserted.
func (f *keyFilter) takePaste() (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pastes) == 0 {
		return "", false
	}
	p := f.pastes[0]
	f.pastes = f.pastes[1:]
	return p, true
}

// insertPastes is the editor's listener for a pasteMark key: it swaps
// every pasteMark in the line for its pasted block, leaving the cursor
// after the last one.
func (f *keyFilter) insertPastes(line []rune, pos int) ([]rune, int, bool) {
	changed := false
	var out []rune
	newPos := pos
	for i, r := range line {
		if r != pasteMark {
			out = append(out, r)
			continue
		}
		changed = true
		p, _ := f.takePaste()
		block := []rune(p)
		out = append(out, block...)
		if i < pos {
			newPos += len(block) - 1
		}
	}
	if !changed {
		// The mark went elsewhere (the Ctrl-R search line): drop its
		// block, so the next mark gets the next block.
		f.takePaste()
		return nil, 0, false
	}
	return out, max(0, min(newPos, len(out))), true
}

// sentLine turns a line from the editor into what runs: newlineMark
// back into line breaks.
func sentLine(line string) string {
	return strings.ReplaceAll(line, string(newlineMark), "\n")
}
