package acpagent

import (
	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/agent"
)

// promptUsage is the tokens a prompt turn spent, from its response's usage
// (unstable in ACP; claude-agent-acp 0.23 sends it, the turn's own, though
// the schema says "across all turns"; codex-acp 0.16 sends none): input
// with the cache's reads and writes, as todosh counts every agent's input
// (docs/agents.md). ok is false when the agent sent none. session/update's
// usage_update is no spend: its used is what the context holds now.
func promptUsage(u *acp.Usage) (_ agent.Usage, ok bool) {
	if u == nil {
		return agent.Usage{}, false
	}
	in := int64(u.InputTokens)
	for _, c := range []*int{u.CachedReadTokens, u.CachedWriteTokens} {
		if c != nil {
			if *c < 0 || in < 0 {
				in = -1 // one bad count spoils the sum: the meter refuses it
				continue
			}
			in += int64(*c)
		}
	}
	return agent.Usage{Input: in, Output: int64(u.OutputTokens)}, true
}

// emitUsage passes a turn's usage on through a meter, which refuses what
// cannot be true with one notice.
func (a *Agent) emitUsage(resp acp.PromptResponse, emit func(agent.Event)) {
	u, ok := promptUsage(resp.Usage)
	if !ok {
		return
	}
	m := agent.UsageMeter{Name: a.cfg.Name}
	if ev, ok := m.Add(u); ok {
		ev.AtEnd = ev.Kind == agent.EventUsage
		emit(ev)
	}
}
