package acpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"sync"

	acp "github.com/coder/acp-go-sdk"
)

// This file keeps the editor's order, which the SDK loses: it runs each
// request in a goroutine of its own, so two prompts of one session could
// run in either order, and a session's updates could reach the editor
// before the answer that told it the session exists (ARCHITECTURE.md §8).

// seqKey is the key in a prompt's _meta under which the frame filter, which
// reads the editor's messages in order, numbers the session's prompts.
const seqKey = "todosh/seq"

// promptQueue runs one session's prompts in the order they came: each
// waits until every prompt numbered before it has run. It also keeps the
// cancels, by number, where the SDK's own bookkeeping (one cancel func per
// session, set by whichever prompt's goroutine runs last) could cancel
// the newer prompt or none: a new prompt cancels those before it (the
// running one ends, queued ones answer cancelled), as does session/cancel
// every prompt that came before it.
type promptQueue struct {
	mu        sync.Mutex
	cond      *sync.Cond
	arrived   uint64 // the number the last prompt got
	served    uint64 // every prompt up to this one has run
	cancelled uint64 // every prompt up to this one is cancelled
	running   uint64 // the prompt that runs, 0 when none
	stop      context.CancelFunc
	closed    bool
}

// queue is session id's prompt queue, made at its first prompt.
func (s *Server) queue(id string) *promptQueue {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	q := s.queues[id]
	if q == nil {
		q = &promptQueue{}
		q.cond = newCond(q)
		s.queues[id] = q
	}
	return q
}

// arrive numbers the next prompt of the queue and cancels those before it.
func (q *promptQueue) arrive() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.arrived++
	q.cancelTo(q.arrived - 1)
	return q.arrived
}

// cancelAll is session/cancel: every prompt that came so far is cancelled.
func (q *promptQueue) cancelAll() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.cancelTo(q.arrived)
}

func (q *promptQueue) cancelTo(n uint64) {
	if n > q.cancelled {
		q.cancelled = n
	}
	if q.stop != nil && q.running <= q.cancelled {
		q.stop()
	}
}

// begin waits until every prompt before seq has run, and returns the
// context prompt seq runs in (base's values; cancelled by the queue), and
// whether it was cancelled before it began. end marks it run.
func (q *promptQueue) begin(base context.Context, seq uint64) (ctx context.Context, cancelled bool, end func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.served+1 < seq && !q.closed {
		q.cond.Wait()
	}
	ctx, stop := context.WithCancel(base)
	q.running, q.stop = seq, stop
	cancelled = seq <= q.cancelled || q.closed
	if cancelled {
		stop()
	}
	return ctx, cancelled, func() {
		stop()
		q.mu.Lock()
		defer q.mu.Unlock()
		if q.running == seq {
			q.running, q.stop = 0, nil
		}
		if seq > q.served {
			q.served = seq
		}
		q.cond.Broadcast()
	}
}

func (q *promptQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	if q.stop != nil {
		q.stop()
	}
	q.cond.Broadcast()
}

// promptSeq is the number the frame filter gave a prompt, 0 when none
// (a prompt that did not pass the filter's decoding).
func promptSeq(p acp.PromptRequest) uint64 {
	switch v := p.Meta[seqKey].(type) {
	case float64:
		return uint64(v)
	case json.Number:
		n, _ := strconv.ParseUint(string(v), 10, 64)
		return n
	}
	return 0
}

// stampPrompt numbers a session/prompt line of the editor for its
// session's queue: the number goes into the params' _meta, which the SDK
// hands the handler. A line whose params the SDK would refuse is left as
// it is (the SDK answers it and no handler waits for a number).
func (s *Server) stampPrompt(line []byte) []byte {
	var msg map[string]json.RawMessage
	if json.Unmarshal(line, &msg) != nil {
		return line
	}
	var p acp.PromptRequest
	if json.Unmarshal(msg["params"], &p) != nil || p.Validate() != nil {
		return line
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil {
		return line
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := params["_meta"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &meta) != nil {
			return line
		}
	}
	seq := s.queue(string(p.SessionId)).arrive()
	meta[seqKey] = json.RawMessage(strconv.FormatUint(seq, 10))
	var err error
	if params["_meta"], err = marshalAsIs(meta); err != nil {
		return line
	}
	if msg["params"], err = marshalAsIs(params); err != nil {
		return line
	}
	out, err := marshalAsIs(msg)
	if err != nil {
		return line
	}
	return out
}

// marshalAsIs is json.Marshal without HTML escaping, so the editor's
// strings (its request id above all) keep their bytes.
func marshalAsIs(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// The gate: a session's updates wait until the answer that opened it
// (session/new, session/load, session/resume) has been written, so an
// editor never gets an update of a session it does not know yet (Zed
// drops them). A session/load's replay is the exception the protocol
// makes: it comes before the answer, through sendNow.

// gates are the sessions whose opening answer has not been written yet.
type gates struct {
	mu sync.Mutex
	// bySession are sessions opened by session/new, released by the
	// answer that carries their id; byRequest are the sessions of
	// session/load and session/resume requests, by request id.
	bySession map[string]*session
	byRequest map[string]string
	waiting   map[string]*session // load and resume sessions, by session id
}

// holdNew holds ss's updates until the answer naming it.
func (g *gates) holdNew(ss *session) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.bySession == nil {
		g.bySession = map[string]*session{}
	}
	g.bySession[ss.id] = ss
}

// forget drops a held session that did not open (its answer is an
// error, which names no session).
func (g *gates) forget(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.bySession, id)
	delete(g.waiting, id)
}

// noteRequest records a session/load or session/resume request id (from
// the frame filter, which reads ids).
func (g *gates) noteRequest(id json.RawMessage, sessionID string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.byRequest == nil {
		g.byRequest = map[string]string{}
	}
	g.byRequest[string(id)] = sessionID
}

// holdReopen holds ss's updates (but a replay) until the answer to the
// request that reopened it.
func (g *gates) holdReopen(ss *session) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.waiting == nil {
		g.waiting = map[string]*session{}
	}
	g.waiting[ss.id] = ss
}

// written is the writer's look at each message it wrote: an answer that
// opened a held session releases it.
func (g *gates) written(b []byte) {
	g.mu.Lock()
	if len(g.bySession) == 0 && len(g.byRequest) == 0 {
		g.mu.Unlock()
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result *struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	var release *session
	if json.Unmarshal(b, &m) == nil && m.Method == "" && m.ID != nil {
		if m.Result != nil && g.bySession[m.Result.SessionID] != nil {
			release = g.bySession[m.Result.SessionID]
			delete(g.bySession, m.Result.SessionID)
		} else if sid, ok := g.byRequest[string(m.ID)]; ok {
			delete(g.byRequest, string(m.ID))
			release = g.waiting[sid]
			delete(g.waiting, sid)
		}
	}
	g.mu.Unlock()
	if release != nil {
		go release.openGate()
	}
}

// openGate sends what was held, in order, and lets later updates through.
func (ss *session) openGate() {
	ss.gateMu.Lock()
	defer ss.gateMu.Unlock()
	for _, u := range ss.held {
		ss.sendNow(u)
	}
	ss.held, ss.gated = nil, false
}

// newCond is q's condition on its own lock.
func newCond(q *promptQueue) *sync.Cond { return sync.NewCond(&q.mu) }
