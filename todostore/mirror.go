package todostore

import (
	"os"
	"path/filepath"
)

// MirrorID is the todosh session that mirrors the agent's session id
// when the agent's hooks run todosh (ARCHITECTURE.md §9): "claude-<id>".
func MirrorID(agent, id string) string { return agent + "-" + id }

// agentsDir holds one small file per agent session a todosh session is
// attached to (Session.Agent), named by its MirrorID and holding the
// todosh session's id, so /todo list finds the todosh session that keeps
// an agent's own saved list without parsing any session file.
func (s *Store) agentsDir() string { return filepath.Join(s.Dir, ".agents") }

// linkAgent records that session id is attached to the agent session a.
// It is an index for listing only: a failure is not the change's, and a
// link whose session was removed names a session List no longer has.
func (s *Store) linkAgent(id string, a *AgentRef) {
	name := MirrorID(a.Kind, a.Session)
	if ValidSessionID(name) != nil {
		return
	}
	if err := os.MkdirAll(s.agentsDir(), 0o700); err != nil {
		return
	}
	_ = os.WriteFile(filepath.Join(s.agentsDir(), name), []byte(id), 0o600)
}

// AttachedTo is the todosh session last attached to the agent session
// that mirror names (MirrorID), or "" when none is known: a session that
// `todosh --agent claude` ran keeps the same list as Claude's own task
// folder of that session, as the hooks' mirror does.
func (s *Store) AttachedTo(mirror string) string {
	if ValidSessionID(mirror) != nil {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(s.agentsDir(), mirror))
	if err != nil || ValidSessionID(string(b)) != nil {
		return ""
	}
	return string(b)
}
