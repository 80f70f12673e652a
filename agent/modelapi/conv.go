package modelapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/todosh/todosh/todostore"
)

// Bounds of a saved conversation. The oldest turns go first; the newest turn
// is always kept whole, so the model never sees a reply without its prompt.
const (
	MaxConvBytes    = 512 << 10
	MaxConvMessages = 400
	maxConvFile     = 16 << 20 // a file larger than this is refused as corrupt
	convVersion     = 1
)

// ConvPath is where the conversation of session id is saved: the store
// names every file of its directory (todostore.Store.ConvPath).
func ConvPath(st *todostore.Store, id string) string { return st.ConvPath(id) }

type convFile struct {
	Version  int       `json:"version"`
	Session  string    `json:"session"`
	Messages []Message `json:"messages"`
}

// loadConv reads a saved conversation; a missing file is an empty one.
func loadConv(path string) ([]Message, error) {
	f, err := todostore.OpenOwn(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read conversation: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConvFile+1))
	if err != nil {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			err = pe.Err // the path is said once
		}
		return nil, fmt.Errorf("read conversation %s: %w", path, err)
	}
	msgs, err := decodeConv(data)
	if err != nil {
		return nil, fmt.Errorf("conversation %s: %v (move it aside to start a fresh conversation)", path, err)
	}
	return msgs, nil
}

// decodeConv parses and checks the bytes of a conversation file.
func decodeConv(data []byte) ([]Message, error) {
	if len(data) > maxConvFile {
		return nil, fmt.Errorf("file is over %d MiB", maxConvFile>>20)
	}
	var cf convFile
	if err := json.Unmarshal(data, &cf); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if cf.Version != convVersion {
		return nil, fmt.Errorf("unsupported version %d", cf.Version)
	}
	for i, m := range cf.Messages {
		switch {
		case m.Role != "user" && m.Role != "assistant" && m.Role != "tool":
			return nil, fmt.Errorf("message %d has role %q", i+1, m.Role)
		case m.Role == "tool" && m.ToolCallID == "":
			return nil, fmt.Errorf("message %d is a tool result without tool_call_id", i+1)
		}
	}
	return cf.Messages, nil
}

// saveConv writes the conversation atomically, creating the store directory
// if this is the session's first write.
func saveConv(path, id string, msgs []Message) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(convFile{Version: convVersion, Session: id, Messages: msgs}); err != nil {
		return fmt.Errorf("encode conversation: %w", err)
	}
	if err := todostore.EnsurePrivateDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("save conversation: %w", err)
	}
	return todostore.WriteFileAtomic(path, buf.Bytes())
}

// trimConv drops the oldest turns (a turn starts at a user message) until
// the conversation is within maxBytes and maxMsgs, keeping at least the
// newest turn. Tool results stay with the assistant message that asked for
// them because both are inside one turn.
func trimConv(msgs []Message, maxBytes, maxMsgs int) []Message {
	total := 0
	for _, m := range msgs {
		total += msgSize(m)
	}
	start := 0
	for total > maxBytes || len(msgs)-start > maxMsgs {
		next := start + 1
		for next < len(msgs) && msgs[next].Role != "user" {
			next++
		}
		if next >= len(msgs) {
			break
		}
		for _, m := range msgs[start:next] {
			total -= msgSize(m)
		}
		start = next
	}
	if total > maxBytes && start < len(msgs) {
		// The newest turn alone is too big: keeping it whole would make a
		// file that grows past what loadConv accepts, and the session
		// could no longer start its agent. Keep its summary instead.
		return summariseTurn(msgs[start:], maxBytes)
	}
	if start == 0 {
		return msgs
	}
	return append([]Message(nil), msgs[start:]...)
}

// summariseTurn stands in for a turn too big to keep: its prompt cut to a
// quarter of maxBytes, then one assistant message that says what was left
// out, with the end of the model's last text. The result is a valid
// conversation (no tool call without its result) within maxBytes.
func summariseTurn(turn []Message, maxBytes int) []Message {
	first := turn[0]
	first.ToolCalls, first.ToolCallID = nil, ""
	if first.Role != "user" {
		first = Message{Role: "user", Content: "(the prompt of this turn was not kept)"}
	}
	first.Content = cutText(first.Content, maxBytes/4)
	size, calls, last := 0, 0, ""
	for _, m := range turn[1:] {
		size += msgSize(m)
		calls += len(m.ToolCalls)
		if m.Role == "assistant" && strings.TrimSpace(m.Content) != "" {
			last = m.Content
		}
	}
	note := fmt.Sprintf("[todosh: this turn (%d messages, %d tool calls, about %d KiB) was too large to keep in the saved conversation; the todo list holds its changes.", len(turn)-1, calls, (size+1023)>>10)
	if last != "" {
		note += " The reply ended:]\n" + cutText(last, maxBytes/4)
	} else {
		note += "]"
	}
	return []Message{first, {Role: "assistant", Content: note}}
}

// cutText keeps at most max bytes of s, cut at a rune boundary, and says
// how much was cut.
func cutText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + fmt.Sprintf(" […%d bytes cut]", len(s)-n)
}

// msgSize approximates the encoded size of a message.
func msgSize(m Message) int {
	n := 48 + len(m.Content) + len(m.ToolCallID)
	for _, tc := range m.ToolCalls {
		n += 64 + len(tc.ID) + len(tc.Function.Name) + len(tc.Function.Arguments)
	}
	return n
}
