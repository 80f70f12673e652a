package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/backends"
	"github.com/todosh/todosh/internal/testenv"
)

// TestCheckAgentIsThatAgent: an executable given for an agent counts as
// that agent only when its --version line has the agent's shape; any
// other program (GNU true prints "true (GNU coreutils) 9.1") is a
// problem, whatever number it prints.
func TestCheckAgentIsThatAgent(t *testing.T) {
	testenv.NeedShell(t)
	tests := []struct {
		agent, prints string
		version       string // "" for refused
	}{
		{"claude", "2.1.332 (Claude Code)", "2.1.332"},
		{"claude", "true (GNU coreutils) 9.1\nCopyright (C) 2022", ""},
		{"claude", "2.1.332", ""},
		{"claude", "", ""},
		{"codex", "codex-cli 0.171.0", "0.171.0"},
		{"codex", "0.171.0", ""},
		{"gemini", "0.61.0", "0.61.0"},
		{"gemini", "gemini 0.61.0", ""},
		{"qwen", "0.24.4\n", "0.24.4"},
		{"pi", "0.73.1", "0.73.1"},
		{"pi", "stderr:0.73.1", "0.73.1"}, // pi 0.73 prints it on stderr
		{"acp:gemini", "0.61.0", "0.61.0"},
		{"acp:gemini", "Python 3.11.2", ""},
	}
	dir := t.TempDir()
	for i, tt := range tests {
		b, _, err := backends.Lookup(tt.agent)
		if err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(dir, strings.ReplaceAll(tt.agent, ":", "-")+"-"+string(rune('a'+i)))
		script := "#!/bin/sh\nprintf '%s\\n' '" + strings.ReplaceAll(tt.prints, "\n", "' '") + "'\n"
		if v, ok := strings.CutPrefix(tt.prints, "stderr:"); ok {
			script = "#!/bin/sh\necho " + v + " >&2\n"
		}
		if tt.prints == "" {
			script = "#!/bin/sh\nexit 0\n"
		}
		if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		a := checkAgent(b, Options{Agent: tt.agent, Bin: bin, VersionTimeout: 5 * time.Second, Getenv: func(string) string { return "" }}, true)
		if a.Version != tt.version {
			t.Errorf("%s printing %q: version %q, want %q", tt.agent, tt.prints, a.Version, tt.version)
		}
		refused := len(a.Problems) > 0 && strings.Contains(a.Problems[0].What, "does not look like")
		if refused != (tt.version == "") {
			t.Errorf("%s printing %q: problems %+v", tt.agent, tt.prints, a.Problems)
		}
	}

	// One that does not answer in time (a node agent under load): its
	// version is unknown, which is a note, not a problem.
	slow := filepath.Join(dir, "slow-claude")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nexec sleep 5\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, _, _ := backends.Lookup("claude")
	a := checkAgent(b, Options{Agent: "claude", Bin: slow, VersionTimeout: 100 * time.Millisecond, Getenv: func(string) string { return "" }}, true)
	if a.Version != "" || len(a.Problems) > 0 && strings.Contains(a.Problems[0].What, "does not look like") || !strings.Contains(strings.Join(a.Notes, "\n"), "did not answer within 100ms") {
		t.Errorf("a slow --version: version %q, problems %+v, notes %q", a.Version, a.Problems, a.Notes)
	}
}
