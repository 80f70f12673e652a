package modelapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent"
)

// Message is one message of a conversation in the chat completions format;
// it is also what the conversation file stores.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is one call of a tool in an assistant message.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the tool and carries its arguments as JSON text.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// maxReplyBytes bounds one assembled reply (text plus tool arguments), so a
// server that streams forever fails instead of filling memory.
const maxReplyBytes = 16 << 20

// errNoDone is a stream that ended without its "data: [DONE]" line: the
// connection was cut or the server died mid-reply.
var errNoDone = errors.New("the stream ended before [DONE] (connection cut or server stopped): try again")

// streamChunk is the part of a chat.completion.chunk todosh reads.
type streamChunk struct {
	Choices []streamChoice  `json:"choices"`
	Error   json.RawMessage `json:"error"`
	// Usage is read apart (usageOf): a count written as no whole number
	// must not make the chunk malformed.
	Usage json.RawMessage `json:"usage"`
}

// streamChoice is one choice of a chunk; todosh asks for one and reads
// index 0. A whole completion's message has the same shape as a delta.
type streamChoice struct {
	Index int         `json:"index"`
	Delta streamDelta `json:"delta"`
}

type streamDelta struct {
	Content   string          `json:"content"`
	ToolCalls []toolCallDelta `json:"tool_calls"`
}

// toolCallDelta is one piece of a streamed tool call: id and name come in
// its first piece, the arguments in pieces to concatenate.
type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// assembler builds one assistant message from the chunks of a stream.
type assembler struct {
	msg     Message
	text    strings.Builder
	args    []strings.Builder
	byIndex map[int]int // stream index → position in msg.ToolCalls
	size    int
}

// add folds one chunk into the message, passing text to onText as it comes.
func (a *assembler) add(c *streamChunk, onText func(string)) error {
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		if s := ch.Delta.Content; s != "" {
			if err := a.grow(len(s)); err != nil {
				return err
			}
			a.text.WriteString(s)
			onText(s)
		}
		for _, d := range ch.Delta.ToolCalls {
			i := a.callFor(d)
			tc := &a.msg.ToolCalls[i]
			if tc.ID == "" {
				tc.ID = d.ID
			}
			if tc.Function.Name == "" {
				// Some servers repeat the name in every piece; it is never
				// split, so the first one is kept.
				tc.Function.Name = d.Function.Name
			}
			args := argumentText(d.Function.Arguments)
			if err := a.grow(len(args)); err != nil {
				return err
			}
			a.args[i].WriteString(args)
		}
	}
	return nil
}

// callFor finds the call a delta belongs to. Deltas carry an index; a
// server that leaves it out starts a new call with a new id.
func (a *assembler) callFor(d toolCallDelta) int {
	if a.byIndex == nil {
		a.byIndex = map[int]int{}
	}
	if d.Index != nil {
		if i, ok := a.byIndex[*d.Index]; ok {
			return i
		}
	} else if n := len(a.msg.ToolCalls); n > 0 && (d.ID == "" || d.ID == a.msg.ToolCalls[n-1].ID) {
		return n - 1
	}
	a.msg.ToolCalls = append(a.msg.ToolCalls, ToolCall{Type: "function"})
	a.args = append(a.args, strings.Builder{})
	i := len(a.msg.ToolCalls) - 1
	if d.Index != nil {
		a.byIndex[*d.Index] = i
	}
	return i
}

func (a *assembler) grow(n int) error {
	a.size += n
	if a.size > maxReplyBytes {
		return fmt.Errorf("the reply is over %d MiB", maxReplyBytes>>20)
	}
	return nil
}

// message is the assembled assistant message.
func (a *assembler) message() Message {
	a.msg.Role = "assistant"
	a.msg.Content = a.text.String()
	for i := range a.msg.ToolCalls {
		a.msg.ToolCalls[i].Function.Arguments = a.args[i].String()
	}
	return a.msg
}

// argumentText is the text of a streamed arguments field: normally a JSON
// string holding a piece of JSON, but some servers send the object itself.
func argumentText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// decodeStream reads an SSE response of chat.completion.chunk objects up to
// "data: [DONE]" and assembles the assistant message, passing text deltas
// to onText as they arrive; usage is the last usage a chunk carried (nil
// when none did). A malformed chunk, an error object in the stream or a
// stream without [DONE] is an error.
func decodeStream(r io.Reader, onText func(string)) (msg Message, usage json.RawMessage, err error) {
	sse := newSSEReader(r)
	var a assembler
	for {
		data, err := sse.Next()
		if err == io.EOF {
			return Message{}, nil, errNoDone
		}
		if err != nil {
			return Message{}, nil, fmt.Errorf("read stream: %w", err)
		}
		data = bytes.TrimSpace(data)
		switch {
		case len(data) == 0:
			continue
		case string(data) == "[DONE]":
			return a.message(), usage, nil
		}
		var c streamChunk
		if err := json.Unmarshal(data, &c); err != nil {
			return Message{}, nil, fmt.Errorf("malformed stream chunk %s: %v", todolist.ShortLine(string(data), 80), strings.TrimPrefix(err.Error(), "json: "))
		}
		if given(c.Error) {
			return Message{}, nil, fmt.Errorf("the server sent an error: %s", errorText(c.Error))
		}
		if given(c.Usage) {
			usage = c.Usage
		}
		if err := a.add(&c, onText); err != nil {
			return Message{}, nil, err
		}
	}
}

// decodeCompletion reads a whole (non-streamed) chat.completion, for servers
// that ignore "stream": true.
func decodeCompletion(r io.Reader, onText func(string)) (Message, json.RawMessage, error) {
	var c struct {
		Choices []struct {
			Message streamDelta `json:"message"`
		} `json:"choices"`
		Error json.RawMessage `json:"error"`
		Usage json.RawMessage `json:"usage"`
	}
	if err := json.NewDecoder(io.LimitReader(r, maxReplyBytes)).Decode(&c); err != nil {
		return Message{}, nil, fmt.Errorf("malformed response: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	if given(c.Error) {
		return Message{}, nil, fmt.Errorf("the server sent an error: %s", errorText(c.Error))
	}
	if len(c.Choices) == 0 {
		return Message{}, nil, errors.New("malformed response: no choices")
	}
	delta := c.Choices[0].Message
	for i := range delta.ToolCalls {
		delta.ToolCalls[i].Index = &i
	}
	var a assembler
	if err := a.add(&streamChunk{Choices: []streamChoice{{Delta: delta}}}, onText); err != nil {
		return Message{}, nil, err
	}
	return a.message(), c.Usage, nil
}

// usageOf reads the chat completions API's usage object: prompt_tokens
// (cached ones included) and completion_tokens (reasoning included); ok is
// false when there is none. The counts are as written (agent.UsageCount);
// the backend's agent.UsageMeter refuses what cannot be true.
func usageOf(raw json.RawMessage) (agent.Usage, bool) {
	var u struct {
		Prompt     json.RawMessage `json:"prompt_tokens"`
		Completion json.RawMessage `json:"completion_tokens"`
	}
	if !given(raw) || json.Unmarshal(raw, &u) != nil {
		return agent.Usage{}, false
	}
	return agent.Usage{Input: agent.UsageCount(u.Prompt), Output: agent.UsageCount(u.Completion)}, true
}

// given reports whether a member was sent with a value: neither missing
// nor null (an error object, a usage object).
func given(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null"
}

// errorText finds the message in an error value: a string, or an object
// with "message" (OpenAI, Ollama, vLLM) or "detail".
func errorText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return todolist.ShortLine(s, 300)
	}
	var o struct {
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &o) == nil {
		switch {
		case o.Message != "":
			return todolist.ShortLine(o.Message, 300)
		case given(o.Error):
			return errorText(o.Error)
		case given(o.Detail):
			return errorText(o.Detail)
		}
	}
	return todolist.ShortLine(string(raw), 300)
}
