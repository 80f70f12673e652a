package hooks

import (
	"strconv"
	"strings"
)

// How a continuation reaches each agent. The agent must get the whole
// continuation (the instructions and the list); the person should see one
// short line that says todosh is continuing and why ("todosh: continuing
// 1/3 — 2 open items"), and nothing that reads as an error. Each agent
// shows a stop hook's answer its own way (checked in each one's code and
// in its terminal interface, docs/hooks.md), so the agents table says for
// each which answer reads best.

// continueStyle is how an agent is sent on at a stop.
type continueStyle int

const (
	// byReason: the block's reason is both what the agent gets and what
	// its screen shows in full (Codex: "Blocked by hook └ …"), so the
	// reason opens with the line.
	byReason continueStyle = iota
	// byPromptHook: the screen shows the whole reason (Qwen Code: "Stop
	// hook error: …"; Gemini CLI: "Agent execution blocked: …", and a
	// systemMessage a second time as "ℹ …"), and the agent runs its
	// prompt hook for the continuation with the reason as the prompt: the
	// reason is the line, and the prompt hook adds the continuation as
	// context (hook.owed in run.go).
	byPromptHook
	// byContext: the stop's additionalContext sends the agent on without a
	// block, so no "Stop hook reported a problem" and no "stop hook
	// problem" left in the status bar (Claude Code 2.1.332: "Stop hook
	// says: …"); systemMessage shows the line. A release older than
	// contextSince blocks with byReason instead.
	byContext
)

// contextSince is the first Claude Code release known to continue on a
// stop's additionalContext (checked with 2.1.332; older releases ignore
// it and the agent would stop).
var contextSince = [3]int{2, 1, 332}

// agentVersion reads the release of the running Claude Code from the
// AI_AGENT variable it gives its hooks ("claude-code_2-1-332_harness");
// ok is false when it is absent or reads otherwise.
func agentVersion(getenv func(string) string) (v [3]int, ok bool) {
	s, found := strings.CutPrefix(getenv("AI_AGENT"), "claude-code_")
	if !found {
		return v, false
	}
	s, _, _ = strings.Cut(s, "_")
	parts := strings.Split(s, "-")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

// atLeast reports whether version v is min or later.
func atLeast(v, min [3]int) bool {
	for i := range v {
		if v[i] != min[i] {
			return v[i] > min[i]
		}
	}
	return true
}

// continueOut is a stop hook's answer that sends the agent on.
type continueOut struct {
	// Out is the JSON object the hook writes.
	Out map[string]any
	// Sent is the text the agent's prompt hook will see if the agent runs
	// it for the continuation (Gemini CLI, Qwen Code), "" when none. When
	// it is the line alone (byPromptHook), the continuation itself is
	// still owed: the prompt hook gives it (hook.owed).
	Sent string
}

// continueAnswer is the answer that sends agent a on with prompt, showing
// the person line ("todosh: continuing 1/3 — 2 open items").
func (a Agent) continueAnswer(line, prompt string, getenv func(string) string) continueOut {
	style := a.continueBy
	if style == byContext {
		if v, ok := agentVersion(getenv); !ok || !atLeast(v, contextSince) {
			style = byReason
		}
	}
	switch style {
	case byPromptHook:
		return continueOut{Out: map[string]any{"decision": a.Continue, "reason": line}, Sent: line}
	case byContext:
		ev, _ := a.Event(KindStop)
		return continueOut{Out: map[string]any{"systemMessage": line,
			"hookSpecificOutput": map[string]string{"hookEventName": ev.Name, "additionalContext": prompt}}}
	}
	reason := line + "\n" + prompt
	return continueOut{Out: map[string]any{"decision": a.Continue, "reason": reason}, Sent: reason}
}
