package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// This file tests todosh acp as an editor meets it over a thread's life:
// the conversation replayed on reopening, the agent's settings, the
// session lifecycle, order, and the agent starting only when needed.
// Every message is checked against the ACP schema (startEditor).

// initialize sends initialize and returns its answer.
func (e *editor) initialize() acp.InitializeResponse {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	init, err := e.conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
	if err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
	return init
}

// snapshot is the updates so far.
func (e *editor) snapshot() []acp.SessionNotification {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]acp.SessionNotification(nil), e.updates...)
}

// lastConfigOptions is the options of the last config_option_update so
// far, nil before any.
func (e *editor) lastConfigOptions() []acp.SessionConfigOption {
	var opts []acp.SessionConfigOption
	for _, n := range e.snapshot() {
		if u := n.Update.ConfigOptionUpdate; u != nil {
			opts = u.ConfigOptions
		}
	}
	return opts
}

// speech is the text of the user and agent messages of updates, one line
// each, "user: ..." or "agent: ...", consecutive chunks of one speaker
// joined.
func speech(updates []acp.SessionNotification) []string {
	var out []string
	last := ""
	for _, n := range updates {
		who, text := "", ""
		switch u := n.Update; {
		case u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil:
			who, text = "user", u.UserMessageChunk.Content.Text.Text
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			who, text = "agent", u.AgentMessageChunk.Content.Text.Text
		case u.ToolCall != nil:
			who, text = "tool", u.ToolCall.Title
		default:
			continue
		}
		if who == last && who != "tool" {
			out[len(out)-1] += text
			continue
		}
		out = append(out, who+": "+text)
		last = who
	}
	return out
}

// TestACPServeReplayAfterRestart: a thread's conversation survives todosh
// acp's restart: session/load replays, before its answer, the person's
// prompts as user messages, the agent's words, its tool calls and
// todosh's own lines (the continuation announced as todosh's, its prompt
// never shown as the person's), then the list as the plan; the agent is
// not started for it.
func TestACPServeReplayAfterRestart(t *testing.T) {
	r := newACP(t)
	e := startEditor(t, r.h, r.env, "--", fakeacp)
	id := e.newSession(false)
	e.mustPrompt(id, "[[plan]] build csvkit-lite")
	e.mustPrompt(id, `/todo add "ship it"`)
	e.mustPrompt(id, "[[think]] look")
	live := speech(e.snapshot())
	e.in.Close()
	<-e.done

	e2 := startEditor(t, r.h, r.env, "--", fakeacp)
	e2.initialize()
	before := strings.Count(r.received(t), `"method":"session/`)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if _, err := e2.conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: id, Cwd: r.h.dir, McpServers: []acp.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	got := speech(e2.snapshot())
	// The fake runs a command before each item it marks done (a receipt,
	// issue 26): each is a tool call of its own.
	want := []string{
		"user: [[plan]] build csvkit-lite",
		"agent: I'll break this work into a todo list first.\n",
		"tool: Run fake-work",
		"agent: Skeleton is in place; moving on to the parser.\nI'll stop here for now.\n\n\ntodosh: continuing 1/3 — 2 open items\n\n",
		"tool: Run fake-work",
		"agent: Done with one more item.\n\n\ntodosh: continuing 1/3 — 1 open item\n\n",
		"tool: Run fake-work",
		"agent: Done with one more item.\n\n\ntodosh: all done\n\n",
		`user: /todo add "ship it"`,
		`agent: + 4 "ship it" — 3/4 done` + "\n",
		"user: [[think]] look",
		"tool: Read main.go",
		"agent: thought and read\n\n\ntodosh: continuing 1/3 — 1 open item\n\n",
		"tool: Run fake-work",
		"agent: Done with one more item.\n\n\ntodosh: continuing 2/3 — 1 open item\n\n",
		"tool: Run fake-work",
		"agent: Done with one more item.\n\n\ntodosh: continuing 3/3 — 1 open item\n\n",
		"tool: Run fake-work",
		"agent: Done with one more item.\n\n\ntodosh: stopped: 3 attempts without progress\n\n",
	}
	if strings.Join(got, "\n---\n") != strings.Join(want, "\n---\n") {
		t.Errorf("replayed conversation:\n%q\nwant:\n%q\n(live it was %q)", got, want, live)
	}
	for _, l := range got {
		if strings.HasPrefix(l, "user:") && strings.Contains(l, "You stopped") {
			t.Errorf("a continuation prompt replayed as the person's: %q", l)
		}
	}
	if !e2.lastPlanHas("pending ship it") {
		t.Errorf("the plan was not replayed before the answer: %q", e2.plans())
	}
	// Replayed without starting the agent: no session/new or session/load
	// reached it for the load.
	if n := strings.Count(r.received(t), `"method":"session/`); n != before {
		t.Errorf("session/load started the agent's session (%d session methods, want %d)", n, before)
	}
	// The next prompt reopens the agent's own session.
	e2.mustPrompt(id, "are you there")
	if !strings.Contains(e2.text(), "echo: are you there") {
		t.Errorf("the prompt after the load: %q", e2.text())
	}
}

// TestACPServeNoUpdateBeforeAnswer: every session/update of a session
// comes after the answer that told the editor of it (session/new,
// session/resume), and session/load's replay before its answer.
func TestACPServeNoUpdateBeforeAnswer(t *testing.T) {
	r := newACP(t)
	e := startEditor(t, r.h, r.env, "--", fakeacp)
	id := e.newSession(false)
	e.mustPrompt(id, "[[plan]] build")
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if _, err := e.conn.ResumeSession(ctx, acp.ResumeSessionRequest{SessionId: id, Cwd: r.h.dir}); err != nil {
		t.Fatalf("session/resume of the open session: %v", err)
	}
	e2 := startEditor(t, r.h, r.env, "--", fakeacp)
	e2.initialize()
	if _, err := e2.conn.ResumeSession(ctx, acp.ResumeSessionRequest{SessionId: id, Cwd: r.h.dir}); err != nil {
		t.Fatalf("session/resume: %v", err)
	}
	e2.waitFor("the commands after resume", func() bool {
		for _, n := range e2.snapshot() {
			if n.Update.AvailableCommandsUpdate != nil {
				return true
			}
		}
		return false
	})
	for _, u := range speech(e2.snapshot()) {
		t.Errorf("session/resume replayed %q; it replays nothing", u)
	}
	for _, ed := range []*editor{e, e2} {
		// The first answer after initialize's is the one that opened the
		// session (session/new, session/resume).
		answered := false
		for _, l := range ed.schema.lines() {
			var m struct {
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Params struct {
					SessionID string `json:"sessionId"`
				} `json:"params"`
			}
			json.Unmarshal([]byte(l), &m)
			switch {
			case m.Method == "" && m.Result != nil && !strings.Contains(string(m.Result), "protocolVersion"):
				answered = true
			case m.Method == "session/update" && m.Params.SessionID == string(id) && !answered:
				t.Errorf("an update before the answer that opened the session: %s", l)
			}
		}
	}
}

// TestACPServeSettings: a new thread answers with todosh's own options and
// no agent started; /todo answers without starting it; the first prompt
// starts it, and its modes and models reach the editor as config options
// beside todosh's; the editor's choices reach the agent; todosh's own
// options change its continuation.
func TestACPServeSettings(t *testing.T) {
	r := newACP(t, "FAKEACP_LAZY=1")
	e := startEditor(t, r.h, r.env, "--", fakeacp)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	s := e.firstThread(ctx, r.h.dir)
	if ids := optionIDs(s.ConfigOptions); ids != "todosh_continue todosh_attempts todosh_budget_time todosh_require_evidence" {
		t.Errorf("session/new's configOptions = %s, want todosh's own (the agent has not started)", ids)
	}
	e.mustPrompt(s.SessionId, `/todo add "one"`)
	if strings.Contains(r.received(t), `"method":"session/new"`) {
		t.Errorf("/todo started the agent's session:\n%s", r.received(t))
	}
	e.mustPrompt(s.SessionId, "[[settings]]")
	if !strings.Contains(e.text(), "mode=default model=fast") {
		t.Errorf("the agent's settings: %q", e.text())
	}
	opts := e.lastConfigOptions()
	if ids := optionIDs(opts); ids != "mode model todosh_continue todosh_attempts todosh_budget_time todosh_require_evidence" {
		t.Errorf("config_option_update after the agent started: %s", ids)
	}
	// The editor's choices reach the agent.
	set, err := e.conn.SetSessionConfigOption(ctx, acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{SessionId: s.SessionId, ConfigId: "model", Value: "smart"}})
	if err != nil {
		t.Fatalf("set_config_option model: %v", err)
	}
	if ids := optionIDs(set.ConfigOptions); ids != "mode model todosh_continue todosh_attempts todosh_budget_time todosh_require_evidence" || set.ConfigOptions[1].Select.CurrentValue != "smart" {
		t.Errorf("set_config_option's answer: %s", ids)
	}
	if _, err := e.conn.SetSessionMode(ctx, acp.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "plan"}); err != nil {
		t.Fatalf("set_mode: %v", err)
	}
	e.waitFor("the mode update", func() bool {
		for _, n := range e.snapshot() {
			if u := n.Update.CurrentModeUpdate; u != nil && u.CurrentModeId == "plan" {
				return true
			}
		}
		return false
	})
	e.mustPrompt(s.SessionId, "[[settings]]")
	if !strings.Contains(e.text(), "mode=plan model=smart") {
		t.Errorf("the editor's choices did not reach the agent: %q", e.text())
	}
	_, err = e.conn.SetSessionMode(ctx, acp.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "nonsense"})
	var re *acp.RequestError
	if !errors.As(err, &re) || re.Code != -32602 {
		t.Errorf("a mode the agent refuses: %v, want its invalid params", err)
	}

	// todosh's own options: attempts without progress, then off.
	if _, err := e.conn.SetSessionConfigOption(ctx, acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{SessionId: s.SessionId, ConfigId: "todosh_attempts", Value: "1"}}); err != nil {
		t.Fatalf("todosh_attempts: %v", err)
	}
	e.mustPrompt(s.SessionId, "work on it")
	if !strings.Contains(e.text(), "todosh: continuing 1/1 — 1 open item") || !strings.Contains(e.text(), "todosh: stopped: 1 attempts without progress") {
		t.Errorf("attempts 1 did not apply: %q", e.text())
	}
	if _, err := e.conn.SetSessionConfigOption(ctx, acp.SetSessionConfigOptionRequest{Boolean: &acp.SetSessionConfigOptionBoolean{SessionId: s.SessionId, ConfigId: "todosh_continue", Type: "boolean", Value: false}}); err != nil {
		t.Fatalf("todosh_continue: %v", err)
	}
	e.mustPrompt(s.SessionId, "work on it again")
	if !strings.Contains(e.text(), "todosh: stopped: continuation is off — 1 open item") {
		t.Errorf("continuation off did not apply: %q", e.text())
	}
	_, err = e.conn.SetSessionConfigOption(ctx, acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{SessionId: s.SessionId, ConfigId: "todosh_attempts", Value: "99"}})
	if !errors.As(err, &re) || re.Code != -32602 {
		t.Errorf("attempts 99: %v, want invalid params", err)
	}

	// A second thread answers with the agent's settings as last heard.
	s2, err := e.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: r.h.dir, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if s2.Modes == nil || s2.Models == nil || optionIDs(s2.ConfigOptions) != "mode model todosh_continue todosh_attempts todosh_budget_time todosh_require_evidence" {
		t.Errorf("the second session/new: modes %v models %v options %s", s2.Modes, s2.Models, optionIDs(s2.ConfigOptions))
	}
}

// firstThread initializes the connection and opens a thread in dir,
// whose answer it returns.
func (e *editor) firstThread(ctx context.Context, dir string) acp.NewSessionResponse {
	e.t.Helper()
	e.initialize()
	s, err := e.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: dir, McpServers: []acp.McpServer{}})
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// optionIDs names config options in order.
func optionIDs(opts []acp.SessionConfigOption) string {
	var ids []string
	for _, o := range opts {
		switch {
		case o.Select != nil:
			ids = append(ids, string(o.Select.Id))
		case o.Boolean != nil:
			ids = append(ids, string(o.Boolean.Id))
		}
	}
	return strings.Join(ids, " ")
}

// TestACPServeLifecycle: initialize advertises list, resume, close and
// delete; session/list lists the sessions of a directory with a title of
// the first prompt and the list's progress, which session_info_update
// keeps current; session/close and session/delete of unknown sessions
// are errors; session/delete removes the session's files.
func TestACPServeLifecycle(t *testing.T) {
	r := newACP(t)
	e := startEditor(t, r.h, r.env, "--", fakeacp)
	init := e.initialize()
	sc := init.AgentCapabilities.SessionCapabilities
	if sc.List == nil || sc.Resume == nil || sc.Close == nil {
		t.Errorf("sessionCapabilities = %+v, want list, resume and close", sc)
	}
	if l := e.schema.lines(); !strings.Contains(strings.Join(l, "\n"), `"delete":{}`) {
		t.Errorf("initialize does not advertise session/delete: %v", l)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	s, err := e.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: r.h.dir, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	id := s.SessionId
	e.mustPrompt(id, "[[plan]] csv parser for the team")
	e.waitFor("the title", func() bool {
		for _, n := range e.snapshot() {
			if u := n.Update.SessionInfoUpdate; u != nil && u.Title != nil && *u.Title == "[[plan]] csv parser for the team · 3/3 done" {
				return true
			}
		}
		return false
	})
	other := t.TempDir()
	s2, err := e.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: other, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	e.mustPrompt(s2.SessionId, `/todo add "elsewhere"`)
	list, err := e.conn.ListSessions(ctx, acp.ListSessionsRequest{Cwd: &r.h.dir})
	if err != nil {
		t.Fatalf("session/list: %v", err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionId != id || list.Sessions[0].Title == nil ||
		*list.Sessions[0].Title != "[[plan]] csv parser for the team · 3/3 done" {
		t.Errorf("session/list of %s = %+v", r.h.dir, list.Sessions)
	}
	all, err := e.conn.ListSessions(ctx, acp.ListSessionsRequest{})
	if err != nil || len(all.Sessions) != 2 {
		t.Errorf("session/list of every directory: %+v %v, want 2", all.Sessions, err)
	}
	var re *acp.RequestError
	if _, err := e.conn.CloseSession(ctx, acp.CloseSessionRequest{SessionId: "no-such"}); !errors.As(err, &re) || re.Code != -32602 {
		t.Errorf("session/close of an unknown session: %v, want invalid params", err)
	}
	if _, err := e.conn.CloseSession(ctx, acp.CloseSessionRequest{SessionId: s2.SessionId}); err != nil {
		t.Errorf("session/close: %v", err)
	}
	if _, err := e.prompt(s2.SessionId, "/todo show"); !errors.As(err, &re) {
		t.Errorf("a prompt to a closed session: %v, want an error", err)
	}
	// session/delete, answered by todosh itself (the SDK does not know it).
	for _, c := range []struct {
		id   acp.SessionId
		code int
	}{{"no-such", -32602}, {id, 0}} {
		rid := 9000 + len(c.id)
		rawSend(e, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/delete","params":{"sessionId":%q}}`, rid, c.id))
		m := rawAnswer(e, rid)
		errObj, _ := m["error"].(map[string]any)
		switch {
		case c.code == 0 && (errObj != nil || m["result"] == nil):
			t.Errorf("session/delete %s: %v", c.id, m)
		case c.code != 0 && (errObj == nil || errObj["code"] != float64(c.code)):
			t.Errorf("session/delete %s: %v, want code %d", c.id, m, c.code)
		}
	}
	for _, f := range []string{"todo-", "hist-", "thread-"} {
		path := r.h.root + "/todos/" + f + string(id)
		for _, ext := range []string{".json", ".jsonl"} {
			if _, err := os.Stat(path + ext); err == nil {
				t.Errorf("%s survived session/delete", path+ext)
			}
		}
	}
	list, _ = e.conn.ListSessions(ctx, acp.ListSessionsRequest{Cwd: &r.h.dir})
	if len(list.Sessions) != 0 {
		t.Errorf("session/list after delete: %+v", list.Sessions)
	}
}

// rawSend writes requests to todosh acp as they are, in one write, past
// the SDK (which cannot send a method it does not know, or keep an
// order of its own).
func rawSend(e *editor, lines ...string) {
	e.t.Helper()
	if _, err := e.in.Write([]byte(strings.Join(lines, "\n") + "\n")); err != nil {
		e.t.Fatal(err)
	}
}

// rawAnswer waits for todosh's answer to the request with id.
func rawAnswer(e *editor, id int) map[string]any {
	e.t.Helper()
	limit := time.Now().Add(deadline)
	for time.Now().Before(limit) {
		for _, l := range e.schema.lines() {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil && m["method"] == nil && m["id"] == float64(id) {
				return m
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.t.Fatalf("no answer to request %d", id)
	return nil
}

// TestACPServePromptOrder: prompts a client pipelines run in the order it
// sent them; a /todo clear sent last runs last.
func TestACPServePromptOrder(t *testing.T) {
	h := newHome(t)
	e := startEditor(t, h, nil)
	id := e.newSession(false)
	const n = 40
	var lines []string
	for i := 1; i <= n; i++ {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"/todo add \"item %d\""}]}}`, 1000+i, id, i))
	}
	lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"/todo clear"}]}}`, 1000+n+1, id))
	rawSend(e, lines...)
	for i := 1; i <= n+1; i++ {
		if m := rawAnswer(e, 1000+i); m["error"] != nil {
			t.Fatalf("prompt %d: %v", i, m)
		}
	}
	e.waitFor("the answer to the clear", func() bool { return strings.Contains(e.text(), "item 40") })
	text := e.text()
	last := -1
	for i := 1; i <= n; i++ {
		at := strings.Index(text, fmt.Sprintf(`"item %d"`, i))
		if at < last {
			t.Fatalf("item %d was added before item %d:\n%s", i, i-1, text)
		}
		last = at
	}
	h.assertList(t, string(id))
}

// TestACPServeImageToldToo: an image todosh does not pass on is said to
// the person in the editor, not only to the agent.
func TestACPServeImageToldToo(t *testing.T) {
	r := newACP(t)
	e := startEditor(t, r.h, r.env, "--", fakeacp)
	id := e.newSession(false)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	res, err := e.conn.Prompt(ctx, acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{
		acp.TextBlock("what is in it"), acp.ImageBlock("iVBORw0KGgo=", "image/png")}})
	if err != nil || res.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt with an image: %v %v", res.StopReason, err)
	}
	if !strings.Contains(e.text(), "todosh: an image left out: todosh passes text only to the agent") {
		t.Errorf("the person was not told of the image:\n%s", e.text())
	}
	if !strings.Contains(r.received(t), "(an image was left out: todosh passes text only)") {
		t.Errorf("the agent was not told of the image:\n%s", r.received(t))
	}
}

// TestACPServeOwnToolUpdateNotRelayed: a tool_call_update for a call the
// editor never saw (todosh answered its permission itself, for its own
// todo tools, and the agent sent no tool_call, as Gemini CLI does) is not
// passed on.
func TestACPServeOwnToolUpdateNotRelayed(t *testing.T) {
	r := newACP(t, "FAKEACP_PLAYS=gemini", "FAKEACP_NOCALL=1")
	e := startEditor(t, r.h, r.env, "--", fakeacp)
	id := e.newSession(false)
	e.mustPrompt(id, "[[mcp]] keep the list")
	if !strings.Contains(e.text(), "Used todosh's tools") {
		t.Fatalf("the MCP tools were not used:\n%s", e.text())
	}
	for _, n := range e.snapshot() {
		if u := n.Update.ToolCallUpdate; u != nil {
			t.Errorf("a tool_call_update of a call the editor never saw: %s", u.ToolCallId)
		}
	}
}

// TestACPServeStaleTurnAfterCancel: after a cancel, an agent that ends the
// next prompt at once saying nothing (the end of the cancelled turn) is
// sent the prompt again, not continued as a lazy end.
func TestACPServeStaleTurnAfterCancel(t *testing.T) {
	r := newACP(t, "FAKEACP_STALE=1")
	e := startEditor(t, r.h, r.env, "--", fakeacp)
	id := e.newSession(false)
	e.mustPrompt(id, `/todo add "open item"`)
	answers := make(chan acp.StopReason, 1)
	go func() {
		res, _ := e.prompt(id, "[[slow]]")
		answers <- res
	}()
	e.waitFor("the slow turn", func() bool { return strings.Contains(e.text(), "working on it") })
	if err := e.conn.Cancel(context.Background(), acp.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	if r := <-answers; r != acp.StopReasonCancelled {
		t.Fatalf("the slow turn after cancel: %q", r)
	}
	from := len(e.text())
	e.mustPrompt(id, "[[stop:end_turn]] hello after")
	after := e.text()[from:]
	if strings.Index(after, "stopping") < 0 || strings.Contains(after[:strings.Index(after, "stopping")], "todosh: continuing") {
		t.Errorf("the stale end was taken as a lazy end:\n%s", after)
	}
	if n := strings.Count(r.received(t), "[[stop:end_turn]] hello after"); n != 2 {
		t.Errorf("the prompt reached the agent %d times, want 2 (once more after the stale end)", n)
	}
}

// BenchmarkACPTodoNewThread times what an editor waits for when it opens
// a thread and types /todo add: session/new and the prompt's answer, on
// one todosh acp with the fake ACP agent behind it (which does not start
// for it). Goal: under 100 ms with any agent.
func BenchmarkACPTodoNewThread(b *testing.B) {
	r := newACP(b)
	e := startEditor(b, r.h, r.env, "--", fakeacp)
	e.initialize()
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		s, err := e.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: r.h.dir, McpServers: []acp.McpServer{}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.conn.Prompt(ctx, acp.PromptRequest{SessionId: s.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock(fmt.Sprintf(`/todo add "item %d"`, i))}}); err != nil {
			b.Fatal(err)
		}
	}
	if strings.Contains(r.received(b), `"method":"session/new"`) {
		b.Errorf("the agent's session was opened for /todo")
	}
}

// TestACPServeGeminiOwnListFromChat: Gemini CLI keeping its list with its
// own write_todos (whose items it sends over ACP only as a title) still
// gives the editor the plan, read from Gemini's chat recording, and the
// lazy end is continued; no notice says the list was lost.
func TestACPServeGeminiOwnListFromChat(t *testing.T) {
	r := newACP(t, "FAKEACP_PLAYS=gemini", "FAKEACP_CHAT=1", "FAKEACP_LAZY=1")
	e := startEditor(t, r.h, r.env, "--agent", "acp:gemini", "--agent-bin", fakeacp)
	id := e.newSession(false)
	e.mustPrompt(id, "[[plan]] build it")
	if p := e.plans(); len(p) == 0 || !strings.Contains(strings.Join(p[0], "\n"), "in_progress Create project skeleton for csvkit-lite") {
		t.Errorf("plans = %q, want Gemini's three items", p)
	}
	text := e.text()
	if !strings.Contains(text, "todosh: continuing 1/3 — 3 open items") || strings.Contains(text, "never reaches todosh") {
		t.Errorf("the editor's text:\n%s", text)
	}
	r.h.assertList(t, string(id), "Create project skeleton for csvkit-lite", "Implement CSV parser with quoted-field support", "Write unit tests for the parser")
}

// TestACPServeSettingsFromModes: an agent with modes and models but no
// config options (as Gemini CLI) still reaches the editor's pickers when
// it starts after session/new: todosh makes them two options, mode and
// model, whose setting is set_mode and set_model.
func TestACPServeSettingsFromModes(t *testing.T) {
	r := newACP(t, "FAKEACP_SETTINGS=modes")
	e := startEditor(t, r.h, r.env, "--", fakeacp)
	id := e.newSession(false)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	// Set before any prompt: the setting starts the agent.
	for _, set := range [][2]string{{"mode", "plan"}, {"model", "smart"}} {
		res, err := e.conn.SetSessionConfigOption(ctx, acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{SessionId: id, ConfigId: acp.SessionConfigId(set[0]), Value: acp.SessionConfigValueId(set[1])}})
		if err != nil {
			t.Fatalf("set %s: %v", set[0], err)
		}
		for _, o := range res.ConfigOptions {
			if o.Select != nil && string(o.Select.Id) == set[0] && string(o.Select.CurrentValue) != set[1] {
				t.Errorf("after set %s=%s the option says %s", set[0], set[1], o.Select.CurrentValue)
			}
		}
	}
	opts := e.lastConfigOptions()
	if ids := optionIDs(opts); ids != "mode model todosh_continue todosh_attempts todosh_budget_time todosh_require_evidence" {
		t.Fatalf("options after the agent started: %s", ids)
	}
	e.mustPrompt(id, "[[settings]]")
	if !strings.Contains(e.text(), "mode=plan model=smart") {
		t.Errorf("the choices did not reach the agent: %q", e.text())
	}
	if log := r.received(t); !strings.Contains(log, `"method":"session/set_mode"`) || !strings.Contains(log, `"method":"session/set_model"`) {
		t.Errorf("set_mode and set_model did not reach the agent:\n%s", log)
	}
}

// TestACPServeBudgetSettings: with an agent that reports usage, the
// editor gets todosh's token and time budgets as config options (none
// when todosh acp had no flag); choosing 10k tokens stops the next prompt
// at it, through the fake's "reports usage" scenario; choosing a time
// budget shows in /todo budget; a value outside the choices is refused;
// none lifts the budget. An agent that reports no usage is offered no
// token budget (TestACPServeSettings).
func TestACPServeBudgetSettings(t *testing.T) {
	r := newACP(t, "FAKEACP_USAGE=4000,1000")
	e := startEditor(t, r.h, r.env, "--agent", "acp:claude", "--agent-bin", fakeacp)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	s := e.firstThread(ctx, r.h.dir)
	current := func(opts []acp.SessionConfigOption, id string) string {
		for _, o := range opts {
			if o.Select != nil && string(o.Select.Id) == id {
				return string(o.Select.CurrentValue)
			}
		}
		return "(not offered)"
	}
	if ids := optionIDs(s.ConfigOptions); ids != "todosh_continue todosh_attempts todosh_budget_tokens todosh_budget_time todosh_require_evidence" {
		t.Fatalf("session/new's configOptions = %s", ids)
	}
	if c := current(s.ConfigOptions, "todosh_budget_tokens"); c != "none" {
		t.Errorf("token budget without --budget-tokens = %s, want none", c)
	}
	set := func(id, value string) []acp.SessionConfigOption {
		t.Helper()
		res, err := e.conn.SetSessionConfigOption(ctx, acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{SessionId: s.SessionId, ConfigId: acp.SessionConfigId(id), Value: acp.SessionConfigValueId(value)}})
		if err != nil {
			t.Fatalf("set_config_option %s=%s: %v", id, value, err)
		}
		if c := current(res.ConfigOptions, id); c != value {
			t.Errorf("set_config_option %s=%s answered %s", id, value, c)
		}
		return res.ConfigOptions
	}
	set("todosh_budget_tokens", "10000")
	e.mustPrompt(s.SessionId, "[[plan]] build csvkit-lite")
	text := e.text()
	for _, want := range []string{"todosh: continuing 1/3 — 2 open items", "todosh: stopped: token budget reached: 10,000 of 10,000"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the editor's text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "all done") {
		t.Fatalf("went on past the budget chosen in the editor:\n%s", text)
	}
	set("todosh_budget_time", "15m")
	e.mustPrompt(s.SessionId, "/todo budget")
	if text := e.text(); !strings.Contains(text, "of 15m0s spent") {
		t.Errorf("/todo budget after choosing 15m:\n%s", text)
	}
	_, err := e.conn.SetSessionConfigOption(ctx, acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{SessionId: s.SessionId, ConfigId: "todosh_budget_tokens", Value: "123"}})
	var re *acp.RequestError
	if !errors.As(err, &re) || re.Code != -32602 {
		t.Errorf("a token budget outside the choices: %v, want invalid params", err)
	}
	set("todosh_budget_tokens", "none")
	e.mustPrompt(s.SessionId, "go on")
	if text := e.text(); !strings.Contains(text, "todosh: all done") {
		t.Errorf("with no token budget the list was not finished:\n%s", text)
	}
}

// TestACPServeEvidenceSetting: the editor's "require evidence" reaches
// todosh's MCP server, which the agent started without
// --require-evidence: ticking a subtask with no evidence is refused from
// the next prompt on, and allowed again once the editor turns it off.
func TestACPServeEvidenceSetting(t *testing.T) {
	r := newACP(t)
	e := startEditor(t, r.h, r.env, "--", fakeacp)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	s := e.firstThread(ctx, r.h.dir)
	set := func(on bool) {
		t.Helper()
		res, err := e.conn.SetSessionConfigOption(ctx, acp.SetSessionConfigOptionRequest{Boolean: &acp.SetSessionConfigOptionBoolean{SessionId: s.SessionId, ConfigId: "todosh_require_evidence", Type: "boolean", Value: on}})
		if err != nil {
			t.Fatalf("todosh_require_evidence %v: %v", on, err)
		}
		for _, o := range res.ConfigOptions {
			if o.Boolean != nil && o.Boolean.Id == "todosh_require_evidence" && o.Boolean.CurrentValue != on {
				t.Errorf("set_config_option's answer: require evidence %v, want %v", o.Boolean.CurrentValue, on)
			}
		}
	}
	set(true)
	e.mustPrompt(s.SessionId, "[[mcp]] keep the list")
	if text := e.text(); !strings.Contains(text, "todo_tick refused") {
		t.Fatalf("with require evidence on, a tick without evidence was not refused:\n%s", text)
	}
	set(false)
	e.mustPrompt(s.SessionId, "[[mcp]] keep the list")
	if text := e.text(); strings.Count(text, "todo_tick refused") != 1 || !strings.Contains(text, "Used todosh's tools") {
		t.Errorf("with require evidence off, the tools refused:\n%s", text)
	}
}
