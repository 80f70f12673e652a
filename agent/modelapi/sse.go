package modelapi

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// maxSSEEvent bounds the data of one event. Lines may be of any length up to
// it (a tool call's arguments can be large), but a server that never ends a
// line cannot exhaust memory.
const maxSSEEvent = 64 << 20

// sseReader reads the data of server-sent events from a stream. It is pure:
// bytes in, event data out, no knowledge of what the data means.
type sseReader struct {
	br      *bufio.Reader
	line    []byte // reused buffer for lines longer than br's buffer
	rest    []byte // what follows a lone CR in the line last read
	spare   []byte // the other buffer rest alternates with
	hasRest bool
	data    []byte // data of the event being read
	has     bool   // a data field was seen since the last dispatch
	eof     bool
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the data of the next event (its data lines joined with "\n"),
// or io.EOF after the last one. Following the SSE spec, lines end with LF,
// CRLF or CR; a blank line ends an event; lines starting with ':' are
// comments; fields other than data are ignored; one space after the colon is
// dropped. An event still open when the stream ends is returned too, so a
// final "data: [DONE]" without its blank line is not lost.
func (s *sseReader) Next() ([]byte, error) {
	for {
		var line []byte
		switch {
		case s.hasRest:
			line = s.rest
		case s.eof:
			if s.has {
				return s.dispatch(), nil
			}
			return nil, io.EOF
		default:
			var err error
			line, err = s.readLine()
			if err == io.EOF {
				s.eof = true
			} else if err != nil {
				return nil, err
			}
		}
		// A lone CR also ends a line: keep what follows it for the next
		// round, copied since line may point into the reader's buffer or
		// into s.rest itself (part must stay intact until field is done).
		part, rest, more := bytes.Cut(line, []byte{'\r'})
		if more {
			s.spare = append(s.spare[:0], rest...)
			s.rest, s.spare = s.spare, s.rest
		}
		s.hasRest = more
		ev, ok, err := s.field(part)
		if err != nil {
			return nil, err
		}
		if ok {
			return ev, nil
		}
	}
}

// readLine returns the next line without its LF (a trailing CR of CRLF is
// left for Next to split off). It returns io.EOF with the last, unterminated
// line.
func (s *sseReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	for {
		chunk, err := s.br.ReadSlice('\n')
		if len(s.line)+len(chunk) > maxSSEEvent {
			return nil, fmt.Errorf("sse: line longer than %d MiB", maxSSEEvent>>20)
		}
		if err == bufio.ErrBufferFull {
			s.line = append(s.line, chunk...)
			continue
		}
		if err == nil {
			chunk = chunk[:len(chunk)-1]
			if len(chunk) > 0 && chunk[len(chunk)-1] == '\r' {
				chunk = chunk[:len(chunk)-1]
			}
		}
		if len(s.line) == 0 {
			return chunk, err
		}
		s.line = append(s.line, chunk...)
		return s.line, err
	}
}

// field handles one line; it returns an event when the line is blank and
// data was seen. Data lines of one event are bounded together, so a server
// that never sends the blank line cannot grow memory without end.
func (s *sseReader) field(line []byte) ([]byte, bool, error) {
	if len(line) == 0 {
		if !s.has {
			return nil, false, nil
		}
		return s.dispatch(), true, nil
	}
	if line[0] == ':' {
		return nil, false, nil
	}
	name, value, _ := bytes.Cut(line, []byte{':'})
	if string(name) != "data" {
		return nil, false, nil
	}
	value = bytes.TrimPrefix(value, []byte{' '})
	if len(s.data)+1+len(value) > maxSSEEvent {
		return nil, false, fmt.Errorf("sse: event longer than %d MiB", maxSSEEvent>>20)
	}
	if s.has {
		s.data = append(s.data, '\n')
	}
	s.data = append(s.data, value...)
	s.has = true
	return nil, false, nil
}

func (s *sseReader) dispatch() []byte {
	ev := append([]byte(nil), s.data...)
	s.data, s.has = s.data[:0], false
	return ev
}
