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
		if got := jscanStr([]byte(raw)); got != want {
			t.Errorf("jscanStr(%s) = %q, want %q", raw, got, want)
		}
	}
}

// FuzzUnescape checks the string decoding against encoding/json: where
// appendUnescaped says it decoded a string the scanner found, encoding/json
// agrees.
func FuzzUnescape(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		raw := append(append([]byte{'"'}, body...), '"')
		if end, err := jscanString(raw, 0); err != nil || end != len(raw) {
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
