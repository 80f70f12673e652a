package modelapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/todostore"
)

// fakeCall is a tool call of a fake reply; its arguments are sent in the
// pieces given, as servers split them.
type fakeCall struct {
	name string
	args []string
}

// fakeReply is what the fake server answers to one request.
type fakeReply struct {
	text   []string   // content pieces, one chunk each
	calls  []fakeCall // tool calls, streamed after the text
	status int        // non-200: send body as the error
	body   string     // raw body instead of a built stream
	ctype  string     // Content-Type for body (default text/event-stream)
	block  bool       // after the first chunk, wait until the client goes away
	noDone bool       // end the stream without data: [DONE]
	// usage, when set, is the usage object of a last chunk with no
	// choices, as OpenAI sends it for stream_options.include_usage.
	usage string
}

// fakeServer is an OpenAI-compatible chat completions server that plays
// canned replies in the real chat.completion.chunk format and records what
// it was sent.
type fakeServer struct {
	*httptest.Server
	t       testing.TB
	mu      sync.Mutex
	replies []fakeReply
	reqs    []chatRequest
	auth    []string
	// repeat, when set, answers every request once replies run out.
	repeat *fakeReply
}

func newFakeServer(t testing.TB, replies ...fakeReply) *fakeServer {
	f := &fakeServer{t: t, replies: replies}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"no such route"}}`, http.StatusNotFound)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	var rep fakeReply
	switch {
	case len(f.replies) > 0:
		rep, f.replies = f.replies[0], f.replies[1:]
	case f.repeat != nil:
		rep = *f.repeat
	default:
		f.mu.Unlock()
		http.Error(w, `{"error":{"message":"the fake server has no more replies"}}`, http.StatusInternalServerError)
		return
	}
	f.mu.Unlock()
	if rep.status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		io.WriteString(w, rep.body)
		return
	}
	ctype := rep.ctype
	if ctype == "" {
		ctype = "text/event-stream"
	}
	w.Header().Set("Content-Type", ctype)
	if rep.body != "" {
		io.WriteString(w, rep.body)
		return
	}
	chunks := fakeChunks(rep)
	for i, c := range chunks {
		if rep.noDone && i == len(chunks)-1 {
			return
		}
		io.WriteString(w, c)
		w.(http.Flusher).Flush()
		if rep.block && i == 1 {
			<-r.Context().Done()
			return
		}
	}
}

// requests returns what the server was sent so far.
func (f *fakeServer) requests() []chatRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]chatRequest(nil), f.reqs...)
}

// fakeChunks renders a reply as SSE events of chat.completion.chunk objects,
// ending with data: [DONE].
func fakeChunks(rep fakeReply) []string {
	var out []string
	add := func(delta map[string]any, finish any) {
		c := map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}
		b, err := json.Marshal(c)
		if err != nil {
			panic(err)
		}
		out = append(out, "data: "+string(b)+"\n\n")
	}
	add(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, p := range rep.text {
		add(map[string]any{"content": p}, nil)
	}
	for i, c := range rep.calls {
		add(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": fmt.Sprintf("call_%d", i), "type": "function",
			"function": map[string]any{"name": c.name, "arguments": ""},
		}}}, nil)
		for _, a := range c.args {
			add(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": a},
			}}}, nil)
		}
	}
	finish := "stop"
	if len(rep.calls) > 0 {
		finish = "tool_calls"
	}
	add(map[string]any{}, finish)
	if rep.usage != "" {
		out = append(out, `data: {"id":"chatcmpl-fake","object":"chat.completion.chunk","created":1700000000,"model":"fake","choices":[],"usage":`+rep.usage+"}\n\n")
	}
	return append(out, "data: [DONE]\n\n")
}

// split cuts s into n pieces of about equal size, as a server splits tool
// arguments across chunks.
func split(s string, n int) []string {
	var out []string
	size := (len(s) + n - 1) / n
	for len(s) > size {
		out = append(out, s[:size])
		s = s[size:]
	}
	return append(out, s)
}

// testSession is a session on a fresh store under t.TempDir, seeded with
// todos unless nil.
func testSession(t testing.TB, todos []todolist.Todo) agent.Session {
	t.Helper()
	st := todostore.Open(t.TempDir())
	st.Now = func() time.Time { return time.Date(2026, 11, 21, 22, 33, 44, 0, time.UTC) }
	sess := agent.Session{Store: st, ID: "s1"}
	if todos != nil {
		if _, err := sess.Update(func(s *todostore.Session) error {
			s.Todos = todolist.CloneTodos(todos)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return sess
}

func loadTodos(t testing.TB, sess agent.Session) []todolist.Todo {
	t.Helper()
	s, err := sess.Load()
	if err != nil {
		t.Fatal(err)
	}
	return s.Todos
}

// recorder collects the events of turns.
type recorder struct {
	events []agent.Event
}

func (r *recorder) emit(e agent.Event) { r.events = append(r.events, e) }

func (r *recorder) text() string {
	var b strings.Builder
	for _, e := range r.events {
		if e.Kind == agent.EventText {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

func (r *recorder) lines(kind agent.EventKind) []string {
	var out []string
	for _, e := range r.events {
		if e.Kind == kind {
			out = append(out, e.Text)
		}
	}
	return out
}

func (r *recorder) count(kind agent.EventKind) int { return len(r.lines(kind)) }

func newTestBackend(t testing.TB, f *fakeServer, sess agent.Session) *Backend {
	t.Helper()
	b, err := New(Config{BaseURL: f.URL + "/v1", APIKey: "sk-test", Model: "fake-model"}, sess)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
