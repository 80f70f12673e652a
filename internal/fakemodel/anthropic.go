package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// anthropicRequest is what the fake reads of a Messages API request.
type anthropicRequest struct {
	Model    string          `json:"model"`
	Stream   bool            `json:"stream"`
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name         string          `json:"name"`
		InputSchema  json.RawMessage `json:"input_schema"`
		DeferLoading bool            `json:"defer_loading"`
	} `json:"tools"`
}

// anthropicBlock is one content block of a message, request or reply.
type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
}

// parseAnthropic turns a Messages API body into a Request.
func parseAnthropic(body []byte) (Request, error) {
	var in anthropicRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, fmt.Errorf("anthropic messages request: %w", err)
	}
	req := Request{Protocol: "anthropic", Model: in.Model, Stream: in.Stream, System: blocksText(in.System)}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Name, Schema: t.InputSchema, Deferred: t.DeferLoading})
	}
	for _, m := range in.Messages {
		msg := Msg{Role: m.Role}
		var blocks []anthropicBlock
		if json.Unmarshal(m.Content, &blocks) != nil {
			msg.Text = blocksText(m.Content)
		}
		var texts []string
		for _, b := range blocks {
			switch b.Type {
			case "text":
				texts = append(texts, b.Text)
			case "tool_use":
				msg.Calls = append(msg.Calls, Call{ID: b.ID, Name: b.Name, Args: b.Input})
			case "tool_result":
				msg.Results = append(msg.Results, Result{CallID: b.ToolUseID, Text: blocksText(b.Content)})
			}
		}
		if len(texts) > 0 {
			msg.Text = strings.Join(texts, "\n")
		}
		req.Messages = append(req.Messages, msg)
	}
	return req, nil
}

// blocksText returns the text of a string or of an array of text blocks.
func blocksText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &blocks)
	var out []string
	for _, b := range blocks {
		if b.Text != "" {
			out = append(out, b.Text)
		}
	}
	return strings.Join(out, "\n")
}

// anthropicReply builds the content blocks and stop reason of a reply.
func anthropicReply(a Action, ids *idGen) ([]anthropicBlock, string) {
	var blocks []anthropicBlock
	if a.Text != "" {
		blocks = append(blocks, anthropicBlock{Type: "text", Text: a.Text})
	}
	for _, c := range a.Calls {
		args, _ := json.Marshal(c.Args)
		blocks = append(blocks, anthropicBlock{Type: "tool_use", ID: ids.next("toolu_fake_"), Name: c.Tool.FullName(), Input: args})
	}
	if len(a.Calls) > 0 {
		return blocks, "tool_use"
	}
	return blocks, "end_turn"
}

// writeAnthropic answers a Messages request, as SSE when it asked to stream.
func writeAnthropic(w http.ResponseWriter, req Request, a Action, ids *idGen) {
	blocks, stop := anthropicReply(a, ids)
	id := ids.next("msg_fake_")
	u := a.Usage.or()
	usage := map[string]int{"input_tokens": u.In, "output_tokens": u.Out, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	sse := newSSE(w)
	sse.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": u.In, "output_tokens": 1}}})
	for i, b := range blocks {
		switch b.Type {
		case "text":
			sse.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, part := range chunks(b.Text) {
				sse.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": part}})
			}
		case "tool_use":
			sse.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			for _, part := range chunks(string(b.Input)) {
				sse.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		}
		sse.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	sse.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": u.Out}})
	sse.event("message_stop", map[string]any{"type": "message_stop"})
}
