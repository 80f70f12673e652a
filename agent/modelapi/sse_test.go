package modelapi

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// sseAll reads every event of r.
func sseAll(r io.Reader) ([]string, error) {
	s := newSSEReader(r)
	var out []string
	for {
		ev, err := s.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(ev))
	}
}

func TestSSE(t *testing.T) {
	long := strings.Repeat("x", 3<<20)
	tests := []struct {
		name, in string
		want     []string
	}{
		{"one event", "data: a\n\n", []string{"a"}},
		{"no space", "data:a\n\n", []string{"a"}},
		{"one space dropped", "data:  a\n\n", []string{" a"}},
		{"multi-line data", "data: a\ndata: b\n\n", []string{"a\nb"}},
		{"comments and other fields", ": ping\n\nevent: message\nid: 7\nretry: 10\ndata: x\n\n", []string{"x"}},
		{"crlf and lone cr", "data: a\r\n\r\ndata: b\r\rdata: c\n\n", []string{"a", "b", "c"}},
		{"cr cr crlf", "data: a\r\r\n", []string{"a"}},
		{"field without colon", "data\n\n", []string{""}},
		{"blank lines only", "\n\n\r\n", nil},
		{"unknown field", "dat: x\n\n", nil},
		{"last event without blank line", "data: a\n\ndata: [DONE]", []string{"a", "[DONE]"}},
		{"last event with one newline", "data: x\n", []string{"x"}},
		{"line over 3 MiB", "data: " + long + "\n\ndata: y\n\n", []string{long, "y"}},
		{"colon in value", "data: {\"a\":\"b:c\"}\n\n", []string{`{"a":"b:c"}`}},
		{"empty input", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				got, err := sseAll(r)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Join(got, "\x00") != strings.Join(tc.want, "\x00") || len(got) != len(tc.want) {
					t.Errorf("events %q, want %q", clip(got), clip(tc.want))
				}
			}
		})
	}
	if _, err := sseAll(iotest.ErrReader(errors.New("reset"))); err == nil || err.Error() != "reset" {
		t.Errorf("read error: %v", err)
	}
}

func clip(ss []string) []string {
	var out []string
	for _, s := range ss {
		if len(s) > 40 {
			s = s[:40] + "…"
		}
		out = append(out, s)
	}
	return out
}

// FuzzSSE checks the parser on any input: it never panics; reading one
// byte at a time gives the same events; and writing the events back as a
// canonical stream parses to the same events again.
func FuzzSSE(f *testing.F) {
	f.Add([]byte("data: a\n\ndata: b\r\ndata: c\r\r: x\n\n"))
	f.Add([]byte("data:\n\ndata\rdata:  x"))
	f.Fuzz(func(t *testing.T, in []byte) {
		events, err := sseAll(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		slow, _ := sseAll(iotest.OneByteReader(bytes.NewReader(in)))
		if strings.Join(events, "\x00|") != strings.Join(slow, "\x00|") || len(events) != len(slow) {
			t.Fatalf("one byte at a time: %q, whole: %q", slow, events)
		}
		var canon strings.Builder
		for _, ev := range events {
			for _, line := range strings.Split(ev, "\n") {
				canon.WriteString("data: " + line + "\n")
			}
			canon.WriteString("\n")
		}
		again, _ := sseAll(strings.NewReader(canon.String()))
		if strings.Join(again, "\x00|") != strings.Join(events, "\x00|") || len(again) != len(events) {
			t.Fatalf("round trip: %q, want %q", again, events)
		}
	})
}

// FuzzStream feeds any bytes to the chunk decoder: it never panics, and when
// it succeeds the text passed on as it streamed equals the message's text.
func FuzzStream(f *testing.F) {
	for _, rep := range []fakeReply{
		{text: []string{"a", "b"}},
		{calls: []fakeCall{{"todo_tick", []string{`{"id":`, `"1.1"}`}}, {"todo_read", nil}}},
	} {
		f.Add([]byte(strings.Join(fakeChunks(rep), "")))
	}
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":{\"a\":1}}}]}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"error\":\"x\"}\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var text strings.Builder
		m, usage, err := decodeStream(bytes.NewReader(in), func(s string) { text.WriteString(s) })
		usageOf(usage) // never a panic, never an error
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error not one line: %q", err)
			}
			return
		}
		if m.Content != text.String() || m.Role != "assistant" {
			t.Fatalf("message %+v, streamed %q", m, text.String())
		}
	})
}

// FuzzScript parses any script: no panic, and a parsed script plays its
// replies with streamed text equal to each reply's text.
func FuzzScript(f *testing.F) {
	f.Add(demoScript)
	f.Add([]byte(`[{"text":"a b","tool_calls":[{"name":"x","arguments":"{"}]}]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := ParseScript(in)
		if err != nil {
			return
		}
		for i := s.Remaining(); i >= 0; i-- {
			var text strings.Builder
			m, err := s.Complete(t.Context(), Request{}, func(p string) { text.WriteString(p) })
			if err != nil || m.Content != text.String() {
				t.Fatalf("played %q as %q: %v", m.Content, text.String(), err)
			}
			for _, c := range m.ToolCalls {
				if c.Function.Name == "" || c.ID == "" {
					t.Fatalf("bad call %+v", c)
				}
			}
		}
	})
}

// endlessData is a server that sends data lines and never the blank line
// that ends the event.
type endlessData struct {
	line []byte
	off  int
}

func (e *endlessData) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], e.line[e.off:])
		n += c
		e.off = (e.off + c) % len(e.line)
	}
	return n, nil
}

func TestSSEBoundsOneEvent(t *testing.T) {
	line := []byte("data: " + strings.Repeat("y", 1<<20-7) + "\n")
	r := newSSEReader(&endlessData{line: line})
	_, err := r.Next()
	if err == nil || !strings.Contains(err.Error(), "event longer than") {
		t.Fatalf("Next() error = %v, want the event bound", err)
	}
}
