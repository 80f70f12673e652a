package mcpserver

// todosh's MCP stdio transport, an mcp.Transport for the SDK's server.
// It stands in for the SDK's own StdioTransport, which (go-sdk v1.8.0)
// still cancels the calls in flight at the end of input, so
// `printf '…' | todosh mcp` wrote nothing (e2e TestMCPEOFAnswersAll), and
// ends the session on the first frame it cannot decode, leaving a call
// sent just before it unanswered (e2e TestMCPBadFrames).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/todosh/todosh/todolist"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxFrame bounds one frame in bytes: twice the largest session
// file, more than any valid tool call needs.
const DefaultMaxFrame = 2 * todolist.MaxFileSize

// Stdio is the transport of `todosh mcp`: newline-delimited JSON-RPC on In
// and Out (stdin and stdout). Each line is checked by CheckFrame; a bad one
// is answered with a JSON-RPC error here and never reaches the SDK, so the
// session goes on. Calls are handed to the SDK one at a time, in the order
// they came, so a todo_read sent after a todo_write sees it. At the end of
// input every call already read is answered before the session ends.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	// MaxFrame bounds one line in bytes; 0 means DefaultMaxFrame. A longer
	// line is skipped to its end and answered with an invalid request.
	MaxFrame int
}

// Serve resolves the session and serves it on the transport until the
// input ends or ctx is done.
func Serve(ctx context.Context, cfg Config, t mcp.Transport) error {
	id, err := ResolveSession(cfg)
	if err != nil {
		return err
	}
	if err := New(cfg, id).Run(ctx, t); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("serve session %s: %w", id, err)
	}
	return nil
}

// Connect starts reading In; it implements mcp.Transport.
func (t *Stdio) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxFrame
	if limit <= 0 {
		limit = DefaultMaxFrame
	}
	c := &stdioConn{
		out:      bufio.NewWriterSize(t.Out, 64<<10),
		incoming: make(chan frameOrErr),
		closed:   make(chan struct{}),
		answered: make(chan struct{}, 1),
		pending:  map[jsonrpc.ID]bool{},
	}
	go c.readLoop(bufio.NewReaderSize(t.In, 64<<10), limit)
	return c, nil
}

type frameOrErr struct {
	msg jsonrpc.Message
	err error
}

// stdioConn is one session on Stdio; it implements mcp.Connection.
type stdioConn struct {
	writeMu sync.Mutex // one frame at a time on out
	out     *bufio.Writer

	incoming chan frameOrErr // from readLoop; closed after its error
	closed   chan struct{}
	once     sync.Once

	mu       sync.Mutex
	pending  map[jsonrpc.ID]bool // calls handed to the SDK and not yet answered
	answered chan struct{}       // poked when a call is answered
}

// readLoop reads frames until the end of input, answering bad ones
// itself and handing the others to Read.
func (c *stdioConn) readLoop(r *bufio.Reader, limit int) {
	defer close(c.incoming)
	for {
		line, tooLong, err := readFrame(r, limit)
		msg, fe := decodeLine(line, tooLong, limit)
		if fe != nil {
			if werr := c.writeFrame(fe.Reply()); werr != nil {
				c.deliver(frameOrErr{err: werr})
				return
			}
		}
		if msg != nil && !c.deliver(frameOrErr{msg: msg}) {
			return
		}
		if err != nil {
			c.deliver(frameOrErr{err: err})
			return
		}
	}
}

// unserved are the methods of MCP 2026-07-28 (SEP-2575) that the SDK
// would serve but todosh does not: `server/discover` answered made a
// client (Claude Code 2.1.332) go on with `subscriptions/listen`, a call
// that stays open, and calls are handed over one at a time, so its next
// call waited behind it until the client gave up after 3 s and connected
// again with `initialize`. Answered "method not found", a client falls
// back to `initialize` at once (docs/mcp.md).
var unserved = map[string]bool{"server/discover": true, "subscriptions/listen": true}

// decodeLine is the message of one line, the error reply to send for it,
// or neither (a blank line).
func decodeLine(line []byte, tooLong bool, limit int) (jsonrpc.Message, *FrameError) {
	switch {
	case tooLong:
		return nil, invalidRequest(nil, "the frame is over the limit of %d bytes", limit)
	case len(bytes.TrimLeft(line, " \t\r\n")) == 0:
		return nil, nil
	}
	m, fe := CheckFrame(line)
	if fe != nil {
		return nil, fe
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil { // CheckFrame is the stricter; kept so a gap is answered, not fatal
		return nil, invalidRequest(m.ID, "%v", err)
	}
	return msg, nil
}

func (c *stdioConn) deliver(f frameOrErr) bool {
	select {
	case c.incoming <- f:
		return true
	case <-c.closed:
		return false
	}
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

// Read is the next valid message. A call waits until the call before it
// is answered; the end of input waits until every call is answered. A
// call of an unserved method is answered here, in its turn, and never
// reaches the SDK.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.read(ctx)
		req, isCall := msg.(*jsonrpc.Request)
		if err != nil || !isCall || !req.IsCall() || !unserved[req.Method] {
			return msg, err
		}
		// read waited for the calls before it and counted this one: it
		// is answered now.
		c.mu.Lock()
		delete(c.pending, req.ID)
		c.mu.Unlock()
		id, _ := json.Marshal(req.ID.Raw())
		if err := c.writeFrame(errorReply(id, CodeMethodNotFound, "method not found: "+req.Method)); err != nil {
			return nil, err
		}
	}
}

// read is the next valid message, as Read, unserved methods included.
func (c *stdioConn) read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var f frameOrErr
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case got, ok := <-c.incoming:
		if !ok {
			got.err = io.EOF
		}
		f = got
	}
	req, isCall := f.msg.(*jsonrpc.Request)
	isCall = isCall && req.IsCall()
	if f.err != nil || isCall {
		if err := c.waitAnswered(ctx); err != nil {
			return nil, err
		}
	}
	if f.err != nil {
		return nil, f.err
	}
	if isCall {
		c.mu.Lock()
		c.pending[req.ID] = true
		c.mu.Unlock()
	}
	return f.msg, nil
}

// waitAnswered waits until no call is pending.
func (c *stdioConn) waitAnswered(ctx context.Context) error {
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-c.answered:
		case <-ctx.Done():
			return ctx.Err()
		case <-c.closed:
			return io.EOF
		}
	}
}

// Write writes one message as one line; a response marks its call
// answered, whether or not the write succeeded.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		resp.Error = withCode(resp.Error)
		defer func() {
			c.mu.Lock()
			delete(c.pending, resp.ID)
			c.mu.Unlock()
			select {
			case c.answered <- struct{}{}:
			default:
			}
		}()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode a reply: %w", err)
	}
	return c.writeFrame(data)
}

// withCode gives an error reply without a JSON-RPC code one: the SDK
// answers a call out of order (before initialize, a second initialize)
// with code 0, which JSON-RPC does not define; it is an invalid request.
func withCode(err error) error {
	var werr *jsonrpc.Error
	if err == nil || errors.As(err, &werr) && werr.Code != 0 {
		return err
	}
	return &jsonrpc.Error{Code: CodeInvalidRequest, Message: err.Error()}
}

// writeFrame writes one frame and its newline, and flushes.
func (c *stdioConn) writeFrame(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.closed:
		return mcp.ErrConnectionClosed
	default:
	}
	c.out.Write(data)
	c.out.WriteByte('\n')
	return c.out.Flush()
}

// Close ends the session; a Read waiting for input returns.
func (c *stdioConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// SessionID is empty: stdio has one session.
func (c *stdioConn) SessionID() string { return "" }
