package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/board"
	"github.com/todosh/todosh/board/boardcmd"
	"github.com/todosh/todosh/board/boardtest"
	"github.com/todosh/todosh/todostore"
)

// boardRun runs `todosh board ARGS...` in dir with extra variables.
func (h home) boardRun(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"board"}, args...)...)
	cmd.Env = append(h.env(), env...)
	cmd.Dir = dir
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("run todosh board %q: %v", args, err)
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String()}
}

// ok runs a board command that must succeed and returns its stdout.
func (h home) boardOK(t *testing.T, dir string, args ...string) string {
	t.Helper()
	r := h.boardRun(t, dir, nil, args...)
	if r.code != 0 {
		t.Fatalf("todosh board %q: exit %d: %s%s", args, r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

func boardItems(t *testing.T, jsonl string) []board.Item {
	t.Helper()
	var items []board.Item
	for _, l := range strings.Split(strings.TrimSpace(jsonl), "\n") {
		if l == "" {
			continue
		}
		var it board.Item
		if err := json.Unmarshal([]byte(l), &it); err != nil {
			t.Fatalf("list --output jsonl line %q: %v", l, err)
		}
		items = append(items, it)
	}
	return items
}

func git(t *testing.T, h home, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(h.env(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %q in %s: %v\n%s", args, dir, err, out)
	}
	return string(out)
}

func addedID(t *testing.T, out string) string {
	t.Helper()
	f := strings.Fields(out)
	if len(f) < 2 || f[0] != "added" {
		t.Fatalf("add printed %q", out)
	}
	return strings.TrimSuffix(f[1], ":")
}

// TestBoardGitClones is issue 30's acceptance on the files engine: two
// clones of a bare repository, each with its own TODOSH_HOME, add 50
// items each, close 10 of the other's (and both claim one item and note
// another), push and pull: every merge exits 0, list --output jsonl is
// byte-identical in both, no conflict markers, and the claimant who lost
// the claim made on both sides is told at its next board command.
func TestBoardGitClones(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	top := t.TempDir()
	bare := filepath.Join(top, "origin.git")
	ha, hb := newHome(t), newHome(t)
	git(t, ha, top, "init", "-q", "--bare", "-b", "main", bare)
	a, b := filepath.Join(top, "a"), filepath.Join(top, "b")
	git(t, ha, top, "clone", "-q", bare, a)
	git(t, ha, a, "checkout", "-q", "-b", "main")
	ha.boardOK(t, a, "init")
	git(t, ha, a, "add", "-A")
	git(t, ha, a, "commit", "-q", "-m", "board")
	git(t, ha, a, "push", "-q", "origin", "main")
	git(t, hb, top, "clone", "-q", bare, b)
	hb.boardOK(t, b, "init") // registers the driver in this clone's .git/config

	add := func(h home, dir, who string) []string {
		var ids []string
		for i := range 50 {
			ids = append(ids, addedID(t, h.boardOK(t, dir, "add", who+" item "+string(rune('A'+i/26))+string(rune('a'+i%26)))))
		}
		git(t, h, dir, "add", "-A")
		git(t, h, dir, "commit", "-q", "-m", who+" adds")
		return ids
	}
	sync := func(h home, dir string) {
		git(t, h, dir, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
		git(t, h, dir, "push", "-q", "origin", "main")
	}
	idsA, idsB := add(ha, a, "a"), add(hb, b, "b")
	sync(ha, a)
	sync(hb, b)
	sync(ha, a)

	// Each closes 10 of the other's; both claim idsA[20] and note idsB[20].
	for i := range 10 {
		ha.boardOK(t, a, "done", idsB[i], "--as", "alice", "--evidence", "a closed it")
		hb.boardOK(t, b, "done", idsA[i], "--as", "bob")
	}
	ha.boardOK(t, a, "claim", idsA[20], "--as", "alice")
	hb.boardOK(t, b, "claim", idsA[20], "--as", "bob")
	ha.boardOK(t, a, "edit", idsB[20], "--notes", "from a", "--as", "alice")
	hb.boardOK(t, b, "edit", idsB[20], "--notes", "from b", "--text", "b item renamed", "--as", "bob")
	for _, c := range []struct {
		h   home
		dir string
	}{{ha, a}, {hb, b}} {
		git(t, c.h, c.dir, "add", "-A")
		git(t, c.h, c.dir, "commit", "-q", "-m", "work")
	}
	sync(ha, a)
	sync(hb, b) // the merge: both sides changed idsA[20] and idsB[20]
	sync(ha, a)

	la := ha.boardOK(t, a, "list", "--output", "jsonl")
	lb := hb.boardOK(t, b, "list", "--output", "jsonl")
	if la != lb {
		t.Fatalf("the clones' boards differ:\n--- a\n%s\n--- b\n%s", la, lb)
	}
	for _, dir := range []string{a, b} {
		ents, _ := os.ReadDir(filepath.Join(dir, ".todosh", "board"))
		for _, e := range ents {
			data, _ := os.ReadFile(filepath.Join(dir, ".todosh", "board", e.Name()))
			if strings.Contains(string(data), "<<<<<<<") || strings.Contains(string(data), ">>>>>>>") {
				t.Fatalf("conflict markers in %s:\n%s", e.Name(), data)
			}
		}
	}
	items := boardItems(t, la)
	byID := map[string]board.Item{}
	for _, it := range items {
		byID[it.ID] = it
	}
	if len(items) != 100 {
		t.Fatalf("%d items after the merges, want 100", len(items))
	}
	for i := range 10 {
		if byID[idsA[i]].Status != board.Done || byID[idsB[i]].Status != board.Done {
			t.Fatalf("item %d not done on both", i)
		}
	}
	both := byID[idsA[20]]
	if both.Status != board.Claimed || both.Claim == nil || len(both.Lost) != 1 {
		t.Fatalf("the item claimed on both sides: %+v", both)
	}
	noted := byID[idsB[20]]
	if len(noted.Notes) != 2 || noted.Text != "b item renamed" {
		t.Fatalf("the item noted on both sides: %+v", noted)
	}
	// The loser hears of it once, at its next board command.
	loser, dir, h := both.Lost[0].Session, a, ha
	if loser == "bob" {
		dir, h = b, hb
	}
	r := h.boardRun(t, dir, nil, "ready", "--as", loser)
	if r.code != 0 || !strings.Contains(r.stderr, "your claim on "+both.ID) || !strings.Contains(r.stderr, "lost in a git merge") {
		t.Fatalf("the loser %s was not told: exit %d, stderr %q", loser, r.code, r.stderr)
	}
	if r := h.boardRun(t, dir, nil, "ready", "--as", loser); strings.Contains(r.stderr, "lost") {
		t.Fatalf("told twice: %q", r.stderr)
	}
}

// TestBoardBadInput: each refusal is one line naming the command and the
// cause, and changes nothing.
func TestBoardBadInput(t *testing.T) {
	h := newHome(t)
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755) // a checkout, for Find; init needs no git here
	if r := h.boardRun(t, dir, nil, "ready"); r.code != 1 || !strings.Contains(r.stderr, "no board in this checkout") {
		t.Fatalf("ready without a board: %d %q", r.code, r.stderr)
	}
	os.Remove(filepath.Join(dir, ".git"))
	h.boardOK(t, dir, "init")
	a := addedID(t, h.boardOK(t, dir, "add", "first"))
	b := addedID(t, h.boardOK(t, dir, "add", "second", "--blocked-by", a))
	snapshot := func() string { return h.boardOK(t, dir, "list", "--output", "jsonl") }
	before := snapshot()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"add", "third", "--blocked-by", "nosuchid"}, 1, "blocked by nosuchid: no such item"},
		{[]string{"edit", a, "--blocked-by", b}, 1, "would make a cycle"},
		{[]string{"claim", a, "--lease", "-5m"}, 2, `lease "-5m": must be positive`},
		{[]string{"claim", "--next", "--lease", "soon"}, 2, "want a duration"},
		{[]string{"claim", b}, 1, "blocked by " + a},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"list", "--board-url", "postgres://u:hunter2@127.0.0.1:9/db"}, 1, "cannot reach the board at postgres://u@127.0.0.1:9/db"},
	} {
		r := h.boardRun(t, dir, nil, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 || strings.Contains(r.stderr, "hunter2") {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and one line with %q", c.args, r.code, r.stderr, c.code, c.want)
		}
		if !strings.HasPrefix(r.stderr, "todosh board ") {
			t.Errorf("%q: %q does not name the command", c.args, r.stderr)
		}
	}
	if after := snapshot(); after != before {
		t.Fatalf("a refused command changed the board:\n%s\n%s", before, after)
	}
	h.boardOK(t, dir, "claim", a, "--as", "s1")
	r := h.boardRun(t, dir, nil, "claim", a, "--as", "s2")
	if r.code != 1 || !strings.Contains(r.stderr, "already claimed by s1@") || !strings.Contains(r.stderr, " until ") {
		t.Fatalf("a lost claim: exit %d, %q", r.code, r.stderr)
	}
	// A hand-broken item file is named and skipped; the rest works.
	broken := filepath.Join(dir, ".todosh", "board", "zzbroken.json")
	os.WriteFile(broken, []byte("{\"id\": \"zzbroken\", \"text\":"), 0o644)
	r = h.boardRun(t, dir, nil, "list")
	if r.code != 0 || !strings.Contains(r.stderr, broken) || !strings.Contains(r.stdout, "first") || !strings.Contains(r.stdout, "second") {
		t.Fatalf("list with a broken file: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestBoardSession: a claim made by an agent todosh runs (TODOSH_SESSION)
// or with /board in the shell joins that session's list linked to the
// board; completing it there marks the board item done; todosh mcp
// serves board_ready, board_claim and board_done.
func TestBoardSession(t *testing.T) {
	h := newHome(t)
	dir := t.TempDir()
	h.boardOK(t, dir, "init")
	a := addedID(t, h.boardOK(t, dir, "add", "write the parser"))
	b := addedID(t, h.boardOK(t, dir, "add", "write the docs"))
	c := addedID(t, h.boardOK(t, dir, "add", "write the tests"))

	// An agent's shell command, inside a todosh session.
	r := h.boardRun(t, dir, []string{"TODOSH_SESSION=s1"}, "claim", a)
	if r.code != 0 {
		t.Fatalf("claim as s1: %d %s", r.code, r.stderr)
	}
	h.assertList(t, "s1", "write the parser")
	sess, _ := h.store().Load("s1")
	if l, ok := boardcmd.LinkOf(sess.Todos[0]); !ok || l.ID != a || sess.Todos[0].Status != todolist.InProgress {
		t.Fatalf("the claimed todo: %+v", sess.Todos[0])
	}
	// The person completes it in the shell: the board item is done.
	if r := h.script(t, dir, "/todo done 1\n", "--session", "s1"); r.code != 0 {
		t.Fatalf("/todo done: %d %s", r.code, r.stderr)
	}
	if out := h.boardOK(t, dir, "show", a); !strings.Contains(out, "status:     done") || !strings.Contains(out, "s1@") {
		t.Fatalf("after /todo done the board says:\n%s", out)
	}

	// /board in the shell claims as the shell's session.
	if r := h.script(t, dir, "/board claim "+b+"\n/todo show\n", "--session", "s2"); r.code != 0 || !strings.Contains(r.stdout, "claimed "+b) {
		t.Fatalf("/board claim: %d %s %s", r.code, r.stdout, r.stderr)
	}
	h.assertList(t, "s2", "write the docs")
	// Cancelled on the list, the claim is given back.
	if r := h.script(t, dir, "/todo cancel 1\n", "--session", "s2"); r.code != 0 {
		t.Fatalf("/todo cancel: %d %s", r.code, r.stderr)
	}
	if out := h.boardOK(t, dir, "ready"); !strings.Contains(out, b) {
		t.Fatalf("after /todo cancel the item is not ready again:\n%s", out)
	}
	if r := h.script(t, dir, "/board claim "+b+"\n", "--session", "s2"); r.code != 0 {
		t.Fatalf("/board claim again: %d %s", r.code, r.stderr)
	}
	if sess, _ := h.store().Load("s2"); len(sess.Todos) != 1 || sess.Todos[0].Status != todolist.InProgress {
		t.Fatalf("claimed again, the todo is %+v", sess.Todos)
	}

	// The MCP tools, as session s3.
	cs := h.mcpConnect(t, dir, nil, "--session", "s3")
	text, isErr := mcpCall(t, cs, "board_ready", map[string]any{})
	if isErr || !strings.Contains(text, c) || strings.Contains(text, a) {
		t.Fatalf("board_ready = %q", text)
	}
	if text, isErr = mcpCall(t, cs, "board_claim", map[string]any{"id": b}); !isErr || !strings.Contains(text, "already claimed by s2@") {
		t.Fatalf("board_claim of s2's item = %q, %v", text, isErr)
	}
	if text, isErr = mcpCall(t, cs, "board_claim", map[string]any{"next": true, "lease": "10m"}); isErr || !strings.Contains(text, c) {
		t.Fatalf("board_claim next = %q", text)
	}
	h.assertList(t, "s3", "write the tests")
	if text, isErr = mcpCall(t, cs, "board_done", map[string]any{"id": c, "evidence": "go test ./... passes"}); isErr {
		t.Fatalf("board_done = %q", text)
	}
	sess, _ = h.store().Load("s3")
	if sess.Todos[0].Status != todolist.Completed || sess.Todos[0].Evidence != "go test ./... passes" {
		t.Fatalf("after board_done the list has %+v", sess.Todos[0])
	}
	if out := h.boardOK(t, dir, "show", c); !strings.Contains(out, "evidence:   go test ./... passes") {
		t.Fatalf("after board_done the board says:\n%s", out)
	}
}

// TestBoardHooksMirror: Claude Code with todosh's hooks runs `todosh board
// claim` in its Bash tool (CLAUDE_CODE_SESSION_ID set): the item joins its
// mirror session, linked; the agent writes it into its own TodoWrite
// list, and completing it there (the PostToolUse hook) marks the board
// item done.
func TestBoardHooksMirror(t *testing.T) {
	h := newHome(t)
	dir := t.TempDir()
	h.boardOK(t, dir, "init")
	id := addedID(t, h.boardOK(t, dir, "add", "port the lexer"))
	r := h.boardRun(t, dir, []string{"CLAUDE_CODE_SESSION_ID=0b7d6c1e-aaaa"}, "claim", id)
	if r.code != 0 {
		t.Fatalf("claim from Claude's Bash: %d %s", r.code, r.stderr)
	}
	mirror := todostore.MirrorID("claude", "0b7d6c1e-aaaa")
	h.assertList(t, mirror, "port the lexer")
	todoWrite := func(status string) {
		t.Helper()
		hook := exec.Command(binary, "hook", "claude", "tool")
		hook.Env, hook.Dir = h.env(), dir
		hook.Stdin = strings.NewReader(`{"session_id":"0b7d6c1e-aaaa","cwd":"` + dir + `","hook_event_name":"PostToolUse",` +
			`"tool_name":"TodoWrite","tool_input":{"todos":[{"content":"read the spec","status":"completed","activeForm":"Reading"},` +
			`{"content":"port the lexer","status":"` + status + `","activeForm":"Porting"}]},"tool_response":{}}`)
		out, err := hook.CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Fatalf("hook: %v %s", err, out)
		}
	}
	todoWrite("in_progress")
	h.assertList(t, mirror, "read the spec", "port the lexer")
	if out := h.boardOK(t, dir, "show", id); !strings.Contains(out, "status:     claimed") {
		t.Fatalf("before the agent completes it:\n%s", out)
	}
	todoWrite("completed")
	if out := h.boardOK(t, dir, "show", id); !strings.Contains(out, "status:     done") || !strings.Contains(out, mirror) {
		t.Fatalf("after the agent completed it in TodoWrite the board says:\n%s", out)
	}
}

// TestBoardWatch: `todosh board watch` redraws when another process
// changes the board.
func TestBoardWatch(t *testing.T) {
	h := newHome(t)
	dir := t.TempDir()
	h.boardOK(t, dir, "init")
	h.boardOK(t, dir, "add", "already there")
	cmd := exec.Command(binary, "board", "watch")
	cmd.Env, cmd.Dir = h.env(), dir
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	waitFor(t, "the first drawing", func() bool { return strings.Contains(out.String(), "already there") })
	// The watch may not be listening yet when the first drawing is out:
	// add until a drawing shows an addition.
	added := 0
	for i := 0; !strings.Contains(out.String(), "added while watching"); i++ {
		if i == 0 || i%20 == 0 {
			h.boardOK(t, dir, "add", "added while watching")
			added++
		}
		if i > 400 {
			t.Fatalf("watch never redrew:\n%s", out.String())
		}
		time.Sleep(25 * time.Millisecond)
	}
	// A slow redraw may come after more than one addition: any count
	// past the first drawing's, up to every item added, is a redraw.
	redrawn := false
	for n := 2; n <= 1+added; n++ {
		redrawn = redrawn || strings.Contains(out.String(), fmt.Sprintf("ready (%d)", n))
	}
	if !redrawn {
		t.Fatalf("the redrawn board:\n%s", out.String())
	}
}

// TestBoardPostgresExportImport: a files board moves to PostgreSQL with
// export and import, and the CLI works there the same (a lost claim, a
// refused lease).
func TestBoardPostgresExportImport(t *testing.T) {
	url := boardtest.PostgresURL(t)
	h := newHome(t)
	dir := t.TempDir()
	h.boardOK(t, dir, "init")
	a := addedID(t, h.boardOK(t, dir, "add", "first"))
	h.boardOK(t, dir, "add", "second", "--blocked-by", a)
	h.boardOK(t, dir, "claim", a, "--as", "s1")
	export := h.boardOK(t, dir, "export")
	cmd := exec.Command(binary, "board", "--board-url", url, "import")
	cmd.Env, cmd.Dir = h.env(), dir
	cmd.Stdin = strings.NewReader(export)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "imported 2 of 2") {
		t.Fatalf("import: %v %s", err, out)
	}
	pg := func(args ...string) result { return h.boardRun(t, dir, []string{"TODOSH_BOARD_URL=" + url}, args...) }
	if r := pg("list", "--output", "jsonl"); r.stdout != h.boardOK(t, dir, "list", "--output", "jsonl") {
		t.Fatalf("the boards differ after import:\nfiles:\n%s\npostgres:\n%s", h.boardOK(t, dir, "list", "--output", "jsonl"), r.stdout)
	}
	if r := pg("claim", a, "--as", "s2"); r.code != 1 || !strings.Contains(r.stderr, "already claimed by s1@") {
		t.Fatalf("lost claim on postgres: %d %q", r.code, r.stderr)
	}
	if r := pg("claim", "--next", "--lease", "-5m"); r.code != 2 {
		t.Fatalf("lease -5m on postgres: %d %q", r.code, r.stderr)
	}
	if r := pg("done", a, "--as", "s1"); r.code != 0 {
		t.Fatalf("done: %d %q", r.code, r.stderr)
	}
	if r := pg("ready"); r.code != 0 || !strings.Contains(r.stdout, "second") {
		t.Fatalf("ready after the blocker is done: %q %q", r.stdout, r.stderr)
	}
}

// syncBuffer is a process's output read while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
