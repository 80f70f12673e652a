package hooks

import (
	"fmt"
	"testing"
)

// TestContinueAnswer: what each agent is answered at a continuation, and
// Claude Code's release decides between its additional context and a
// block.
func TestContinueAnswer(t *testing.T) {
	const line, prompt = "todosh: continuing 1/3 — 2 open items", "You stopped...\n<todo-list>\n</todo-list>\n"
	for _, tc := range []struct {
		agent, aiAgent string
		want           map[string]any
		sent           string
		owed           bool
	}{
		{"claude", "claude-code_2-1-332_harness", map[string]any{"systemMessage": line,
			"hookSpecificOutput": map[string]string{"hookEventName": "Stop", "additionalContext": prompt}}, "", false},
		{"claude", "claude-code_2-2-0_harness", map[string]any{"systemMessage": line,
			"hookSpecificOutput": map[string]string{"hookEventName": "Stop", "additionalContext": prompt}}, "", false},
		{"claude", "claude-code_2-1-331_harness", map[string]any{"decision": "block", "reason": line + "\n" + prompt}, line + "\n" + prompt, false},
		{"claude", "", map[string]any{"decision": "block", "reason": line + "\n" + prompt}, line + "\n" + prompt, false},
		{"claude", "claude-code_x_harness", map[string]any{"decision": "block", "reason": line + "\n" + prompt}, line + "\n" + prompt, false},
		{"gemini", "", map[string]any{"decision": "deny", "reason": line}, line, true},
		{"qwen", "", map[string]any{"decision": "block", "reason": line}, line, true},
		{"codex", "", map[string]any{"decision": "block", "reason": line + "\n" + prompt}, line + "\n" + prompt, false},
	} {
		a, _ := Lookup(tc.agent)
		got := a.continueAnswer(line, prompt, func(k string) string {
			if k == "AI_AGENT" {
				return tc.aiAgent
			}
			return ""
		})
		g, _, _ := encode(got.Out)
		w, _, _ := encode(tc.want)
		// The continuation is owed to the prompt hook when the agent is
		// sent on with the line alone.
		owed := got.Sent == line
		if string(g) != string(w) || got.Sent != tc.sent || owed != tc.owed {
			t.Errorf("%s %q: got %s sent %q owed %v\nwant %s sent %q owed %v", tc.agent, tc.aiAgent, g, got.Sent, owed, w, tc.sent, tc.owed)
		}
	}
}

func TestAgentVersion(t *testing.T) {
	for in, want := range map[string]string{
		"claude-code_2-1-332_harness": "[2 1 332] true",
		"claude-code_2-1-332":         "[2 1 332] true",
		"claude-code_2-1":             "[0 0 0] false",
		"gemini-cli_0-61-0":           "[0 0 0] false",
		"":                            "[0 0 0] false",
		"claude-code_2-1--3_harness":  "[0 0 0] false",
	} {
		v, ok := agentVersion(func(string) string { return in })
		if got := fmt.Sprint(v, ok); got != want {
			t.Errorf("%q: %s, want %s", in, got, want)
		}
	}
}
