package commands

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/todostore"
)

// copySavedLists copies the real Claude Code and Qwen Code samples into a
// fresh home directory, as those agents leave them, with the given age.
func copySavedLists(t *testing.T, home string, ago time.Duration) {
	t.Helper()
	src := filepath.Join("..", "foreignlists", "testdata", "saved-lists")
	for _, part := range []string{"claude", "qwen"} {
		err := filepath.Walk(filepath.Join(src, part), func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			dst := filepath.Join(home, "."+rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(dst, data, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	stamp := fixedNow.Add(-ago)
	filepath.Walk(home, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, stamp, stamp) })
}

func TestListShowsAndLoadsOtherAgentsLists(t *testing.T) {
	env, out := newTestEnv(t)
	env.Home = t.TempDir()
	copySavedLists(t, env.Home, time.Hour)
	qwenFile := filepath.Join(env.Home, ".qwen", "todos", "c956901e-91a0-45da-af91-caa4e7ae5a80.json")
	qwenBefore, err := os.ReadFile(qwenFile)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRegistry()
	if err := r.Run(env, "/todo list"); err != nil {
		t.Fatal(err)
	}
	listing := out.String()
	var qwenRow, claudeRow string
	for _, line := range strings.Split(listing, "\n") {
		switch {
		case strings.Contains(line, "[qwen]"):
			qwenRow = line
		case strings.Contains(line, "[claude]"):
			claudeRow = line
		}
	}
	if qwenRow == "" || claudeRow == "" {
		t.Fatalf("listing lacks the qwen or claude row:\n%s", listing)
	}
	for _, row := range []string{qwenRow, claudeRow} {
		if !strings.Contains(row, "1 done, 1 in progress, 1 pending") {
			t.Errorf("row %q: want the sample's counts", row)
		}
	}
	num := strings.Fields(qwenRow)[0]
	out.Reset()
	if err := r.Run(env, "/todo load "+num); err != nil {
		t.Fatal(err)
	}
	sess, err := env.Store.Load(env.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if c := todolist.CountTodos(sess.Todos); c.Total != 3 || c.Completed != 1 || c.InProgress != 1 || c.Pending != 1 {
		t.Errorf("loaded %+v, want the qwen sample's three items", sess.Todos)
	}
	if after, _ := os.ReadFile(qwenFile); !bytes.Equal(after, qwenBefore) {
		t.Error("loading changed the qwen file")
	}
}

func TestListReportsUnreadableForeignList(t *testing.T) {
	env, out := newTestEnv(t)
	env.Home = t.TempDir()
	bad := filepath.Join(env.Home, ".qwen", "todos", "broken.json")
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"todos": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := NewRegistry().Run(env, "/todo list"); err != nil {
		t.Fatalf("an unreadable foreign list stopped the listing: %v", err)
	}
	if !strings.Contains(out.String(), "unreadable") || !strings.Contains(out.String(), bad) {
		t.Errorf("listing does not show the unreadable file with its path:\n%s", out.String())
	}
	if data, _ := os.ReadFile(bad); string(data) != `{"todos": [` {
		t.Error("the unreadable file was changed")
	}
}

// TestDropMirrored: another agent's list that a todosh session of the
// listing mirrors is shown once, as that session, unless the agent's
// file changed after the session did.
func TestDropMirrored(t *testing.T) {
	at := fixedNow
	own := func(id string, age time.Duration) listRow { return listRow{ID: id, ModTime: at.Add(-age)} }
	foreign := func(id string, age time.Duration) listRow {
		return listRow{Source: "claude", ID: id, mirror: "claude-" + id, ModTime: at.Add(-age)}
	}
	attached := func(id, to string, age time.Duration) listRow {
		r := foreign(id, age)
		r.attached = to
		return r
	}
	tests := []struct {
		name string
		rows []listRow
		want []string
	}{
		{"mirrored, older", []listRow{own("cur", 0), own("claude-a", time.Minute), foreign("a", time.Hour)}, []string{"cur", "claude-a"}},
		{"mirrored, same time", []listRow{own("cur", 0), own("claude-a", time.Hour), foreign("a", time.Hour)}, []string{"cur", "claude-a"}},
		{"mirrored, changed since", []listRow{own("cur", 0), own("claude-a", time.Hour), foreign("a", time.Minute)}, []string{"cur", "claude-a", "a"}},
		{"mirror is the current session", []listRow{own("claude-a", 0), foreign("a", time.Hour)}, []string{"claude-a"}},
		{"not mirrored", []listRow{own("cur", 0), own("claude-b", 0), foreign("a", time.Hour)}, []string{"cur", "claude-b", "a"}},
		{"a foreign list never mirrors another", []listRow{own("cur", 0), {Source: "qwen", ID: "claude-a", mirror: "qwen-claude-a"}, foreign("a", time.Hour)}, []string{"cur", "claude-a", "a"}},
		{"attached, older", []listRow{own("cur", 0), own("s1", time.Minute), attached("a", "s1", time.Hour)}, []string{"cur", "s1"}},
		{"attached, changed since", []listRow{own("cur", 0), own("s1", time.Hour), attached("a", "s1", time.Minute)}, []string{"cur", "s1", "a"}},
		{"attached to a session not listed", []listRow{own("cur", 0), attached("a", "gone", time.Hour)}, []string{"cur", "a"}},
	}
	for _, tt := range tests {
		var got []string
		for _, r := range dropMirrored(tt.rows) {
			got = append(got, r.ID)
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("%s: rows %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestListShowsMirroredListOnce: /todo list shows Claude's task list once
// when the session its hooks keep (claude-<id>) mirrors it, and never an
// emptied task list folder.
func TestListShowsMirroredListOnce(t *testing.T) {
	const claudeID = "12ec3832-a7d8-4254-b780-88c4e469102c" // the sample's list
	env, out := newTestEnv(t)
	env.Home = t.TempDir()
	copySavedLists(t, env.Home, time.Hour)
	emptied := filepath.Join(env.Home, ".claude", "tasks", "0d6a1c1e-emptied")
	if err := os.MkdirAll(emptied, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(emptied, ".lock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"claude-" + claudeID, "claude-0d6a1c1e-emptied"} {
		if _, _, err := env.Store.Commit(id, todolist.ByAgent, func(s *todostore.Session) error {
			s.Todos = parseSpec(t, "+Create;>Parse;-Test")
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	list := func() string {
		out.Reset()
		if err := NewRegistry().Run(env, "/todo list"); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	got := list()
	if strings.Contains(got, "[claude]") || !strings.Contains(got, "claude-"+claudeID) || !strings.Contains(got, "claude-0d6a1c1e-emptied") {
		t.Errorf("want the two hook sessions and no [claude] row:\n%s", got)
	}
	// Claude's own file changed after the session (its hooks were turned
	// off): both are shown, since they may differ.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(env.Home, ".claude", "tasks", claudeID), later, later); err != nil {
		t.Fatal(err)
	}
	if got := list(); strings.Count(got, "[claude]") != 1 {
		t.Errorf("want the changed [claude] list shown beside its session:\n%s", got)
	}
}

// TestListShowsAttachedListOnce: a todosh session that ran Claude Code as
// its agent (`todosh --agent claude`: the session is attached to Claude's
// session, where hooks do nothing) keeps the same list as Claude's own
// task folder of that session, which /todo list then leaves out.
func TestListShowsAttachedListOnce(t *testing.T) {
	const claudeID = "12ec3832-a7d8-4254-b780-88c4e469102c" // the sample's list
	env, out := newTestEnv(t)
	env.Home = t.TempDir()
	copySavedLists(t, env.Home, time.Hour)
	const ran = "20261126-144833-cdbe"
	if _, _, err := env.Store.Commit(ran, todolist.ByAgent, func(s *todostore.Session) error {
		s.Agent = &todostore.AgentRef{Kind: "claude", Session: claudeID}
		s.Todos = parseSpec(t, "+Create;>Parse;-Test")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := NewRegistry().Run(env, "/todo list"); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Contains(got, claudeID) || !strings.Contains(got, ran) {
		t.Errorf("want the session %s and not Claude's own list %s:\n%s", ran, claudeID, got)
	}
}
