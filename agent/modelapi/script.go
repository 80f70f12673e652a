package modelapi

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/todosh/todosh/agent"
)

// A script file (--agent script:FILE) is JSON: either an array of replies,
// or an object
//
//	{
//	  "prompts":  ["what the person is expected to type", ...],
//	  "replies":  [{"text": "...", "tool_calls": [{"name": "todo_write", "arguments": {...}}]}, ...],
//	  "end_text": "(script ended)"
//	}
//
// Each model call plays the next reply: its text is streamed in pieces, then
// its tool calls run exactly as a real model's would. "arguments" is the JSON
// object passed to the tool, or a JSON string holding the raw arguments
// (so a script can send malformed JSON). When the replies run out, every
// further call answers with plain text end_text (default "(script ended)"),
// which the continuation policy treats as a lazy stop and gives up on after
// its usual attempts. "prompts" is not sent anywhere: it documents the
// person's side (the demo's is DemoPrompts).

// ScriptEnded is the reply of a script that has run out of replies.
const ScriptEnded = "(script ended)"

// maxScript bounds a script file.
const maxScript = 16 << 20

// DemoDelay is the pause between streamed pieces of the demo's replies.
const DemoDelay = 25 * time.Millisecond

//go:embed demo.json
var demoScript []byte

type scriptFile struct {
	Prompts []string      `json:"prompts"`
	Replies []scriptReply `json:"replies"`
	EndText string        `json:"end_text"`
}

type scriptReply struct {
	Text      string       `json:"text"`
	ToolCalls []scriptCall `json:"tool_calls"`
}

type scriptCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Script is the Model that plays replies from a script file, one per call,
// whatever the conversation says.
type Script struct {
	// Delay is the pause between streamed pieces of text; 0 streams at once.
	Delay   time.Duration
	replies []Message
	endText string
	prompts []string
	next    int
	// loop starts the replies over once they are played (the demo, which a
	// person may run again in the same shell), so endText is never reached.
	loop bool
}

// ParseScript reads a script file (see the format above). Unknown fields
// are errors, so a typo in a hand-written script does not pass silently.
func ParseScript(data []byte) (*Script, error) {
	if len(data) > maxScript {
		return nil, fmt.Errorf("script is over %d MiB", maxScript>>20)
	}
	data = bytes.TrimSpace(data)
	var f scriptFile
	var err error
	if len(data) > 0 && data[0] == '[' {
		err = scriptDecode(data, &f.Replies)
	} else {
		err = scriptDecode(data, &f)
	}
	if err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	s := &Script{endText: f.EndText, prompts: f.Prompts}
	if strings.TrimSpace(s.endText) == "" {
		s.endText = ScriptEnded
	}
	for i, r := range f.Replies {
		m := Message{Role: "assistant", Content: r.Text}
		for j, c := range r.ToolCalls {
			if strings.TrimSpace(c.Name) == "" {
				return nil, fmt.Errorf("script: reply %d tool call %d: name is empty", i+1, j+1)
			}
			args := string(bytes.TrimSpace(c.Arguments))
			var s string
			switch {
			case args == "" || args == "null":
				args = "{}"
			case json.Unmarshal(c.Arguments, &s) == nil:
				args = s
			}
			m.ToolCalls = append(m.ToolCalls, ToolCall{
				ID:       fmt.Sprintf("script_%d_%d", i+1, j+1),
				Type:     "function",
				Function: FunctionCall{Name: c.Name, Arguments: args},
			})
		}
		s.replies = append(s.replies, m)
	}
	return s, nil
}

func scriptDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("parse: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return errors.New("parse: data after the JSON value")
	}
	return nil
}

// Complete plays the next reply, streaming its text in word-sized pieces
// with Delay between them.
func (s *Script) Complete(ctx context.Context, _ Request, onText func(string)) (Message, error) {
	if s.loop && s.next >= len(s.replies) {
		s.next = 0
	}
	m := Message{Role: "assistant", Content: s.endText}
	if s.next < len(s.replies) {
		m = s.replies[s.next]
		m.ToolCalls = append([]ToolCall(nil), m.ToolCalls...)
	}
	for i, piece := range scriptPieces(m.Content) {
		if i > 0 && s.Delay > 0 {
			t := time.NewTimer(s.Delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return Message{}, ctx.Err()
			case <-t.C:
			}
		}
		if err := ctx.Err(); err != nil {
			return Message{}, err
		}
		onText(piece)
	}
	if err := ctx.Err(); err != nil {
		return Message{}, err
	}
	if s.next < len(s.replies) {
		s.next++
	}
	return m, nil
}

// Remaining is how many scripted replies have not been played.
func (s *Script) Remaining() int { return len(s.replies) - s.next }

// scriptPieces splits text after each run of white space, so each piece is a
// word with the space or newline that follows it.
func scriptPieces(text string) []string {
	var pieces []string
	start, inSpace := 0, false
	for i, r := range text {
		sp := unicode.IsSpace(r)
		if inSpace && !sp {
			pieces = append(pieces, text[start:i])
			start = i
		}
		inSpace = sp
	}
	if start < len(text) {
		pieces = append(pieces, text[start:])
	}
	return pieces
}

// NewScript returns the "script" backend, which plays the replies of a
// script file through the same turn loop and tools as a real model. Its
// conversation is not saved.
func NewScript(data []byte, sess agent.Session, requireEvidence bool) (*Backend, error) {
	s, err := ParseScript(data)
	if err != nil {
		return nil, err
	}
	return newBackend("script", s, sess, requireEvidence), nil
}

// NewDemo returns the "demo" backend: an embedded script that plans a list,
// makes progress, stops lazily (so the shell continues it), pauses to ask the
// person, and completes the list after the person's answer; the next prompt
// starts it over. It streams with DemoDelay; see DemoPrompts for the
// person's side.
func NewDemo(sess agent.Session) (*Backend, error) {
	b, err := NewScript(demoScript, sess, false)
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	b.name = "demo"
	b.model.(*Script).loop = true
	b.SetDelay(DemoDelay)
	return b, nil
}

// DemoPrompts are the person's prompts the demo was written for: the first
// starts it, the second answers its pause. Any text works; the script does
// not read them.
func DemoPrompts() []string {
	s, err := ParseScript(demoScript)
	if err != nil {
		return nil
	}
	return append([]string(nil), s.prompts...)
}
