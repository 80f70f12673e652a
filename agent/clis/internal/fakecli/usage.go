package main

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
)

// The "reports usage" scenario: FAKECLI_USAGE=IN,OUT makes every model
// request of the replayed transcript report IN input and OUT output
// tokens, in the kind's own wire format:
//
//   - claude, qwen: each assistant line's message.usage (the output count a
//     message starts with, 1, as Claude Code writes it), and the result
//     line's usage, the turn's total;
//   - codex: turn.completed's usage, the thread's total: the turns before
//     are kept in FAKECLI_USAGE_FILE (when set), as Codex keeps them in its
//     rollout, and written there as a token_count line;
//   - gemini: the result line's stats, the turn's total;
//   - pi: each assistant message_end's usage.
//
// A count may be any JSON number ("-5", "1e13"), to play an agent that
// reports nonsense.

// usagePlay is the scenario's state over one replay.
type usagePlay struct {
	kind    string
	in, out json.Number
	// requests are the model requests of the turn so far (Claude's by
	// message id).
	requests int
	seen     map[string]bool
}

// newUsagePlay reads FAKECLI_USAGE; nil when it is not set.
func newUsagePlay(kind string) *usagePlay {
	in, out, ok := strings.Cut(os.Getenv("FAKECLI_USAGE"), ",")
	if !ok {
		return nil
	}
	return &usagePlay{kind: kind, in: json.Number(in), out: json.Number(out), seen: map[string]bool{}}
}

// times is n times the count c, as JSON: c itself when it is no integer.
func times(c json.Number, n int) json.Number {
	v, err := strconv.ParseInt(string(c), 10, 64)
	if err != nil {
		return c
	}
	return json.Number(strconv.FormatInt(v*int64(n), 10))
}

// line rewrites one transcript line; lines without usage come back as
// they are.
func (u *usagePlay) line(line []byte) []byte {
	if !strings.Contains(string(line), "usage") && !strings.Contains(string(line), `"stats"`) {
		return line
	}
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(string(line)))
	d.UseNumber()
	if d.Decode(&m) != nil {
		return line
	}
	typ, _ := m["type"].(string)
	switch {
	case (u.kind == "claude" || u.kind == "qwen") && typ == "assistant":
		msg, _ := m["message"].(map[string]any)
		if msg == nil {
			return line
		}
		id, _ := msg["id"].(string)
		if id == "" || !u.seen[id] {
			u.seen[id] = true
			u.requests++
		}
		msg["usage"] = map[string]any{"input_tokens": u.in, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	case (u.kind == "claude" || u.kind == "qwen") && typ == "result":
		m["usage"] = map[string]any{"input_tokens": times(u.in, u.requests), "output_tokens": times(u.out, u.requests),
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	case u.kind == "codex" && typ == "turn.completed":
		in, out := u.in, u.out
		if f := os.Getenv("FAKECLI_USAGE_FILE"); f != "" {
			turns := 1
			if data, err := os.ReadFile(f); err == nil {
				turns += strings.Count(string(data), "\n")
			}
			in, out = times(u.in, turns), times(u.out, turns)
			if fh, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
				tc, _ := json.Marshal(map[string]any{"type": "event_msg", "payload": map[string]any{"type": "token_count",
					"info": map[string]any{"total_token_usage": map[string]any{"input_tokens": in, "output_tokens": out}}}})
				fh.Write(append(tc, '\n'))
				fh.Close()
			}
		}
		m["usage"] = map[string]any{"input_tokens": in, "cached_input_tokens": 0, "output_tokens": out, "reasoning_output_tokens": 0}
	case u.kind == "gemini" && typ == "result":
		stats, _ := m["stats"].(map[string]any)
		if stats == nil {
			stats = map[string]any{}
		}
		stats["input_tokens"], stats["output_tokens"] = u.in, u.out
		m["stats"] = stats
	case u.kind == "pi" && typ == "message_end":
		msg, _ := m["message"].(map[string]any)
		if role, _ := msg["role"].(string); role != "assistant" {
			return line
		}
		msg["usage"] = map[string]any{"input": u.in, "output": u.out, "cacheRead": 0, "cacheWrite": 0}
	default:
		return line
	}
	out, err := json.Marshal(m)
	if err != nil {
		return line
	}
	return out
}
