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
//   - claude: each assistant line's message.usage (the output count a
//     message starts with, 1, as Claude Code writes it), and the result
//     line's usage, the turn's total;
//   - qwen: each assistant line's message.usage, its request's whole, and
//     the result line's usage, the session's total (the turns before are
//     kept in FAKECLI_USAGE_FILE, when set, as for codex);
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
	case u.kind == "qwen" && typ == "assistant":
		msg, _ := m["message"].(map[string]any)
		if msg == nil {
			return line
		}
		u.requests++
		msg["usage"] = map[string]any{"input_tokens": u.in, "output_tokens": u.out, "cache_read_input_tokens": 0}
	case u.kind == "qwen" && typ == "result":
		turns := u.sessionTurns(u.requests)
		m["usage"] = map[string]any{"input_tokens": times(u.in, turns), "output_tokens": times(u.out, turns), "cache_read_input_tokens": 0}
	case u.kind == "claude" && typ == "assistant":
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
	case u.kind == "claude" && typ == "result":
		m["usage"] = map[string]any{"input_tokens": times(u.in, u.requests), "output_tokens": times(u.out, u.requests),
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	case u.kind == "codex" && typ == "turn.completed":
		turns := u.sessionTurns(1)
		m["usage"] = map[string]any{"input_tokens": times(u.in, turns), "cached_input_tokens": 0, "output_tokens": times(u.out, turns), "reasoning_output_tokens": 0}
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

// sessionTurns is how many requests the session has made, this run's n
// among them: the ones before are the token_count lines of
// FAKECLI_USAGE_FILE (written as Codex's rollout writes them), to which
// this run's total is added. Without the file, n.
func (u *usagePlay) sessionTurns(n int) int {
	f := os.Getenv("FAKECLI_USAGE_FILE")
	if f == "" {
		return n
	}
	data, _ := os.ReadFile(f)
	total := n + strings.Count(string(data), "\n")
	if fh, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		for range n {
			tc, _ := json.Marshal(map[string]any{"type": "event_msg", "payload": map[string]any{"type": "token_count",
				"info": map[string]any{"total_token_usage": map[string]any{"input_tokens": times(u.in, total), "output_tokens": times(u.out, total)}}}})
			fh.Write(append(tc, '\n'))
		}
		fh.Close()
	}
	return total
}
