package mcpserver

// todosh's MCP stdio transport: newline-delimited JSON-RPC, one message
// at a time. A frame that cannot be decoded is answered and the session
// goes on (committed writes are never left unanswered), and at the end
// of input every call already read has been answered, so
// `printf '…' | todosh mcp` works.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/todosh/todosh/todostore"
)

// DefaultMaxFrame bounds one frame in bytes: twice the largest session
// file, more than any valid tool call needs.
const DefaultMaxFrame = 2 * todostore.MaxFileSize

// Stdio is the transport of `todosh mcp`: newline-delimited JSON-RPC on In
// and Out (stdin and stdout). Each line is checked by CheckFrame; a bad one
// is answered with a JSON-RPC error and the session goes on. Messages are
// carried out one at a time, in the order they came, each call answered
// before the next line is handled, so a todo_read sent after a todo_write
// sees it, and at the end of input every call read has been answered.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	// MaxFrame bounds one line in bytes; 0 means DefaultMaxFrame. A longer
	// line is skipped to its end and answered with an invalid request.
	MaxFrame int
}

// Serve resolves the session and serves it on the transport until the
// input ends (nil) or ctx is done (nil after the message in hand is
// answered).
func Serve(ctx context.Context, cfg Config, t *Stdio) error {
	id, err := ResolveSession(cfg)
	if err != nil {
		return err
	}
	if err := t.Run(ctx, New(cfg, id)); err != nil {
		return fmt.Errorf("serve session %s: %w", id, err)
	}
	return nil
}

// line is one frame read from In, or the read error after it.
type line struct {
	data    []byte
	tooLong bool
	err     error
}

// Run serves s on the transport until the input ends or ctx is done. Only
// the reading runs in its own goroutine, so a signal can end the server
// while it waits for input.
func (t *Stdio) Run(ctx context.Context, s *Server) error {
	limit := t.MaxFrame
	if limit <= 0 {
		limit = DefaultMaxFrame
	}
	lines := make(chan line)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		r := bufio.NewReaderSize(t.In, 64<<10)
		for {
			data, tooLong, err := readFrame(r, limit)
			select {
			case lines <- line{data, tooLong, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	out := bufio.NewWriterSize(t.Out, 64<<10)
	for {
		var l line
		select {
		case <-ctx.Done():
			return nil
		case l = <-lines:
		}
		if reply := t.handle(s, l, limit); reply != nil {
			out.Write(reply)
			out.WriteByte('\n')
			if err := out.Flush(); err != nil {
				return fmt.Errorf("write a reply: %w", err)
			}
		}
		switch {
		case errors.Is(l.err, io.EOF):
			return nil
		case l.err != nil:
			return fmt.Errorf("read a request: %w", l.err)
		}
	}
}

// handle is the reply to one line: an error for a bad frame, the
// server's answer otherwise, nil for none (a blank line, a notification).
func (t *Stdio) handle(s *Server, l line, limit int) []byte {
	switch {
	case l.tooLong:
		return invalidRequest(nil, "the frame is over the limit of %d bytes", limit).Reply()
	case len(trimSpace(l.data)) == 0:
		return nil
	}
	m, fe := CheckFrame(l.data)
	if fe != nil {
		return fe.Reply()
	}
	return s.Handle(m)
}

// readFrame reads one line without its line ending. A line over limit
// bytes is read to its end and dropped (tooLong). err is the read error
// after the line (io.EOF at the end of input).
func readFrame(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit+2 { // +2: the line ending
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return nil, true, err
		}
		if err == nil {
			line = line[:len(line)-1]
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
		}
		return line, tooLong, err
	}
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	return b
}
