package testenv

import (
	"slices"
	"testing"
)

// TestEnvIsBuiltFromScratch: whatever the test's own environment holds,
// a child gets only PATH (and TMPDIR, GOCOVERDIR, the fakes' FAKECLI_...
// variables), its HOME, TODOSH_HOME and TERM=xterm, and what the test
// adds, once per name.
func TestEnvIsBuiltFromScratch(t *testing.T) {
	for _, kv := range [][2]string{{"NO_COLOR", "1"}, {"TERM", "dumb"}, {"COLUMNS", "20"}, {"OPENAI_API_KEY", "sk-x"}, {"TODOSH_SESSION", "s"}, {"ANTHROPIC_API_KEY", "x"}, {"CLAUDE_CONFIG_DIR", "/x"}, {"GEMINI_API_KEY", "x"}, {"PATH", "/bin"}} {
		t.Setenv(kv[0], kv[1])
	}
	t.Setenv("TMPDIR", "/tmp")
	t.Setenv("GOCOVERDIR", "")
	t.Setenv("FAKECLI_MODE", "stray") // a test configuring the repository's fake CLI
	got := Env("/h", "TERM=vt100", "X=1")
	want := []string{"PATH=/bin", "TMPDIR=/tmp", "GOCOVERDIR=", "FAKECLI_MODE=stray", "HOME=/h", "TODOSH_HOME=/h/todosh-home", "TERM=vt100", "X=1"}
	if !slices.Equal(got, want) {
		t.Errorf("Env = %q, want %q", got, want)
	}
}

func TestOverride(t *testing.T) {
	got := Override([]string{"A=1", "B=2", "A=3"}, "B=4", "C=5=6", "D")
	want := []string{"A=3", "B=4", "C=5=6", "D"}
	if !slices.Equal(got, want) {
		t.Errorf("Override = %q, want %q", got, want)
	}
}
