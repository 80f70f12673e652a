package e2e_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// These tests run the built todosh with --agent openai against a minimal
// OpenAI-compatible server on 127.0.0.1 that streams replies as
// chat.completion.chunk server-sent events, as the real API does.

// chatReply is what the server answers to one request: an error status
// with its body, or a streamed reply of text pieces and at most one tool
// call whose arguments come in pieces.
type chatReply struct {
	status int    // non-zero: answer this status with body
	body   string // the error body, JSON
	text   []string
	tool   string   // name of the tool called, "" for none
	args   []string // its arguments, split across chunks
}

// chatMessage is a message of a request, as the server reads it.
type chatMessage struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
}

// chatRequest is a request body, as the server reads it.
type chatRequest struct {
	Model    string        `json:"model"`
	Stream   bool          `json:"stream"`
	Messages []chatMessage `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// toolNames are the names of the tools a request offers.
func (r chatRequest) toolNames() []string {
	var names []string
	for _, t := range r.Tools {
		names = append(names, t.Function.Name)
	}
	return names
}

// chatServer answers the n-th request (from 0) with reply(n) and records
// every request body.
type chatServer struct {
	*httptest.Server
	reply func(n int) chatReply

	mu   sync.Mutex
	reqs []chatRequest
}

func newChatServer(t *testing.T, reply func(n int) chatReply) *chatServer {
	t.Helper()
	s := &chatServer{reply: reply}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// baseURL is what --base-url takes: the API root up to /v1.
func (s *chatServer) baseURL() string { return s.URL + "/v1" }

func (s *chatServer) requests() []chatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

func (s *chatServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"no such route"}}`, http.StatusNotFound)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad request body"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	rep := s.reply(n)
	if rep.status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		io.WriteString(w, rep.body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, chunk := range rep.chunks() {
		fmt.Fprintf(w, "data: %s\n\n", chunk)
		w.(http.Flusher).Flush()
	}
	io.WriteString(w, "data: [DONE]\n\n")
}

// chunks renders the reply as the JSON of its chat.completion.chunk
// events: the role, each text piece, the tool call's name then each piece
// of its arguments, and the finish reason.
func (rep chatReply) chunks() []string {
	var out []string
	add := func(delta map[string]any, finish any) {
		b, err := json.Marshal(map[string]any{
			"id": "chatcmpl-e2e", "object": "chat.completion.chunk", "created": 1764000000, "model": "m",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		})
		if err != nil {
			panic(err)
		}
		out = append(out, string(b))
	}
	add(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, p := range rep.text {
		add(map[string]any{"content": p}, nil)
	}
	finish := "stop"
	if rep.tool != "" {
		finish = "tool_calls"
		add(map[string]any{"tool_calls": []any{map[string]any{
			"index": 0, "id": "call_e2e", "type": "function",
			"function": map[string]any{"name": rep.tool, "arguments": ""},
		}}}, nil)
		for _, a := range rep.args {
			add(map[string]any{"tool_calls": []any{map[string]any{
				"index": 0, "function": map[string]any{"arguments": a},
			}}}, nil)
		}
	}
	add(map[string]any{}, finish)
	return out
}

// planReply calls todo_write with two items, its arguments cut across
// chunks in the middle of keys and values.
var planReply = chatReply{
	text: []string{"Here is ", "the plan."},
	tool: "todo_write",
	args: []string{
		`{"todos":[{"cont`,
		`ent":"Write the CSV par`,
		`ser","status":"in_progress"},{"content":"Write the tests","sta`,
		`tus":"pending"}]}`,
	},
}

// planItems are the items of planReply.
var planItems = []string{"Write the CSV parser", "Write the tests"}

// lazyReply ends the turn with items open and no question for the person.
var lazyReply = chatReply{text: []string{"That is a good start.\n", "I will stop here for now."}}

func TestOpenAILazyModelContinuedThenStopped(t *testing.T) {
	srv := newChatServer(t, func(n int) chatReply {
		if n == 0 {
			return planReply
		}
		return lazyReply
	})
	h := newHome(t)
	r := h.script(t, h.dir, "", "--agent", "openai", "--base-url", srv.baseURL(), "--model", "m", "-c", "Build a CSV tool")
	if r.code != 3 || r.stderr != "" { // 3: stopped without progress
		t.Fatalf("exit %d, want 3; stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
	sess := h.onlySession(t)
	h.assertList(t, sess.Session, planItems...)

	reqs := srv.requests()
	// The first turn asks twice (the tool call, then the lazy reply); each
	// continuation asks once. A turn starts with a user message last.
	var turns []int
	for i, req := range reqs {
		if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "user" {
			turns = append(turns, i)
		}
	}
	if len(reqs) != 5 || !slices.Equal(turns, []int{0, 2, 3, 4}) {
		t.Errorf("%d requests, turns starting at %v; want 5 requests: a prompt, its tool result, then 3 continuations", len(reqs), turns)
	}
	for _, line := range []string{"continuing 1/3", "continuing 2/3", "continuing 3/3", "stopped: 3 attempts without progress"} {
		if strings.Count(r.stdout, line) != 1 {
			t.Errorf("output has %q %d times, want once:\n%s", line, strings.Count(r.stdout, line), r.stdout)
		}
	}
	if !strings.HasSuffix(r.stdout, "stopped: 3 attempts without progress\n") {
		t.Errorf("output does not end with the stop:\n%s", r.stdout)
	}
	if n := strings.Count(r.stdout, "⏺"); n != 1 {
		t.Errorf("%d tool call lines, want 1:\n%s", n, r.stdout)
	}
	assertShortToolLines(t, r.stdout, "todo_write")
	assertNoRepeatedList(t, r.stdout)

	for i, req := range reqs {
		if req.Model != "m" || !req.Stream {
			t.Errorf("request %d: model %q, stream %v; want m, true", i+1, req.Model, req.Stream)
		}
		tools := req.toolNames()
		for _, want := range []string{"todo_write", "todo_read", "todo_tick", "todo_pause"} {
			if !slices.Contains(tools, want) {
				t.Errorf("request %d offers tools %q, want %s among them", i+1, tools, want)
			}
		}
		if len(req.Messages) == 0 || req.Messages[0].Role != "system" {
			t.Errorf("request %d does not start with a system message", i+1)
			continue
		}
		if i < 2 {
			continue // the first turn starts with an empty list
		}
		// Every prompt of a later turn, continuations included, carries
		// the open items in its system message.
		system := req.Messages[0].Content
		for _, item := range planItems {
			if !strings.Contains(system, item) {
				end := system[strings.LastIndex(strings.TrimSpace(system), "\n")+1:]
				t.Errorf("request %d: the system message does not carry the open item %q; it ends %q", i+1, item, end)
			}
		}
	}
}

func TestOpenAIUnauthorized(t *testing.T) {
	srv := newChatServer(t, func(int) chatReply {
		return chatReply{status: http.StatusUnauthorized, body: `{"error":{"message":"Incorrect API key provided: sk-bad.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`}
	})
	h := newHome(t)
	before := h.seedSession(t, "denied", h.dir)
	r := h.script(t, h.dir, "", "--session", "denied", "--agent", "openai", "--base-url", srv.baseURL(), "--model", "m", "-c", "Build a CSV tool")
	if r.code != 1 {
		t.Errorf("exit status %d, want 1", r.code)
	}
	const want = "401 Unauthorized: Incorrect API key provided: sk-bad."
	if countLines(r.stderr) != 1 || !strings.Contains(r.stderr, want) || r.stdout != "" {
		t.Errorf("stdout = %q, stderr = %q; want the error once, on stderr", r.stdout, r.stderr)
	}
	if n := len(srv.requests()); n != 1 {
		t.Errorf("%d requests, want 1 (no continuation after an error)", n)
	}
	if after := h.sessionBytes(t, "denied"); !sameTodos(after, before) {
		t.Errorf("the session file changed:\n%s\nwas:\n%s", after, before)
	}
}

func TestOpenAIResumeContinuesConversation(t *testing.T) {
	srv := newChatServer(t, func(n int) chatReply {
		switch n {
		case 0:
			return planReply
		case 1:
			return lazyReply
		}
		return chatReply{text: []string{"Carrying on with the parser."}}
	})
	h := newHome(t)
	args := []string{"--agent", "openai", "--base-url", srv.baseURL(), "--model", "m", "--no-continue"}
	const first, second = "Build a CSV tool", "Go on with the parser"
	if r := h.script(t, h.dir, "", append(args, "-c", first)...); r.code != 3 { // stopped with open items
		t.Fatalf("first run: exit %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
	if r := h.script(t, h.dir, "", append(args, "--resume", "-c", second)...); r.code != 3 {
		t.Fatalf("--resume run: exit %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
	reqs := srv.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (two for the first prompt, one for the second)", len(reqs))
	}
	// The conversation after the system message: the first prompt, the
	// tool call and its result, the lazy reply, then the new prompt.
	var got []string
	for _, m := range reqs[2].Messages[1:] {
		desc := m.Role + ": " + m.Content
		for _, tc := range m.ToolCalls {
			desc += " [" + tc.Function.Name + "]"
		}
		if m.Role == "tool" {
			desc = "tool result for " + m.ToolCallID
		}
		got = append(got, desc)
	}
	want := []string{
		"user: " + first,
		"assistant: Here is the plan. [todo_write]",
		"tool result for call_e2e",
		"assistant: That is a good start.\nI will stop here for now.",
		"user: " + second,
	}
	if !slices.Equal(got, want) {
		t.Errorf("conversation sent after --resume:\n%q\nwant\n%q", got, want)
	}
	// The new prompt carries the list saved by the first run.
	for _, item := range planItems {
		if !strings.Contains(reqs[2].Messages[0].Content, item) {
			t.Errorf("after --resume the system message does not carry the open item %q", item)
		}
	}
	h.assertList(t, h.onlySession(t).Session, planItems...)
}
