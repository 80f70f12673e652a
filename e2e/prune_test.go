package e2e_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestTerminalPruneAsksFirst prunes saved sessions in a terminal: the
// question lists what would go, "n" keeps everything, another agent's list
// and the current session are never removed, and "y" removes the rest and
// says so.
func TestTerminalPruneAsksFirst(t *testing.T) {
	h := newHome(t)
	for _, s := range []struct{ id, item string }{{"old", "from old"}, {"mid", "from mid"}, {"new", "from new"}, {"current", "mine"}} {
		if r := h.script(t, h.dir, "", "--session", s.id, "-c", "/todo add "+s.item); r.code != 0 {
			t.Fatalf("prepare %s: %+v", s.id, r)
		}
	}
	store := h.store()
	long := time.Now().Add(-40 * 24 * time.Hour)
	if err := os.Chtimes(store.Path("old"), long, long); err != nil {
		t.Fatal(err)
	}
	qwen := filepath.Join(h.dir, ".qwen", "todos", "qwen-session.json")
	qwenData := `[{"id": "1", "content": "qwen item", "status": "pending"}]`
	if err := os.MkdirAll(filepath.Dir(qwen), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(qwen, []byte(qwenData), 0o644); err != nil {
		t.Fatal(err)
	}

	tm := h.startTerm(t, "--session", "current")
	tm.expect("todosh 0/1 › ")
	tm.typ("/todo list" + enter)
	listing := tm.expect("load which list?")
	tm.typ(enter)
	tm.expect("todosh 0/1 › ")
	qwenRow := regexp.MustCompile(`(?m)^\s*(\d+)\s.*qwen item`).FindStringSubmatch(listing)
	if qwenRow == nil {
		t.Fatalf("no row for the qwen list in:\n%s", listing)
	}

	tm.typ("/todo prune older 30d" + enter)
	asked := tm.expect("for good? (y/N) ")
	if !sessionRow("old").MatchString(asked) || sessionRow("mid").MatchString(asked) {
		t.Errorf("the question for older 30d shows %q, want only the old session", asked)
	}
	tm.typ("n" + enter)
	tm.expect("Nothing removed")
	tm.expect("todosh 0/1 › ")
	if _, err := os.Stat(store.Path("old")); err != nil {
		t.Errorf("answering n removed the old session: %v", err)
	}

	if out := tm.run("/todo prune " + qwenRow[1]); !strings.Contains(out, "never other agents' files") {
		t.Errorf("pruning the qwen row printed %q, want a refusal", out)
	}

	tm.typ("/todo prune all" + enter)
	asked = tm.expect("remove 3 saved sessions for good? (y/N) ")
	for _, id := range []string{"old", "mid", "new"} {
		if !sessionRow(id).MatchString(asked) {
			t.Errorf("the question for all does not name %s:\n%s", id, asked)
		}
	}
	if sessionRow("current").MatchString(asked) {
		t.Errorf("the question for all names the current session:\n%s", asked)
	}
	tm.typ("y" + enter)
	said := tm.expect("todosh 0/1 › ")
	if !strings.Contains(said, "Removed 3 saved sessions") {
		t.Errorf("after y the screen shows %q, want what was removed", said)
	}
	tm.quit()

	entries, err := store.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].ID != "current" {
		t.Errorf("sessions left: %+v, want only the current one", entries)
	}
	h.assertList(t, "current", "mine")
	if data, err := os.ReadFile(qwen); err != nil || string(data) != qwenData {
		t.Errorf("the qwen file changed: %q, %v", data, err)
	}
}

// TestTerminalSetAliasCompletesAndRuns: llxprt-code's /todo set and unset
// complete with Tab and run start and undo.
func TestTerminalSetAliasCompletesAndRuns(t *testing.T) {
	h := newHome(t)
	if r := h.script(t, h.dir, "", "--session", "alias", "-c", "/todo add alpha", "-c", "/todo add beta"); r.code != 0 {
		t.Fatalf("prepare: %+v", r)
	}
	tm := h.startTerm(t, "--session", "alias")
	tm.expect("todosh 0/2 › ")
	tm.typ("/todo se" + tab)
	tm.expect("/todo set ")
	tm.typ("1-2" + enter)
	tm.expect(`▸ 2 "beta"`)
	tm.expect("todosh 0/2 › ")
	tm.typ("/todo uns" + tab)
	tm.expect("/todo unset ")
	tm.typ("all" + enter)
	tm.expect(`○ 2 "beta"`)
	tm.expect("todosh 0/2 › ")
	tm.quit()
	sess, err := h.store().Load("alias")
	if err != nil {
		t.Fatal(err)
	}
	for _, td := range sess.Todos {
		if td.Status != "pending" {
			t.Errorf("%q is %s after set 1-2 and unset all, want pending", td.Content, td.Status)
		}
	}
}

// sessionRow matches the row of session id in the list /todo prune asks
// about: the id, then its age.
func sessionRow(id string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(id) + `\s+(just now|\d+ (min|h|days?) ago)`)
}
