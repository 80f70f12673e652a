package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScriptThroughPipe(t *testing.T) {
	h := newHome(t)
	script := "# a comment\n\n/todo add first\n/todo add last \"2 apples\"\n   \n/todo add last fix #123 and don't break \\n parsing\n/todo show\n"
	r := h.script(t, h.dir, script, "--session", "piped")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
	}
	for _, want := range []string{"Todo 0/3 done", "○ first", "○ 2 apples", `○ fix #123 and don't break \n parsing`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout %q: want %q in it", r.stdout, want)
		}
	}
	if strings.Contains(r.stdout, "›") || strings.Contains(r.stdout, "type /help") {
		t.Errorf("script printed a prompt or banner: %q", r.stdout)
	}
	assertNoHistory(t, h)
}

func TestScriptFailedLineSetsStatusAndGoesOn(t *testing.T) {
	h := newHome(t)
	r := h.script(t, h.dir, "/todo delete 7\n/todo add still runs\n/nosuch\n", "--session", "fails")
	if r.code != 1 {
		t.Errorf("exit status = %d, want 1", r.code)
	}
	if n := countLines(r.stderr); n != 2 || !strings.HasPrefix(r.stderr, "/todo delete") {
		t.Errorf("stderr = %q, want two one-line errors, the first naming /todo delete", r.stderr)
	}
	h.assertList(t, "fails", "still runs")
	assertNoHistory(t, h)
}

func TestScriptDashC(t *testing.T) {
	h := newHome(t)
	// stdin is ignored when -c is given.
	r := h.script(t, h.dir, "/todo add from stdin\n", "--session", "dc", "-c", "/todo add one", "-c", "/todo add 1 zero", "-c", "/todo show")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "1. ○ zero") || !strings.Contains(r.stdout, "2. ○ one") {
		t.Errorf("stdout = %q, want zero then one", r.stdout)
	}
	h.assertList(t, "dc", "zero", "one")
	r = h.script(t, h.dir, "", "--session", "dc", "-c", "/todo done 9")
	if r.code != 1 || countLines(r.stderr) != 1 {
		t.Errorf("failing -c: exit %d, stderr %q; want 1 and one line", r.code, r.stderr)
	}
	// /quit ends the script there.
	r = h.script(t, h.dir, "", "--session", "quits", "-c", "/quit", "-c", "/todo add never")
	if r.code != 0 {
		t.Errorf("/quit: exit %d, want 0", r.code)
	}
	if _, err := os.Stat(h.store().Path("quits")); !os.IsNotExist(err) {
		t.Errorf("a line after /quit ran: %v", err)
	}
	assertNoHistory(t, h)
}

func TestBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"unknown flag", []string{"--bogus"}, "bogus"},
		{"path in session id", []string{"--session", "../../etc/passwd"}, "invalid session id"},
		{"long session id", []string{"--session", strings.Repeat("a", 101)}, "invalid session id"},
		{"session and resume", []string{"--session", "a", "--resume"}, "--resume"},
		{"stray argument", []string{"fix the bug"}, "unexpected argument"},
		{"-c without value", []string{"-c"}, "-c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHome(t)
			r := h.script(t, h.dir, "/todo add x\n", tt.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, tt.want)
			}
			if _, err := os.Stat(h.root); !os.IsNotExist(err) {
				t.Errorf("bad flags touched %s: %v", h.root, err)
			}
		})
	}
}

func TestHelpFlag(t *testing.T) {
	h := newHome(t)
	r := h.script(t, h.dir, "", "--help")
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "usage: todosh") || !strings.Contains(r.stdout+r.stderr, "-session") {
		t.Errorf("--help: exit %d, output %q", r.code, r.stdout+r.stderr)
	}
}

func TestResume(t *testing.T) {
	h := newHome(t)
	project := filepath.Join(h.dir, "project")
	elsewhere := filepath.Join(h.dir, "elsewhere")
	for _, d := range []string{project, elsewhere} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if r := h.script(t, project, "", "-c", "/todo add resumed item"); r.code != 0 {
		t.Fatalf("first run: %+v", r)
	}
	r := h.script(t, project, "", "--resume", "-c", "/todo show")
	if r.code != 0 || !strings.Contains(r.stdout, "○ resumed item") {
		t.Errorf("--resume in the same directory: %+v", r)
	}
	r = h.script(t, elsewhere, "", "--resume", "-c", "/todo show")
	if r.code != 1 || !strings.Contains(r.stderr, "no session") {
		t.Errorf("--resume elsewhere: %+v; want exit 1 and an error", r)
	}
}

func TestScriptPromptWithoutAgent(t *testing.T) {
	h := newHome(t)
	r := h.script(t, h.dir, "write the parser\n", "--session", "p")
	if !strings.Contains(r.stdout+r.stderr, "no agent is connected") {
		t.Errorf("prompt without an agent: %+v", r)
	}
}

// assertNoHistory fails if a script wrote the readline history.
func assertNoHistory(t *testing.T, h home) {
	t.Helper()
	if _, err := os.Stat(h.store().HistoryPath()); !os.IsNotExist(err) {
		t.Errorf("script mode wrote history %s (err %v)", h.store().HistoryPath(), err)
	}
}
