package todostore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The session's --require-evidence as chosen while it runs (an editor's
// setting in todosh acp): todos/evidence-<id> holds "on" or "off", and
// todosh's todo tools read it at every call, in whichever process serves
// them (todosh mcp, started by the agent with its flags fixed, included).
// Absent, the tools' own flag holds.

// EvidencePath is the file of session id's evidence setting.
func (s *Store) EvidencePath(id string) string { return filepath.Join(s.Dir, "evidence-"+id) }

// SetRequireEvidence records whether completing work in session id needs
// evidence, over the tools' flag; it reports whether the setting changed.
func (s *Store) SetRequireEvidence(id string, on bool) (bool, error) {
	if err := ValidSessionID(id); err != nil {
		return false, err
	}
	want := "off"
	if on {
		want = "on"
	}
	if got, ok := s.RequireEvidence(id); ok && (got == on) {
		return false, nil
	}
	if err := s.ensureDirs(); err != nil {
		return false, err
	}
	if err := WriteFileAtomic(s.EvidencePath(id), []byte(want+"\n")); err != nil {
		return false, fmt.Errorf("record the evidence setting of %s: %w", id, err)
	}
	return true, nil
}

// RequireEvidence is session id's evidence setting and whether one was
// recorded (SetRequireEvidence); a file that says neither is none.
func (s *Store) RequireEvidence(id string) (on, set bool) {
	if ValidSessionID(id) != nil {
		return false, false
	}
	b, err := os.ReadFile(s.EvidencePath(id))
	if err != nil {
		return false, false
	}
	switch strings.TrimSpace(string(b)) {
	case "on":
		return true, true
	case "off":
		return false, true
	}
	return false, false
}
