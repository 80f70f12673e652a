package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/todosh/todosh/agent/todotools"
	"github.com/todosh/todosh/board/boardcmd"
	"github.com/todosh/todosh/internal/testenv"
)

// mcpConnect starts `todosh mcp ARGS...` in dir and connects the SDK's own
// client to it over stdio.
func (h home) mcpConnect(t *testing.T, dir string, env []string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"mcp"}, args...)...)
	cmd.Env = append(h.env(), env...)
	cmd.Dir = dir
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to todosh mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// mcpCall calls one tool and returns its text and whether it is an error.
func mcpCall(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// TestMCPTools calls every tool through the SDK's client: the schemas are
// todotools', the rules are todotools' (derived status, the merge rule,
// the dropped-items answer), and bad arguments change nothing.
func TestMCPTools(t *testing.T) {
	h := newHome(t)
	cs := h.mcpConnect(t, h.dir, nil, "--session", "m1")

	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The todo tools and the board's (served with a board: boardcmd.Tools).
	specs := (&todotools.Tools{Board: &boardcmd.Tools{}}).Specs()
	if len(list.Tools) != len(specs) {
		t.Fatalf("%d tools, want %d", len(list.Tools), len(specs))
	}
	for _, s := range specs {
		var found *mcp.Tool
		for _, tl := range list.Tools {
			if tl.Name == s.Name {
				found = tl
			}
		}
		if found == nil {
			t.Fatalf("tool %s not served", s.Name)
		}
		var want, got any
		json.Unmarshal(s.Parameters, &want)
		b, _ := json.Marshal(found.InputSchema)
		json.Unmarshal(b, &got)
		if !reflect.DeepEqual(got, want) || found.Description != s.Description {
			t.Errorf("tool %s: schema or description differs from todotools:\n got %s\nwant %s", s.Name, b, s.Parameters)
		}
	}

	text, isErr := mcpCall(t, cs, todotools.Write, map[string]any{"todos": []map[string]any{
		{"content": "Write the parser", "status": "in_progress", "subtasks": []map[string]any{
			{"content": "quoted fields", "status": "pending"}, {"content": "CRLF", "status": "pending"}}},
		{"content": "Write tests", "status": "pending"},
	}})
	if isErr || !strings.Contains(text, "Saved the list: 2 items") {
		t.Fatalf("todo_write: %v %s", isErr, text)
	}
	h.assertList(t, "m1", "Write the parser", "Write tests")

	// Bad arguments: one error each, the list unchanged.
	before, _ := h.store().Load("m1")
	for _, c := range []struct {
		name string
		args any
		want string
	}{
		{todotools.Write, map[string]any{"todos": "all of them"}, "argument todos must be an array"},
		{todotools.Write, map[string]any{}, "missing todos"},
		{todotools.Write, map[string]any{"todos": []map[string]any{{"content": "Write the parser", "status": "completed"}}}, "has open subtasks 1.1, 1.2"},
		{todotools.Write, map[string]any{"todos": []map[string]any{{"content": "x", "status": "finished"}}}, "todo 1"},
		{todotools.Tick, map[string]any{}, "missing id"},
		{todotools.Tick, map[string]any{"id": "9.9"}, "9"},
		{todotools.Tick, map[string]any{"id": "2"}, "item without subtasks"},
		{todotools.Pause, map[string]any{"reason": "   "}, "reason is empty"},
		{todotools.Pause, map[string]any{"reason": strings.Repeat("x", 501)}, "over the limit of 500"},
		{todotools.Read, map[string]any{"extra": 1}, ""},
	} {
		text, isErr := mcpCall(t, cs, c.name, c.args)
		if c.want == "" { // todo_read ignores unknown fields
			continue
		}
		if !isErr || !strings.Contains(text, c.want) || !strings.Contains(text, "unchanged") {
			t.Errorf("%s %v = %v %q, want an error containing %q that says the list is unchanged", c.name, c.args, isErr, text, c.want)
		}
	}
	after, _ := h.store().Load("m1")
	if !reflect.DeepEqual(before.Todos, after.Todos) || after.Paused {
		t.Errorf("a refused call changed the list:\n%s", todoview.FormatList(after.Todos))
	}
	// An unknown tool is the protocol's error, not a crash.
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "todo_delete"}); err == nil {
		if text, isErr := mcpCall(t, cs, "todo_delete", nil); !isErr {
			t.Errorf("unknown tool answered %q without error", text)
		}
	}

	// todo_tick: derived status follows the subtasks.
	text, isErr = mcpCall(t, cs, todotools.Tick, map[string]any{"id": "1.1", "evidence": "go test ./csv"})
	if isErr || !strings.Contains(text, "Ticked 1.1") || !strings.Contains(text, "Remaining in 1") {
		t.Errorf("todo_tick 1.1: %v %q", isErr, text)
	}
	mcpCall(t, cs, todotools.Tick, map[string]any{"id": "1.2"})
	s, _ := h.store().Load("m1")
	if s.Todos[0].Status != todolist.Completed {
		t.Errorf("item 1 is %s after ticking both subtasks, want completed", s.Todos[0].Status)
	}

	// The merge rule: an item left out is archived and named in the answer.
	text, isErr = mcpCall(t, cs, todotools.Write, map[string]any{"todos": []map[string]any{
		{"content": "Write the parser", "status": "completed"}}})
	if isErr || !strings.Contains(text, "left out 1 open item(s)") || !strings.Contains(text, "was 2") {
		t.Errorf("dropping an open item: %v %q", isErr, text)
	}

	text, isErr = mcpCall(t, cs, todotools.Read, nil)
	if isErr || !strings.Contains(text, `1. ✓ "Write the parser"`) {
		t.Errorf("todo_read: %v %q", isErr, text)
	}
	text, isErr = mcpCall(t, cs, todotools.Pause, map[string]any{"reason": "Which CSV dialect?"})
	s, _ = h.store().Load("m1")
	if isErr || !s.Paused || s.PauseReason != "Which CSV dialect?" {
		t.Errorf("todo_pause: %v %q; paused %v %q", isErr, text, s.Paused, s.PauseReason)
	}
}

// TestMCPRequireEvidence: --require-evidence is the same rule as the
// model API's.
func TestMCPRequireEvidence(t *testing.T) {
	h := newHome(t)
	cs := h.mcpConnect(t, h.dir, nil, "--session", "ev", "--require-evidence")
	text, isErr := mcpCall(t, cs, todotools.Write, map[string]any{"todos": []map[string]any{{"content": "Ship it", "status": "completed"}}})
	if !isErr || !strings.Contains(text, "without evidence") {
		t.Errorf("completing without evidence: %v %q", isErr, text)
	}
	if _, err := h.store().Load("ev"); err == nil {
		t.Errorf("a refused write created the session")
	}
}

// TestMCPSession: the session is --session, else $TODOSH_SESSION, else the
// most recent session of the directory, else a new one.
func TestMCPSession(t *testing.T) {
	h := newHome(t)
	add := []map[string]any{{"content": "from mcp", "status": "pending"}}

	cs := h.mcpConnect(t, h.dir, []string{"TODOSH_SESSION=from-env"})
	mcpCall(t, cs, todotools.Write, map[string]any{"todos": add})
	h.assertList(t, "from-env", "from mcp")

	// A shell's session in this directory is the most recent one.
	if r := h.script(t, h.dir, "", "--session", "shell1", "-c", "/todo add mine"); r.code != 0 {
		t.Fatalf("shell: %+v", r)
	}
	cs = h.mcpConnect(t, h.dir, nil)
	text, _ := mcpCall(t, cs, todotools.Read, nil)
	if !strings.Contains(text, "mine") {
		t.Errorf("without --session or $TODOSH_SESSION, todo_read = %q, want the shell's session", text)
	}

	// A directory with no session gets a new one, recorded with its cwd.
	other := t.TempDir()
	cs = h.mcpConnect(t, other, nil)
	mcpCall(t, cs, todotools.Write, map[string]any{"todos": add})
	id, err := h.store().MostRecentIn(other)
	if err != nil {
		t.Fatalf("the new session has no cwd: %v", err)
	}
	h.assertList(t, id, "from mcp")

	// A bad id is one line and exit status 2.
	r := h.script(t, h.dir, "", "mcp", "--session", "../x")
	if r.code != 2 || !strings.Contains(r.stderr, "todosh mcp: --session: invalid session id") || countLines(r.stderr) != 1 {
		t.Errorf("bad --session: %+v", r)
	}
}

// TestMCPConcurrentWithShell: the MCP server and shells write the same
// session at once; nothing is lost, and a shell open on the session shows
// the server's changes live.
func TestMCPConcurrentWithShell(t *testing.T) {
	h := newHome(t)
	tm := h.startTerm(t, "--session", "c1")
	tm.expect("› ")
	cs := h.mcpConnect(t, h.dir, nil, "--session", "c1")

	var wg sync.WaitGroup
	const shells = 4
	for i := range shells {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := h.script(t, h.dir, "", "--session", "c1", "-c", fmt.Sprintf("/todo add person %d", i))
			if r.code != 0 {
				t.Errorf("shell %d: %+v", i, r)
			}
		}()
	}
	for i := range 5 {
		todos := []map[string]any{{"content": "agent item", "status": "in_progress"}}
		if i == 4 {
			todos[0]["status"] = "completed"
		}
		if text, isErr := mcpCall(t, cs, todotools.Write, map[string]any{"todos": todos}); isErr {
			t.Errorf("todo_write %d: %s", i, text)
		}
	}
	wg.Wait()
	s, err := h.store().Load("c1")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, td := range s.Todos {
		got[td.Content] = true
	}
	for i := range shells {
		if !got[fmt.Sprintf("person %d", i)] {
			t.Errorf("person %d was lost:\n%s", i, todoview.FormatList(s.Todos))
		}
	}
	if !got["agent item"] {
		t.Errorf("the agent's item was lost:\n%s", todoview.FormatList(s.Todos))
	}
	// The open shell shows the server's last write without a command. How
	// the writes interleave decides whether it prints the whole list or a
	// change line, so wait for the prompt's progress of the final list
	// (the agent's item done, the four people's open), which both give.
	tm.expect("todosh 1/5 › ")
	tm.quit()
}

// TestCLIMCPHandover: Claude Code and Codex are handed todosh's MCP server
// on their command line, and what they are handed really serves the
// session: the server started from Claude's --mcp-config keeps a list
// that the shell's session then holds.
func TestCLIMCPHandover(t *testing.T) {
	for _, kind := range []string{"claude", "codex"} {
		t.Run(kind, func(t *testing.T) {
			h := newHome(t)
			record := filepath.Join(h.dir, "cli-runs.jsonl")
			run1, err := filepath.Abs(filepath.Join(clisTestdata, "transcripts", map[string]string{"claude": "claude-todowrite", "codex": "codex"}[kind], kind+"-run1.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			setFakeEnv(t, map[string]string{"FAKECLI_RUN1": run1, "FAKECLI_RECORD": record})
			r := h.script(t, h.dir, "", "--session", "h1", "--no-continue", "--agent", kind, "--agent-bin", filepath.Join(fakeCLIDir(t), kind), "-c", "plan it")
			if r.code != 3 { // stopped with open items
				t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
			}
			argv := readCLIRuns(t, record)[0].Argv
			if kind == "codex" {
				if !hasArgs(argv, "-c", `mcp_servers.todosh.command=`+strconv.Quote(binary)) || !hasArgs(argv, "-c", `mcp_servers.todosh.args=["mcp","--session","h1"]`) {
					t.Errorf("codex was not handed todosh's MCP server: %q", argv)
				}
				return
			}
			i := slices.Index(argv, "--mcp-config")
			if i < 0 || i+1 >= len(argv) || !hasArgs(argv, "--allowedTools", "mcp__todosh__todo_write,mcp__todosh__todo_read,mcp__todosh__todo_tick,mcp__todosh__todo_pause,mcp__todosh__board_ready,mcp__todosh__board_claim,mcp__todosh__board_done") {
				t.Fatalf("claude was not handed todosh's MCP server: %q", argv)
			}
			var cfg struct {
				MCPServers map[string]struct {
					Command string            `json:"command"`
					Args    []string          `json:"args"`
					Env     map[string]string `json:"env"`
				} `json:"mcpServers"`
			}
			if err := json.Unmarshal([]byte(argv[i+1]), &cfg); err != nil {
				t.Fatalf("--mcp-config %q: %v", argv[i+1], err)
			}
			srv := cfg.MCPServers["todosh"]
			cmd := exec.Command(srv.Command, srv.Args...)
			cmd.Dir = h.dir
			// TODOSH_HOME comes only from the config, as Claude would
			// start the server: an empty one is unset to todosh.
			extra := []string{"TODOSH_HOME="}
			for k, v := range srv.Env {
				extra = append(extra, k+"="+v)
			}
			cmd.Env = testenv.Env(h.dir, extra...)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "as-claude", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if text, isErr := mcpCall(t, cs, todotools.Write, map[string]any{"todos": []map[string]any{{"content": "from claude's MCP", "status": "pending"}}}); isErr {
				t.Fatal(text)
			}
			s, err := h.store().Load("h1")
			if err != nil || len(s.Todos) == 0 || s.Todos[0].Content != "from claude's MCP" {
				t.Errorf("the server from --mcp-config did not serve session h1: %+v %v", s, err)
			}
		})
	}
}

// shell runs one /todo line in session id, as the person would.
func (h home) shell(t *testing.T, id, line string) {
	t.Helper()
	if r := h.script(t, h.dir, "", "--session", id, "-c", line); r.code != 0 {
		t.Fatalf("%s: %+v", line, r)
	}
}

// TestMCPTickAfterMove: after the person moves items in a shell, an
// MCP client's tick by the position its last reply showed lands on the
// subtask that position named there (it once ticked another item's
// subtask), and names it; a tick by stable id lands on the subtask it
// means.
func TestMCPTickAfterMove(t *testing.T) {
	h := newHome(t)
	cs := h.mcpConnect(t, h.dir, nil, "--session", "mv")
	text, isErr := mcpCall(t, cs, todotools.Write, map[string]any{"todos": []map[string]any{
		{"content": "Parser", "status": "in_progress", "subtasks": []map[string]any{{"content": "quoted", "status": "pending"}}},
		{"content": "Docs", "status": "pending", "subtasks": []map[string]any{{"content": "usage", "status": "pending"}}},
	}})
	if isErr || !strings.Contains(text, "1 t1, 1.1 s2, 2 t3, 2.1 s4") {
		t.Fatalf("todo_write: %s", text)
	}
	h.shell(t, "mv", "/todo move 2 1")

	text, isErr = mcpCall(t, cs, todotools.Tick, map[string]any{"id": "1.1", "evidence": "TestQuoted"})
	if isErr || !strings.Contains(text, "Ticked 2.1 (s2) of item 2 (t1).\n  2 \"Parser\"\n  2.1 [x] \"quoted\"") {
		t.Fatalf("tick 1.1 as the reply showed it: %v %s", isErr, text)
	}
	if text, isErr = mcpCall(t, cs, todotools.Tick, map[string]any{"id": "s4"}); isErr || !strings.Contains(text, `1.1 [x] "usage"`) {
		t.Fatalf("tick s4: %v %s", isErr, text)
	}
	if text, isErr = mcpCall(t, cs, todotools.Tick, map[string]any{"id": "s4"}); isErr {
		t.Fatalf("untick s4: %v %s", isErr, text)
	}
	s, err := h.store().Load("mv")
	if err != nil {
		t.Fatal(err)
	}
	if d, p := s.Todos[0], s.Todos[1]; d.Content != "Docs" || d.Subtasks[0].Status != todolist.Pending || d.Subtasks[0].Evidence != "" ||
		p.Content != "Parser" || p.Subtasks[0].Status != todolist.Completed || p.Subtasks[0].Evidence != "TestQuoted" {
		t.Errorf("the tick and its evidence landed on the wrong item:\n%s", todoview.FormatList(s.Todos))
	}
}

// TestMCPWriteNeverUndoesThePerson: an MCP client's todo_write restating
// the list it last read does not undo the person's rename, completion or
// added subtask made in a shell since, and the reply says what was kept;
// an id "1" names the item its last reply showed at 1, whose rename by
// the person stays.
func TestMCPWriteNeverUndoesThePerson(t *testing.T) {
	h := newHome(t)
	cs := h.mcpConnect(t, h.dir, nil, "--session", "pw")
	older := []map[string]any{
		{"content": "Write the parser", "status": "in_progress", "subtasks": []map[string]any{{"content": "quoted", "status": "pending"}}},
		{"content": "Write tests", "status": "pending"},
	}
	if text, isErr := mcpCall(t, cs, todotools.Write, map[string]any{"todos": older}); isErr {
		t.Fatal(text)
	}
	h.shell(t, "pw", `/todo edit 1 "Write the CSV parser"`)
	h.shell(t, "pw", `/todo add 1.last "CRLF"`)
	h.shell(t, "pw", "/todo done 2")

	text, isErr := mcpCall(t, cs, todotools.Write, map[string]any{"todos": older})
	if isErr {
		t.Fatal(text)
	}
	s, _ := h.store().Load("pw")
	var got []string
	for _, td := range s.Todos {
		x := td.Content + ":" + string(td.Status)
		for _, st := range td.Subtasks {
			x += "," + st.Content
		}
		got = append(got, x)
	}
	want := []string{"Write the CSV parser:in_progress,quoted,CRLF", "Write the parser:in_progress,quoted", "Write tests:completed"}
	if !slices.Equal(got, want) {
		t.Errorf("after the agent restated its older list:\n got %q\nwant %q", got, want)
	}
	for _, w := range []string{`"Write the CSV parser": left out by your list, kept`, `"Write tests": changed by the person since your last read, your version not applied`} {
		if !strings.Contains(text, w) {
			t.Errorf("reply lacks %q:\n%s", w, text)
		}
	}

	// Position 1 of the reply the agent last had, on a list the person
	// changed since: the same item, and the person's rename stays.
	cs2 := h.mcpConnect(t, h.dir, nil, "--session", "pw2")
	if text, isErr := mcpCall(t, cs2, todotools.Write, map[string]any{"todos": older}); isErr {
		t.Fatal(text)
	}
	h.shell(t, "pw2", `/todo edit 1 "Write the CSV parser"`)
	reuse := []map[string]any{{"id": "1", "content": "Something else", "status": "pending"}, {"content": "Write tests", "status": "pending"}}
	text, isErr = mcpCall(t, cs2, todotools.Write, map[string]any{"todos": reuse})
	if isErr || !strings.Contains(text, `"Write the CSV parser": changed by the person since your last read, your version not applied`) {
		t.Errorf("todo_write naming position 1 after the person's rename: %v %s", isErr, text)
	}
	if s, _ := h.store().Load("pw2"); len(s.Todos) != 2 || s.Todos[0].Content != "Write the CSV parser" {
		t.Errorf("after position 1 was renamed: %s", todoview.FormatList(s.Todos))
	}
}
