package clis

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
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

// TestTextDecoding: a JSON string's text as encoding/json decodes it,
// "" for any other value; as a message, with a newline at its end.
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
	for raw, want := range cases {
		if got := jsonStr([]byte(raw)); got != want {
			t.Errorf("jsonStr(%s) = %q, want %q", raw, got, want)
		}
		if want != "" && !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		if got := jsonText([]byte(raw)); got != want {
			t.Errorf("jsonText(%s) = %q, want %q", raw, got, want)
		}
	}
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
