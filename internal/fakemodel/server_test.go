package fakemodel

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// post sends body to the server and returns the response body.
func post(t *testing.T, srv *httptest.Server, path, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// sseEvents parses a server-sent event stream into (event, data) pairs.
func sseEvents(t *testing.T, stream string) [][2]string {
	t.Helper()
	var out [][2]string
	var name string
	sc := bufio.NewScanner(strings.NewReader(stream))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data := strings.TrimPrefix(line, "data: ")
			if data != "[DONE]" && !json.Valid([]byte(data)) {
				t.Fatalf("invalid JSON in SSE data: %s", data)
			}
			out = append(out, [2]string{name, data})
			name = ""
		}
	}
	return out
}

// field reads a dotted path ("delta.partial_json", "choices.0.delta") of a JSON text.
func field(data, path string) any {
	var v any
	json.Unmarshal([]byte(data), &v)
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i := 0
			for _, c := range k {
				i = i*10 + int(c-'0')
			}
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func str(v any) string { s, _ := v.(string); return s }

func TestAnthropicStream(t *testing.T) {
	srv := httptest.NewServer(New(Lazy, nil))
	defer srv.Close()
	code, body := post(t, srv, "/v1/messages?beta=true", claudeTasksCreated)
	if code != 200 {
		t.Fatalf("status %d: %s", code, body)
	}
	var types []string
	args := map[float64]string{}
	for _, ev := range sseEvents(t, body) {
		if typ := str(field(ev[1], "type")); typ != ev[0] {
			t.Errorf("event %q carries type %q", ev[0], typ)
		}
		if len(types) == 0 || types[len(types)-1] != ev[0] {
			types = append(types, ev[0]) // runs of deltas count once
		}
		if ev[0] == "content_block_delta" {
			i, _ := field(ev[1], "index").(float64)
			args[i] += str(field(ev[1], "delta.partial_json"))
		}
	}
	want := "message_start content_block_start content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	if args[0] != `{"status":"completed","taskId":"7"}` || args[1] != `{"status":"in_progress","taskId":"8"}` {
		t.Errorf("tool input assembled from input_json_delta: %v", args)
	}
	if !strings.Contains(body, `"stop_reason":"tool_use"`) {
		t.Error("message_delta lacks stop_reason tool_use")
	}
}

func TestAnthropicPlainAndCount(t *testing.T) {
	srv := httptest.NewServer(New(Lazy, nil))
	defer srv.Close()
	_, body := post(t, srv, "/v1/messages", claudeTitle)
	if str(field(body, "content.0.text")) != TextSide || str(field(body, "stop_reason")) != "end_turn" {
		t.Errorf("side request reply: %s", body)
	}
	_, body = post(t, srv, "/v1/messages/count_tokens", claudeTitle)
	if n, _ := field(body, "input_tokens").(float64); n <= 0 {
		t.Errorf("count_tokens reply: %s", body)
	}
}

func TestResponsesStream(t *testing.T) {
	srv := httptest.NewServer(New(Lazy, nil))
	defer srv.Close()
	_, body := post(t, srv, "/v1/responses", codexNamespace)
	var types []string
	var call, args string
	for _, ev := range sseEvents(t, body) {
		types = append(types, ev[0])
		if ev[0] == "response.output_item.done" && str(field(ev[1], "item.type")) == "function_call" {
			call = str(field(ev[1], "item.namespace")) + " " + str(field(ev[1], "item.name"))
			args = str(field(ev[1], "item.arguments"))
		}
	}
	got := strings.Join(types, " ")
	for _, want := range []string{"response.created", "response.output_item.added", "response.output_text.delta",
		"response.output_item.done", "response.function_call_arguments.delta"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s in %s", want, got)
		}
	}
	if !strings.HasSuffix(got, "response.completed") {
		t.Errorf("stream does not end with response.completed: %s", got)
	}
	if call != "mcp__todosh todo_write" || !strings.Contains(args, `"status":"in_progress"`) {
		t.Errorf("namespaced call %q %s", call, args)
	}
}

func TestResponsesToolSearch(t *testing.T) {
	srv := httptest.NewServer(New(Lazy, nil))
	defer srv.Close()
	_, body := post(t, srv, "/v1/responses", strings.Replace(codexDeferredMCP, `"stream":true`, `"stream":false`, 1))
	if str(field(body, "output.0.type")) != "tool_search_call" || str(field(body, "output.0.execution")) != "client" ||
		str(field(body, "output.0.arguments.query")) == "" {
		t.Errorf("reply: %s", body)
	}
}

func TestResponsesPlain(t *testing.T) {
	srv := httptest.NewServer(New(Lazy, nil))
	defer srv.Close()
	_, body := post(t, srv, "/v1/responses", codexPlanned)
	if str(field(body, "status")) != "completed" || str(field(body, "output.0.name")) != "update_plan" {
		t.Errorf("reply: %s", body)
	}
}

func TestChatStream(t *testing.T) {
	srv := httptest.NewServer(New(Lazy, nil))
	defer srv.Close()
	_, body := post(t, srv, "/v1/chat/completions", piFirst)
	events := sseEvents(t, body)
	if last := events[len(events)-1][1]; last != "[DONE]" {
		t.Errorf("stream does not end with [DONE]: %s", last)
	}
	var text string
	names := map[float64]string{}
	args := map[float64]string{}
	var finish string
	for _, ev := range events[:len(events)-1] {
		text += str(field(ev[1], "choices.0.delta.content"))
		if f := str(field(ev[1], "choices.0.finish_reason")); f != "" {
			finish = f
		}
		tcs, _ := field(ev[1], "choices.0.delta.tool_calls").([]any)
		for _, tc := range tcs {
			b, _ := json.Marshal(tc)
			i, _ := field(string(b), "index").(float64)
			names[i] += str(field(string(b), "function.name"))
			args[i] += str(field(string(b), "function.arguments"))
		}
	}
	if text != TextIntro || finish != "tool_calls" || len(args) != 3 {
		t.Fatalf("text %q finish %q calls %d", text, finish, len(args))
	}
	if names[2] != "todo" || args[2] != `{"action":"add","text":"Write unit tests for the parser"}` {
		t.Errorf("third call %s %s", names[2], args[2])
	}
}

func TestChatPlain(t *testing.T) {
	srv := httptest.NewServer(New(Lazy, nil))
	defer srv.Close()
	_, body := post(t, srv, "/v1/chat/completions", strings.Replace(todoshContinued, `"stream":true`, `"stream":false`, 1))
	if str(field(body, "choices.0.finish_reason")) != "tool_calls" || str(field(body, "choices.0.message.tool_calls.0.function.name")) != "todo_write" {
		t.Errorf("reply: %s", body)
	}
}

func TestGemini(t *testing.T) {
	srv := httptest.NewServer(New(Lazy, nil))
	defer srv.Close()
	_, body := post(t, srv, "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", geminiAllDone)
	var text, finish string
	for _, ev := range sseEvents(t, body) {
		text += str(field(ev[1], "candidates.0.content.parts.0.text"))
		if f := str(field(ev[1], "candidates.0.finishReason")); f != "" {
			finish = f
		}
	}
	if text != TextAllDone || finish != "STOP" {
		t.Errorf("stream text %q finish %q", text, finish)
	}
	_, body = post(t, srv, "/v1beta/models/gemini-2.5-pro:generateContent", strings.Replace(geminiAllDone, `{"name":"write_todos","args":{"todos":[{"description":"x","status":"completed"},{"description":"y","status":"completed"},{"description":"z","status":"completed"}]}}`, `{"name":"read_file","args":{}}`, 1))
	if str(field(body, "candidates.0.content.parts.0.functionCall.name")) != "write_todos" {
		t.Errorf("generateContent reply: %s", body)
	}
	_, body = post(t, srv, "/v1beta/models/gemini-2.5-pro:countTokens", geminiAllDone)
	if n, _ := field(body, "totalTokens").(float64); n <= 0 {
		t.Errorf("countTokens reply: %s", body)
	}
}

func TestLogAndErrors(t *testing.T) {
	var log bytes.Buffer
	s := New(Lazy, &log)
	srv := httptest.NewServer(s)
	defer srv.Close()
	post(t, srv, "/v1/messages", claudeDeferred)
	if code, _ := post(t, srv, "/v1/messages", `{"messages":`); code != http.StatusBadRequest {
		t.Errorf("bad JSON: status %d", code)
	}
	if code, _ := post(t, srv, "/v2/unknown", `{}`); code != http.StatusNotFound {
		t.Errorf("unknown path: status %d", code)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 log lines, got %d:\n%s", len(lines), log.String())
	}
	var l logLine
	if err := json.Unmarshal([]byte(lines[0]), &l); err != nil {
		t.Fatal(err)
	}
	if l.Protocol != "anthropic" || l.Model != "claude-opus-5-5" || l.LastUser != prompt || l.Kind != "search" ||
		strings.Join(l.Tools, ",") != "Bash,ToolSearch" || !strings.Contains(strings.Join(l.Deferred, ","), "TaskCreate,TaskGet,TaskUpdate,mcp__todosh__todo_write") ||
		len(l.Calls) != 1 || l.Calls[0].Name != "ToolSearch" {
		t.Errorf("log line: %s", lines[0])
	}
	for i, want := range []int{400, 404} {
		json.Unmarshal([]byte(lines[i+1]), &l)
		if l.Status != want || l.Error == "" {
			t.Errorf("log line %d: %s", i+1, lines[i+1])
		}
	}
}

// FuzzParse feeds arbitrary bodies to every protocol's parser; whatever
// parses must also decide without panicking.
func FuzzParse(f *testing.F) {
	for _, b := range []string{claudeTasksCreated, claudeDeferred, codexPlanned, codexNamespace, qwenFirst, todoshContinued, geminiAllDone, geminiRouter} {
		f.Add(b)
	}
	paths := []string{"/v1/messages", "/v1/responses", "/v1/chat/completions", "/v1beta/models/m:streamGenerateContent"}
	f.Fuzz(func(t *testing.T, body string) {
		for _, p := range paths {
			rt, _ := routeFor(p)
			req, err := rt.parse([]byte(body))
			if err != nil {
				continue
			}
			for _, sc := range Scenarios {
				Decide(sc, req)
			}
		}
	})
}

// TestUsageReported: the "reports usage" scenario: each protocol's reply
// says what Server.Usage says, where the real API says it.
func TestUsageReported(t *testing.T) {
	s := New(Lazy, nil)
	s.Usage = Usage{In: 1234, Out: 56}
	srv := httptest.NewServer(s)
	defer srv.Close()
	num := func(body, path string) int { n, _ := field(body, path).(float64); return int(n) }
	_, body := post(t, srv, "/v1/messages", claudeTitle)
	if num(body, "usage.input_tokens") != 1234 || num(body, "usage.output_tokens") != 56 {
		t.Errorf("anthropic: %s", body)
	}
	_, body = post(t, srv, "/v1/messages", claudeTasksFirst)
	var start, delta int
	for _, ev := range sseEvents(t, body) {
		switch ev[0] {
		case "message_start":
			start = num(ev[1], "message.usage.input_tokens")
		case "message_delta":
			delta = num(ev[1], "usage.output_tokens")
		}
	}
	if start != 1234 || delta != 56 {
		t.Errorf("anthropic stream: message_start %d in, message_delta %d out", start, delta)
	}
	_, body = post(t, srv, "/v1/responses", codexPlanned)
	if num(body, "usage.input_tokens") != 1234 || num(body, "usage.output_tokens") != 56 || num(body, "usage.total_tokens") != 1290 {
		t.Errorf("responses: %s", body)
	}
	_, body = post(t, srv, "/v1/chat/completions", strings.Replace(todoshContinued, `"stream":true`, `"stream":false`, 1))
	if num(body, "usage.prompt_tokens") != 1234 || num(body, "usage.completion_tokens") != 56 {
		t.Errorf("chat: %s", body)
	}
	_, body = post(t, srv, "/v1beta/models/gemini-2.5-pro:generateContent", geminiAllDone)
	if num(body, "usageMetadata.promptTokenCount") != 1234 || num(body, "usageMetadata.candidatesTokenCount") != 56 {
		t.Errorf("gemini: %s", body)
	}
}
