package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// responsesTool is one entry of a Responses request's tools: a function,
// a custom (freeform) tool, or a namespace holding more tools (Codex puts
// each MCP server's tools in one).
type responsesTool struct {
	Type       string          `json:"type"`
	Execution  string          `json:"execution"`
	Name       string          `json:"name"`
	Parameters json.RawMessage `json:"parameters"`
	Tools      []responsesTool `json:"tools"`
}

// responsesItem is one input item: a message, a function call or its output.
type responsesItem struct {
	Type      string          `json:"type"`
	Tools     []responsesTool `json:"tools"`
	Args      json.RawMessage `json:"arguments"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
}

// parseResponses turns an OpenAI Responses body into a Request.
func parseResponses(body []byte) (Request, error) {
	var in struct {
		Model        string          `json:"model"`
		Stream       bool            `json:"stream"`
		Instructions string          `json:"instructions"`
		Input        json.RawMessage `json:"input"`
		Tools        []responsesTool `json:"tools"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, fmt.Errorf("openai responses request: %w", err)
	}
	req := Request{Protocol: "responses", Model: in.Model, Stream: in.Stream, System: in.Instructions}
	req.Tools = responsesTools(in.Tools)
	var text string
	if json.Unmarshal(in.Input, &text) == nil {
		req.Messages = []Msg{{Role: "user", Text: text}}
		return req, nil
	}
	var items []responsesItem
	if err := json.Unmarshal(in.Input, &items); err != nil {
		return Request{}, fmt.Errorf("openai responses input: %w", err)
	}
	for _, it := range items {
		switch it.Type {
		case "message", "":
			role := it.Role
			if role == "developer" {
				role = "system"
			}
			req.Messages = appendMsg(req.Messages, Msg{Role: role, Text: responsesText(it.Content)})
		case "function_call":
			name := Tool{Name: it.Name, Namespace: it.Namespace}.FullName()
			var args string // a JSON text inside a string
			json.Unmarshal(it.Args, &args)
			req.Messages = appendMsg(req.Messages, Msg{Role: "assistant", Calls: []Call{{ID: it.CallID, Name: name, Args: json.RawMessage(args)}}})
		case "tool_search_call":
			req.Messages = appendMsg(req.Messages, Msg{Role: "assistant", Calls: []Call{{ID: it.CallID, Name: "tool_search", Args: it.Args}}})
		case "tool_search_output":
			// The tools found are offered from here on, like those in tools.
			req.Tools = append(req.Tools, responsesTools(it.Tools)...)
			req.Messages = append(req.Messages, Msg{Role: "user", Results: []Result{{CallID: it.CallID, Text: "tools loaded"}}})
		case "custom_tool_call":
			args, _ := json.Marshal(map[string]string{"input": it.Input})
			req.Messages = appendMsg(req.Messages, Msg{Role: "assistant", Calls: []Call{{ID: it.CallID, Name: it.Name, Args: args}}})
		case "function_call_output", "custom_tool_call_output":
			req.Messages = append(req.Messages, Msg{Role: "user", Results: []Result{{CallID: it.CallID, Text: responsesText(it.Output)}}})
		}
	}
	return req, nil
}

// responsesTools flattens a tools list: namespaces give their tools a
// Namespace; Codex's hosted tool_search becomes a Hosted tool.
func responsesTools(in []responsesTool) []Tool {
	var out []Tool
	for _, t := range in {
		switch {
		case t.Type == "namespace":
			for _, sub := range t.Tools {
				out = append(out, Tool{Name: sub.Name, Namespace: t.Name, Schema: sub.Parameters})
			}
		case t.Type == "tool_search":
			out = append(out, Tool{Name: "tool_search", Schema: t.Parameters, Hosted: true})
		case t.Name != "":
			out = append(out, Tool{Name: t.Name, Schema: t.Parameters})
		}
	}
	return out
}

// appendMsg appends m, merging it into the previous message when both are
// the model's: Responses and Gemini history give a reply's text and each of
// its calls as separate items, but they are one turn of the model.
func appendMsg(msgs []Msg, m Msg) []Msg {
	if n := len(msgs); n > 0 && m.Role == "assistant" && msgs[n-1].Role == "assistant" {
		last := &msgs[n-1]
		if m.Text != "" {
			last.Text = strings.TrimSpace(last.Text + "\n" + m.Text)
		}
		last.Calls = append(last.Calls, m.Calls...)
		return msgs
	}
	return append(msgs, m)
}

// responsesText returns the text of a string or of content parts.
func responsesText(raw json.RawMessage) string {
	return blocksText(raw)
}

// responsesOutput builds the output items of a reply.
func responsesOutput(a Action, ids *idGen) []map[string]any {
	var out []map[string]any
	if a.Text != "" {
		out = append(out, map[string]any{"type": "message", "id": ids.next("msg_fake_"), "role": "assistant", "status": "completed",
			"content": []map[string]any{{"type": "output_text", "text": a.Text, "annotations": []any{}}}})
	}
	for _, c := range a.Calls {
		args, _ := json.Marshal(c.Args)
		if c.Tool.Hosted {
			out = append(out, map[string]any{"type": "tool_search_call", "id": ids.next("ts_fake_"), "call_id": ids.next("call_fake_"),
				"execution": "client", "status": "completed", "arguments": c.Args})
			continue
		}
		item := map[string]any{"type": "function_call", "id": ids.next("fc_fake_"), "call_id": ids.next("call_fake_"),
			"name": c.Tool.Name, "arguments": string(args), "status": "completed"}
		if c.Tool.Namespace != "" {
			item["namespace"] = c.Tool.Namespace
		}
		out = append(out, item)
	}
	return out
}

// writeResponses answers a Responses request, as SSE when it asked to stream.
func writeResponses(w http.ResponseWriter, req Request, a Action, ids *idGen) {
	output := responsesOutput(a, ids)
	id := ids.next("resp_fake_")
	u := a.Usage.or()
	usage := map[string]any{"input_tokens": u.In, "input_tokens_details": map[string]int{"cached_tokens": 0},
		"output_tokens": u.Out, "output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": u.In + u.Out}
	resp := func(status string, output any) map[string]any {
		r := map[string]any{"id": id, "object": "response", "created_at": 0, "status": status, "model": req.Model, "output": output}
		if status == "completed" {
			r["usage"] = usage
		}
		return r
	}
	if !req.Stream {
		writeJSON(w, resp("completed", output))
		return
	}
	sse := newSSE(w)
	seq := 0
	send := func(typ string, v map[string]any) {
		v["type"], v["sequence_number"] = typ, seq
		seq++
		sse.event(typ, v)
	}
	send("response.created", map[string]any{"response": resp("in_progress", []any{})})
	send("response.in_progress", map[string]any{"response": resp("in_progress", []any{})})
	for i, item := range output {
		added := map[string]any{}
		for k, v := range item {
			added[k] = v
		}
		added["status"] = "in_progress"
		switch item["type"] {
		case "message":
			added["content"] = []any{}
			send("response.output_item.added", map[string]any{"output_index": i, "item": added})
			send("response.content_part.added", map[string]any{"item_id": item["id"], "output_index": i, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			for _, part := range chunks(a.Text) {
				send("response.output_text.delta", map[string]any{"item_id": item["id"], "output_index": i, "content_index": 0, "delta": part})
			}
			send("response.output_text.done", map[string]any{"item_id": item["id"], "output_index": i, "content_index": 0, "text": a.Text})
			send("response.content_part.done", map[string]any{"item_id": item["id"], "output_index": i, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": a.Text, "annotations": []any{}}})
		case "function_call":
			added["arguments"] = ""
			send("response.output_item.added", map[string]any{"output_index": i, "item": added})
			args, _ := item["arguments"].(string)
			for _, part := range chunks(args) {
				send("response.function_call_arguments.delta", map[string]any{"item_id": item["id"], "output_index": i, "delta": part})
			}
			send("response.function_call_arguments.done", map[string]any{"item_id": item["id"], "output_index": i, "arguments": args})
		}
		send("response.output_item.done", map[string]any{"output_index": i, "item": item})
	}
	send("response.completed", map[string]any{"response": resp("completed", output)})
}
