package commands

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/todostore"
)

// TestPruneNeverTouchesOtherAgents: with Claude and Qwen lists between
// todosh's own sessions, a range over every row removes only todosh's own
// sessions (never the current one), says what it left out, and leaves
// every file under the home directory of the other agents as it was.
func TestPruneNeverTouchesOtherAgents(t *testing.T) {
	env, out := newTestEnv(t)
	env.Home = t.TempDir()
	copySavedLists(t, env.Home, 90*time.Minute)
	writeSession(t, env.Store, "s-new", "/src/new", parseSpec(t, "-new"), time.Minute)
	writeSession(t, env.Store, "s-old", "/src/old", parseSpec(t, "-old"), 48*time.Hour)
	writeSession(t, env.Store, env.SessionID, "/work/project", parseSpec(t, "-mine"), 30*time.Second)
	foreignBefore := snapshotStore(t, env.Home)
	r := NewRegistry()
	if err := r.Run(env, "/todo list"); err != nil {
		t.Fatal(err)
	}
	listing := out.String()
	rows := regexp.MustCompile(`(?m)^\s*(\d+)`).FindAllStringSubmatch(listing, -1)
	if len(rows) < 5 {
		t.Fatalf("listing has %d rows, want this session, two others and the foreign lists:\n%s", len(rows), listing)
	}
	foreignRow := regexp.MustCompile(`(?m)^\s*(\d+)\s.*\[qwen\]`).FindStringSubmatch(listing)
	if foreignRow == nil {
		t.Fatalf("no qwen row in:\n%s", listing)
	}

	err := r.Run(env, "/todo prune "+foreignRow[1]+" --yes")
	if err == nil || !strings.Contains(err.Error(), "never other agents' files") {
		t.Errorf("prune of the qwen row = %v, want a refusal", err)
	}
	out.Reset()
	if err := r.Run(env, "/todo prune 1-"+rows[len(rows)-1][1]+" --yes"); err != nil {
		t.Fatal(err)
	}
	said := out.String()
	for _, want := range []string{"Removed 2 saved sessions: s-new, s-old", "this session", "of other agents"} {
		if !strings.Contains(said, want) {
			t.Errorf("prune said %q, want %q in it", said, want)
		}
	}
	for _, id := range []string{"s-new", "s-old"} {
		if _, err := os.Stat(env.Store.Path(id)); !os.IsNotExist(err) {
			t.Errorf("session %s is still there (%v)", id, err)
		}
	}
	if sess := mustLoad(t, env); len(sess.Todos) != 1 || sess.Todos[0].Content != "mine" {
		t.Errorf("the current session changed: %+v", sess.Todos)
	}
	if diff := diffSnapshots(foreignBefore, snapshotStore(t, env.Home)); len(diff) > 0 {
		t.Errorf("prune changed other agents' files: %v", diff)
	}
	// The numbers keep meaning what /todo list showed: a pruned row is
	// not another session now.
	if err := r.Run(env, "/todo prune 2 --yes"); err == nil || !strings.Contains(err.Error(), "already removed") {
		t.Errorf("pruning a pruned row again = %v, want already removed", err)
	}
	if err := r.Run(env, "/todo load 2"); err == nil || !strings.Contains(err.Error(), "removed by /todo prune") {
		t.Errorf("loading a pruned row = %v, want a refusal that says it was pruned", err)
	}
}

// TestPruneRemovesEveryFileOfASession: the history, conversation and lock
// go with the list; other sessions' files stay.
func TestPruneRemovesEveryFileOfASession(t *testing.T) {
	env, out := newTestEnv(t)
	writeSession(t, env.Store, "gone", "/src", parseSpec(t, "-x"), 72*time.Hour)
	writeSession(t, env.Store, "kept", "/src", parseSpec(t, "-y"), time.Hour)
	os.Mkdir(filepath.Join(env.Store.Dir, ".locks"), 0o755)
	for _, name := range []string{"conv-gone.json", ".locks/gone.lock", "hist-gone.jsonl", "conv-kept.json", ".locks/kept.lock", "hist-kept.jsonl"} {
		if err := os.WriteFile(filepath.Join(env.Store.Dir, name), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := NewRegistry().Run(env, "/todo prune older 2d --yes"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Removed 1 saved session: gone") {
		t.Errorf("prune said %q", out.String())
	}
	entries, err := os.ReadDir(env.Store.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != ".locks conv-kept.json hist-kept.jsonl todo-kept.json" {
		t.Errorf("store holds %q after pruning gone", got)
	}
	if locks, _ := os.ReadDir(filepath.Join(env.Store.Dir, ".locks")); len(locks) != 1 || locks[0].Name() != "kept.lock" {
		t.Errorf("lock files after pruning gone: %v", locks)
	}
}

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"1h": time.Hour, "30d": 30 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, "007d": 7 * 24 * time.Hour} {
		if got, err := parseAge(in); err != nil || got != want {
			t.Errorf("parseAge(%q) = %v, %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "30", "0d", "-1d", "1.5d", "30D", "30dd", "1m", "99999999999999999999d"} {
		if _, err := parseAge(in); err == nil {
			t.Errorf("parseAge(%q) succeeded, want an error", in)
		}
	}
}

// TestPruneOlderKeepsWhatChangedBeforeTheAnswer is issue 16's second
// point: a session chosen by /todo prune older AGE that another process
// writes to while the question waits is no longer old; the age is checked
// again under the session's lock at removal, the session is kept, and the
// message says which and why.
func TestPruneOlderKeepsWhatChangedBeforeTheAnswer(t *testing.T) {
	env, out := newTestEnv(t)
	writeSession(t, env.Store, "old-a", "/src", parseSpec(t, "-a"), 40*24*time.Hour)
	writeSession(t, env.Store, "old-b", "/src", parseSpec(t, "-b"), 50*24*time.Hour)
	other := todostore.Open(env.Store.Root) // another todosh process, on its own clock
	env.Ask = func(prompt string) (string, error) {
		if _, err := other.Update("old-a", func(s *todostore.Session) error {
			s.Todos = append(s.Todos, todolist.Todo{Content: "written meanwhile", Status: todolist.Pending})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return "y", nil
	}
	if err := NewRegistry().Run(env, "/todo prune older 30d"); err != nil {
		t.Fatal(err)
	}
	said := out.String()
	for _, want := range []string{"Prune 2 saved sessions", "Removed 1 saved session: old-b", "Kept 1 session: old-a (changed since chosen, so no longer older than 30d)"} {
		if !strings.Contains(said, want) {
			t.Errorf("prune said:\n%s\nwant %q in it", said, want)
		}
	}
	sess, err := env.Store.Load("old-a")
	if err != nil || len(sess.Todos) != 2 {
		t.Fatalf("old-a after prune: %v, %+v; want it kept with the new item", err, sess)
	}
	if _, err := env.Store.Load("old-b"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("old-b after prune: %v, want removed", err)
	}
	// With --yes there is no question, but the check is the same one.
	out.Reset()
	if err := NewRegistry().Run(env, "/todo prune older 30d --yes"); err == nil || !strings.Contains(err.Error(), "no other saved session is older than 30d") {
		t.Errorf("second prune = %v, want nothing older (said %q)", err, out.String())
	}
}
