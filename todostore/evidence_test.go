package todostore

import (
	"os"
	"testing"

	"github.com/todosh/todosh/todolist"
)

// TestRequireEvidenceSetting: none until recorded; recorded on and off,
// each reporting whether it changed; removed with the session.
func TestRequireEvidenceSetting(t *testing.T) {
	s := Open(t.TempDir())
	const id = "20261126-150000-abcd"
	if on, set := s.RequireEvidence(id); on || set {
		t.Fatalf("a new session's setting = %v %v, want none", on, set)
	}
	for _, c := range []struct{ on, changed bool }{{true, true}, {true, false}, {false, true}, {false, false}} {
		changed, err := s.SetRequireEvidence(id, c.on)
		if err != nil || changed != c.changed {
			t.Errorf("SetRequireEvidence(%v) = %v, %v, want changed %v", c.on, changed, err, c.changed)
		}
		if on, set := s.RequireEvidence(id); on != c.on || !set {
			t.Errorf("after SetRequireEvidence(%v): %v %v", c.on, on, set)
		}
	}
	if _, err := s.SetRequireEvidence("../x", true); err == nil {
		t.Errorf("a bad session id was accepted")
	}
	if err := os.WriteFile(s.EvidencePath(id), []byte("maybe"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, set := s.RequireEvidence(id); set {
		t.Errorf("a file that says neither on nor off counts as a setting")
	}
	if _, _, err := s.Commit(id, todolist.ByAgent, func(x *Session) error { x.Paused = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(id); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.EvidencePath(id)); !os.IsNotExist(err) {
		t.Errorf("the setting outlived its session: %v", err)
	}
}
