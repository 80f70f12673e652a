package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// chatToolCall is a tool call in a Chat Completions message.
type chatToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// parseChat turns an OpenAI Chat Completions body into a Request.
func parseChat(body []byte) (Request, error) {
	var in struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCalls  []chatToolCall  `json:"tool_calls"`
			ToolCallID string          `json:"tool_call_id"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, fmt.Errorf("openai chat completions request: %w", err)
	}
	req := Request{Protocol: "chat", Model: in.Model, Stream: in.Stream}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Function.Name, Schema: t.Function.Parameters})
	}
	for _, m := range in.Messages {
		text := blocksText(m.Content)
		switch m.Role {
		case "tool":
			req.Messages = append(req.Messages, Msg{Role: "user", Results: []Result{{CallID: m.ToolCallID, Text: text}}})
		case "system", "developer":
			if len(req.Messages) == 0 {
				req.System += text
				continue
			}
			req.Messages = append(req.Messages, Msg{Role: "system", Text: text})
		default:
			msg := Msg{Role: m.Role, Text: text}
			for _, c := range m.ToolCalls {
				msg.Calls = append(msg.Calls, Call{ID: c.ID, Name: c.Function.Name, Args: json.RawMessage(c.Function.Arguments)})
			}
			req.Messages = append(req.Messages, msg)
		}
	}
	return req, nil
}

// writeChat answers a Chat Completions request, as SSE chunks when it
// asked to stream (usage in the last chunk, then [DONE]).
func writeChat(w http.ResponseWriter, req Request, a Action, ids *idGen) {
	id := ids.next("chatcmpl-fake-")
	var calls []map[string]any
	for _, c := range a.Calls {
		args, _ := json.Marshal(c.Args)
		calls = append(calls, map[string]any{"id": ids.next("call_fake_"), "type": "function",
			"function": map[string]any{"name": c.Tool.FullName(), "arguments": string(args)}})
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	u := a.Usage.or()
	usage := map[string]int{"prompt_tokens": u.In, "completion_tokens": u.Out, "total_tokens": u.In + u.Out}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": nilIfEmpty(a.Text)}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	sse := newSSE(w)
	chunk := func(delta map[string]any, finish any, usage any) {
		sse.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}, "usage": usage})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)
	for _, part := range chunks(a.Text) {
		if part != "" {
			chunk(map[string]any{"content": part}, nil, nil)
		}
	}
	for i, c := range calls {
		fn := c["function"].(map[string]any)
		args := fn["arguments"].(string)
		for j, part := range chunks(args) {
			tc := map[string]any{"index": i, "function": map[string]any{"arguments": part}}
			if j == 0 {
				tc["id"], tc["type"] = c["id"], "function"
				tc["function"] = map[string]any{"name": fn["name"], "arguments": part}
			}
			chunk(map[string]any{"tool_calls": []any{tc}}, nil, nil)
		}
	}
	chunk(map[string]any{}, finish, usage)
	sse.raw("", "[DONE]")
}

// nilIfEmpty is nil for "" (JSON null content), else s.
func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
