package acpagent

import (
	"context"
	"encoding/json"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/agent"
)

// TestPromptUsage: a prompt response's usage, as claude-agent-acp 0.23.1
// wrote it (recorded), and in shapes no agent should send.
func TestPromptUsage(t *testing.T) {
	for _, tc := range []struct {
		name, resp string
		want       agent.Usage
		ok         bool
	}{
		{"claude-agent-acp 0.23.1", `{"stopReason": "end_turn", "usage": {"inputTokens": 360, "outputTokens": 120, "cachedReadTokens": 0, "cachedWriteTokens": 0, "totalTokens": 480}}`,
			agent.Usage{Input: 360, Output: 120}, true},
		{"codex-acp 0.16.0: none", `{"stopReason": "end_turn"}`, agent.Usage{}, false},
		{"cache reads and writes are input", `{"stopReason":"end_turn","usage":{"inputTokens":3,"outputTokens":7,"cachedReadTokens":20000,"cachedWriteTokens":500,"totalTokens":20510}}`,
			agent.Usage{Input: 20503, Output: 7}, true},
		{"a negative cache count spoils the input", `{"stopReason":"end_turn","usage":{"inputTokens":3,"outputTokens":7,"cachedReadTokens":-2,"totalTokens":8}}`,
			agent.Usage{Input: -1, Output: 7}, true},
	} {
		var r acp.PromptResponse
		if err := json.Unmarshal([]byte(tc.resp), &r); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, ok := promptUsage(r.Usage)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %+v %v, want %+v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestTurnUsage: through the fake agent in its "reports usage" scenario,
// each turn's usage arrives as one EventUsage; without it, none.
func TestTurnUsage(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want []agent.Usage
	}{
		{[]string{"FAKEACP_USAGE=360,120"}, []agent.Usage{{Input: 360, Output: 120}}},
		{nil, nil},
	} {
		a, _ := newTestAgent(t, tc.env...)
		var got []agent.Usage
		if _, err := a.RunTurn(context.Background(), agent.Turn{Prompt: "[[plan]]"}, func(ev agent.Event) {
			if ev.Kind == agent.EventUsage {
				got = append(got, *ev.Usage)
				if !ev.AtEnd { // the prompt's response: the whole turn's, at its end
					t.Errorf("%v: usage not marked as the turn's end", tc.env)
				}
			}
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tc.want) || len(got) > 0 && got[0] != tc.want[0] {
			t.Errorf("%v: usage %+v, want %+v", tc.env, got, tc.want)
		}
	}
}
