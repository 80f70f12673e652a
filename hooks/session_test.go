package hooks

import "testing"

// TestAgentSession: a command an agent runs knows the agent's mirror
// session from the variable of its row (Claude Code's
// CLAUDE_CODE_SESSION_ID); an id todosh could not use is no session.
func TestAgentSession(t *testing.T) {
	for _, c := range []struct {
		env       map[string]string
		id, agent string
		ok        bool
	}{
		{map[string]string{"CLAUDE_CODE_SESSION_ID": "0b7d6c1e-1"}, "claude-0b7d6c1e-1", "claude", true},
		{map[string]string{"CLAUDE_CODE_SESSION_ID": "../../etc"}, "", "", false},
		{map[string]string{}, "", "", false},
	} {
		id, agent, ok := AgentSession(func(k string) string { return c.env[k] })
		if id != c.id || agent != c.agent || ok != c.ok {
			t.Errorf("AgentSession(%v) = %q, %q, %v; want %q, %q, %v", c.env, id, agent, ok, c.id, c.agent, c.ok)
		}
	}
}
