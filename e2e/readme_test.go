package e2e_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The script example in the README must keep working as documented.
func TestReadmeScriptExample(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)A script file for `--agent script:FILE`:\n\n```json\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README has no script example")
	}
	script := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(script, m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHome(t)
	r := h.script(t, t.TempDir(), "", "--session", "readme", "--agent", "script:"+script, "-c", "go")
	if r.code != 3 { // stopped without progress, as documented
		t.Fatalf("exit %d, want 3; stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{"⏺ todo_write 2 items", "continuing 1/3 — 1 open item", "stopped: 3 attempts without progress"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	h.assertList(t, "readme", "write the parser", "write tests")
	if sess, err := h.store().Load("readme"); err != nil || sess.Todos[0].Status != "completed" || sess.Todos[1].Status != "pending" {
		t.Errorf("statuses on disk = %+v, %v; want completed, pending", sess, err)
	}
}
