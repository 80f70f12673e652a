package clis

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// readAll drains a lineReader: the lines, with "<too long>" for skipped
// ones, and the final error.
func readAll(lr *lineReader) ([]string, error) {
	var out []string
	for {
		line, tooLong, err := lr.next()
		if err != nil {
			return out, err
		}
		if tooLong {
			out = append(out, "<too long>")
			continue
		}
		out = append(out, string(line))
	}
}

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 3*streamBufSize+17)
	cases := []struct {
		name  string
		input string
		max   int
		want  []string
	}{
		{"plain", "a\nbb\n\nccc\n", 100, []string{"a", "bb", "", "ccc"}},
		{"no final newline", "a\nbb", 100, []string{"a", "bb"}},
		{"crlf kept for the parser", "a\r\nb\r\n", 100, []string{"a\r", "b\r"}},
		{"empty", "", 100, nil},
		{"over max skipped", "ok\n" + strings.Repeat("y", 25) + "\nafter\n", 10, []string{"ok", "<too long>", "after"}},
		{"exactly max", strings.Repeat("y", 10) + "\n", 10, []string{strings.Repeat("y", 10)}},
		{"over max at the end", "ok\n" + strings.Repeat("y", 25), 10, []string{"ok", "<too long>"}},
		{"longer than the buffer", "a\n" + long + "\nb\n" + long, 1 << 30, []string{"a", long, "b", long}},
		{"over max and the buffer", "a\n" + long + "\nb\n", streamBufSize + 5, []string{"a", "<too long>", "b"}},
	}
	readers := map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
		"data+EOF": iotest.DataErrReader,
	}
	for _, c := range cases {
		for rname, wrap := range readers {
			if rname == "one byte" && len(c.input) > 1<<20 {
				continue
			}
			t.Run(c.name+"/"+rname, func(t *testing.T) {
				got, err := readAll(&lineReader{r: wrap(strings.NewReader(c.input)), max: c.max})
				if err != io.EOF {
					t.Fatalf("error %v, want io.EOF", err)
				}
				if fmt.Sprint(got) != fmt.Sprint(c.want) {
					t.Errorf("lines %.200q, want %.200q", got, c.want)
				}
			})
		}
	}
}

// TestLineReaderShrinks checks that the buffer grown for a long line is
// given back once the lines are short again.
func TestLineReaderShrinks(t *testing.T) {
	input := strings.Repeat("z", 4*streamBufSize) + "\n" + strings.Repeat("short\n", streamBufSize/3)
	lr := &lineReader{r: strings.NewReader(input), max: MaxLineBytes}
	lines, err := readAll(lr)
	if err != io.EOF || len(lines) != 1+streamBufSize/3 {
		t.Fatalf("%d lines, error %v", len(lines), err)
	}
	if len(lr.buf) > streamBufSize {
		t.Errorf("buffer still %d bytes after short lines", len(lr.buf))
	}
}

func TestLineReaderErrors(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("a\nb\npart"), iotest.ErrReader(boom))
	got, err := readAll(&lineReader{r: r, max: 100})
	if err != boom || fmt.Sprint(got) != "[a b part]" {
		t.Errorf("lines %q, error %v; want [a b part] and boom", got, err)
	}
	// A reader that never gives anything nor an error.
	got, err = readAll(&lineReader{r: emptyReader{}, max: 100})
	if err != io.ErrNoProgress || len(got) != 0 {
		t.Errorf("lines %q, error %v; want io.ErrNoProgress", got, err)
	}
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// TestParseStreamReadError: the lines before a read error are parsed, and
// the error comes back.
func TestParseStreamReadError(t *testing.T) {
	boom := errors.New("boom")
	good := `{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"hello"}}` + "\n"
	var texts []string
	err := ParseStream(io.MultiReader(strings.NewReader(good), iotest.ErrReader(boom)), "test", &CodexParser{}, func(u Update) {
		texts = append(texts, u.Text)
	})
	if err != boom || fmt.Sprint(texts) != "[hello\n]" {
		t.Errorf("texts %q, error %v", texts, err)
	}
}

// TestArenaStringsStay checks that the texts a textArena hands out do not
// change as it hands out more, across blocks and for long texts.
func TestArenaStringsStay(t *testing.T) {
	var a textArena
	var got, want []string
	for i := 0; i < 3*arenaBlock/10; i++ {
		body := strings.Repeat(string(rune('a'+i%26)), i%(arenaMaxText+40))
		raw, _ := json.Marshal(body + fmt.Sprintf(" \"%d\"", i))
		got = append(got, a.text(raw))
		want = append(want, body+fmt.Sprintf(" \"%d\"\n", i))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("text %d became %q, want %q", i, got[i], want[i])
		}
	}
}

func TestTextDecoding(t *testing.T) {
	cases := map[string]string{
		`"plain"`:                   "plain",
		`"ends\n"`:                  "ends\n",
		`"a\"b\\c\/d\te\r\b\f"`:     "a\"b\\c/d\te\r\b\f",
		`"\u00e9\u4e16 \u0041"`:     "é世 A",
		`"\ud83d\ude00 pair"`:       "😀 pair",
		`"\ud83d lone"`:             "\uFFFD lone",
		"\"bad \xff utf8\"":         "bad \uFFFD utf8",
		"\"bad \xff utf8 \\n esc\"": "bad \uFFFD utf8 \n esc",
		`null`:                      "",
		`12`:                        "",
	}
	var a textArena
	for raw, want := range cases {
		if got := a.str([]byte(raw)); got != want {
			t.Errorf("str(%s) = %q, want %q", raw, got, want)
		}
		if got := jsonStr([]byte(raw)); got != want {
			t.Errorf("jsonStr(%s) = %q, want %q", raw, got, want)
		}
	}
}

// FuzzUnescape checks the string decoding against encoding/json: where
// appendUnescaped says it decoded a string the scanner found, encoding/json
// agrees.
func FuzzUnescape(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		raw := append(append([]byte{'"'}, body...), '"')
		if end, err := jsonSkipString(raw, 0); err != nil || end != len(raw) {
			return // not one string: the scanner never hands such a body on
		}
		got, ok := appendUnescaped(nil, body)
		var want string
		err := json.Unmarshal(raw, &want)
		if ok && (err != nil || string(got) != want) {
			t.Fatalf("%q: decoded %q, encoding/json %q (%v)", raw, got, want, err)
		}
		// Unescaped invalid UTF-8 is left out: there the scanner makes one
		// U+FFFD of a run of bad bytes, encoding/json one of each.
		if err == nil && (bytes.IndexByte(body, '\\') >= 0 || utf8.Valid(body)) {
			var a textArena
			if s := a.str(raw); s != want {
				t.Fatalf("%q: arena %q, encoding/json %q", raw, s, want)
			}
		}
	})
}

// endlessLine reads as one line of n bytes of text inside a Claude
// assistant event, then a newline and a normal line, without holding the
// line in memory.
type endlessLine struct {
	n, sent int
	tail    string
}

func newEndlessLine(n int) *endlessLine {
	return &endlessLine{n: n, tail: "\"}]}}\n" + `{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s"}` + "\n"}
}

const endlessHead = `{"type":"assistant","message":{"content":[{"type":"text","text":"`

func (e *endlessLine) Read(p []byte) (int, error) {
	total := len(endlessHead) + e.n + len(e.tail)
	if e.sent >= total {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && e.sent < total {
		switch i := e.sent; {
		case i < len(endlessHead):
			c := copy(p[k:], endlessHead[i:])
			k, e.sent = k+c, e.sent+c
		case i < len(endlessHead)+e.n:
			c := min(len(p)-k, len(endlessHead)+e.n-i)
			for j := range c {
				p[k+j] = 'x'
			}
			k, e.sent = k+c, e.sent+c
		default:
			c := copy(p[k:], e.tail[i-len(endlessHead)-e.n:])
			k, e.sent = k+c, e.sent+c
		}
	}
	return k, nil
}

// TestLongLineBoundedMemory: a 200 MB line is skipped with a notice while
// the reader's buffer never grows past the line limit, and the stream goes
// on after it.
func TestLongLineBoundedMemory(t *testing.T) {
	lr := &lineReader{r: newEndlessLine(200 << 20), max: MaxLineBytes}
	var lines, long int
	for {
		line, tooLong, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if cap(lr.buf) > MaxLineBytes+1 {
			t.Fatalf("buffer grew to %d bytes", cap(lr.buf))
		}
		if tooLong {
			long++
		} else if len(line) > 0 {
			lines++
		}
	}
	if long != 1 || lines != 1 {
		t.Errorf("%d long and %d normal lines, want 1 and 1", long, lines)
	}
	var notes []string
	var end bool
	if err := ParseStream(newEndlessLine(40<<20), "claude", &ClaudeParser{}, func(u Update) {
		if u.Kind == UpdateNotice {
			notes = append(notes, u.Text)
		}
		end = end || u.Kind == UpdateTurnEnd
	}); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "longer than 16 MiB") || !end {
		t.Errorf("notices %q, turn end %v", notes, end)
	}
}

// FuzzLineReader checks the bounded line reader against bytes.Split: the
// same lines in the same order, lines over the limit reported as such
// (and only those), whatever sizes the reads come in, and a buffer that
// never grows past the limit.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), uint8(2), uint8(3))
	f.Add([]byte("{\"type\":\"x\"}\r\n{}\n"), uint8(1), uint8(64))
	f.Add([]byte(strings.Repeat("x", 300)+"\nshort\n"), uint8(7), uint8(40))
	f.Fuzz(func(t *testing.T, data []byte, chunk, maxLen uint8) {
		limit := int(maxLen) + 1
		lr := &lineReader{r: &chunkReader{data: data, n: int(chunk) + 1}, max: limit}
		want := bytes.Split(data, []byte("\n"))
		if len(want) > 0 && len(want[len(want)-1]) == 0 {
			want = want[:len(want)-1] // a final newline ends the last line
		}
		for i := 0; ; i++ {
			line, tooLong, err := lr.next()
			if err == io.EOF {
				if i != len(want) {
					t.Fatalf("%d lines, want %d", i, len(want))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if i >= len(want) {
				t.Fatalf("line %d beyond the %d lines", i, len(want))
			}
			if tooLong != (len(want[i]) > limit) || (!tooLong && !bytes.Equal(line, want[i])) {
				t.Fatalf("line %d = %q (too long %v), want %q", i, line, tooLong, want[i])
			}
			if len(lr.buf) > max(streamBufSize, limit+1) {
				t.Fatalf("buffer of %d bytes for a limit of %d", len(lr.buf), limit)
			}
		}
	})
}

// chunkReader gives data n bytes at a time.
type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.data)
	c.data = c.data[k:]
	return k, nil
}
