package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/continuation"
	"github.com/todosh/todosh/internal/benchcpu"
	"github.com/todosh/todosh/todostore"
)

// TestClaudeTranscriptUsage: what each prompt of a real Claude Code
// transcript spent, as its Stop hook's prompt_id names it (see
// testdata/claude-2.1.332-transcript.md).
func TestClaudeTranscriptUsage(t *testing.T) {
	data, err := os.ReadFile("testdata/claude-2.1.332-transcript.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		prompt string
		want   agent.Usage
		ok     bool
	}{
		{"4ed468e3-217a-4536-b33f-0dc9fd52f247", agent.Usage{Input: 800, Output: 160}, true}, // 8 requests, two of them continuations
		{"e6ab40ba-a117-4480-b52c-9754d629f97c", agent.Usage{Input: 100, Output: 20}, true},  // the next prompt alone
		{"00000000-0000-0000-0000-000000000000", agent.Usage{}, false},
		{"", agent.Usage{}, false},
	} {
		msgs, notices, ok := claudeTranscriptUsage(data, tc.prompt)
		if got := total(msgs); got != tc.want || ok != tc.ok || len(notices) > 0 {
			t.Errorf("prompt %q: %+v %v %q, want %+v %v", tc.prompt, got, ok, notices, tc.want, tc.ok)
		}
	}
	// Nonsense in a transcript is one notice, never a count.
	bad := `{"type":"user","message":{"role":"user","content":"go"},"promptId":"p1"}` + "\n" +
		`{"type":"assistant","message":{"id":"m1","content":[],"usage":{"input_tokens":-9,"output_tokens":1}},"parent_tool_use_id":null}` + "\n" +
		`{"type":"assistant","message":{"id":"m2","content":[],"usage":{"input_tokens":5,"output_tokens":1}},"parent_tool_use_id":null}` + "\n"
	if msgs, notices, ok := claudeTranscriptUsage([]byte(bad), "p1"); total(msgs) != (agent.Usage{Input: 5, Output: 1}) || !ok || len(notices) != 1 {
		t.Errorf("bad counts: %+v %v %q", msgs, ok, notices)
	}
}

// TestStopBudget: the gate's token budget is one more stop of the policy:
// it lets the agent stop with items open once the prompt spent it, and
// says so.
func TestStopBudget(t *testing.T) {
	tools := continuation.Tools{Todo: "TodoWrite"}
	st := &todostore.HookState{Before: list(I, P)}
	for _, tc := range []struct {
		budget, spent int64
		cont          bool
		say           string
	}{
		{0, 5000, true, ""},
		{10000, 9999, true, ""},
		{10000, 10240, false, "todosh: stopped: token budget reached: 10,240 of 10,000"},
	} {
		out := Stop(StopIn{Todos: list(I, P), State: st, Tools: tools, BudgetTokens: tc.budget, Spent: tc.spent})
		if out.Continue != tc.cont || out.Say != tc.say || !tc.cont && out.Reason != continuation.TokenBudget {
			t.Errorf("budget %d spent %d: %+v", tc.budget, tc.spent, out)
		}
	}
	// Done is done, whatever was spent.
	if out := Stop(StopIn{Todos: list(C, C), State: st, Tools: tools, BudgetTokens: 10, Spent: 5000}); out.Reason != continuation.NoOpenItems {
		t.Errorf("done: %+v", out)
	}
}

func TestParseHookArgs(t *testing.T) {
	for _, tc := range []struct {
		args   string
		budget int64
		ok     bool
	}{
		{"claude stop", 0, true},
		{"claude tool", 0, true},
		{"claude stop --budget-tokens 10000", 10000, true},
		{"claude tool --budget-tokens 10000", 0, false},
		{"claude stop --budget-tokens 0", 0, false},
		{"claude stop --budget-tokens -5", 0, false},
		{"claude stop --budget-tokens x", 0, false},
		{"claude stop --other 5", 0, false},
		{"claude", 0, false},
	} {
		_, _, n, err := ParseHookArgs(strings.Fields(tc.args))
		if (err == nil) != tc.ok || n != tc.budget {
			t.Errorf("%q: %d %v", tc.args, n, err)
		}
	}
}

// TestInstallBudget: the budget rides on the stop entry alone; installing
// again with another budget, or none, rewrites that entry in place, and
// uninstall finds it.
func TestInstallBudget(t *testing.T) {
	claude, err := Lookup("claude")
	if err != nil {
		t.Fatal(err)
	}
	withBudget, err := claude.WithBudget(10000)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := install(nil, withBudget, testExe)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), `bin/todosh' hook claude stop --budget-tokens 10000"`) || strings.Count(string(doc), "--budget-tokens") != 1 {
		t.Fatalf("installed:\n%s", doc)
	}
	other, _ := claude.WithBudget(500)
	doc2, err := install(doc, other, testExe)
	if err != nil || !strings.Contains(string(doc2), "stop --budget-tokens 500\"") || strings.Count(string(doc2), `hook claude stop`) != 1 {
		t.Fatalf("reinstalled with 500 (%v):\n%s", err, doc2)
	}
	doc3, err := install(doc2, claude, testExe)
	if err != nil || strings.Contains(string(doc3), "--budget-tokens") {
		t.Fatalf("reinstalled without a budget (%v):\n%s", err, doc3)
	}
	back, err := uninstall(doc2, claude)
	if err != nil || strings.Contains(string(back), "todosh") {
		t.Fatalf("uninstalled (%v):\n%s", err, back)
	}
	codex, _ := Lookup("codex")
	if _, err := codex.WithBudget(1000); err == nil || !strings.Contains(err.Error(), "no token usage") {
		t.Errorf("codex took a token budget: %v", err)
	}
}

// FuzzClaudeTranscriptUsage: any transcript gives a count that can be
// true, or none; never a panic.
func FuzzClaudeTranscriptUsage(f *testing.F) {
	if data, err := os.ReadFile("testdata/claude-2.1.332-transcript.jsonl"); err == nil {
		f.Add(data[:min(len(data), 8<<10)], "4ed468e3-217a-4536-b33f-0dc9fd52f247")
	}
	f.Add([]byte(`{"type":"user","promptId":"p"}`+"\n"+`{"type":"assistant","message":{"id":"m","usage":{"input_tokens":1e13}}}`), "p")
	f.Fuzz(func(t *testing.T, data []byte, prompt string) {
		msgs, _, ok := claudeTranscriptUsage(data, prompt)
		u := total(msgs)
		if u.Input < 0 || u.Output < 0 || u.Input > agent.MaxUsage || u.Output > agent.MaxUsage || !ok && u != (agent.Usage{}) {
			t.Fatalf("usage %+v ok %v", u, ok)
		}
	})
}

// TestShowsReply: the gate knows whether the transcript shows the message
// the agent stopped with yet: after the prompt's last user line, as JSON
// writes its text.
func TestShowsReply(t *testing.T) {
	const (
		user = `{"type":"user","promptId":"p1","message":{"role":"user","content":"go"}}` + "\n"
		done = `{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"All <done> \"now\"\n\nbye"}]}}` + "\n"
	)
	for _, tc := range []struct {
		part, reply string
		want        bool
	}{
		{user + done, "All <done> \"now\"\n\nbye", true},
		{user, "All <done> \"now\"\n\nbye", false},
		{done + user, "All <done> \"now\"\n\nbye", false}, // the same words before the gate's feedback
		{user, "", true},
		{user, "  \n ", true},
	} {
		if got := showsReply([]byte(tc.part), tc.reply); got != tc.want {
			t.Errorf("%q in %q: %v, want %v", tc.reply, tc.part, got, tc.want)
		}
	}
}

// TestStopUsageFromTranscript: the stop gate records what the prompt's
// messages spent in the session's work log, each once and on the item in
// progress when it was written, so /todo cost shows a hooks session's
// tokens; and it counts the last message although Claude Code had not
// written it to the transcript yet when the Stop hook ran (it writes
// every 100 ms): 240 of a budget of 200, not 120.
func TestStopUsageFromTranscript(t *testing.T) {
	claude, _ := Lookup("claude")
	h := newHarness(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	now := t0
	h.store.Now = func() time.Time { return now }
	path := filepath.Join(t.TempDir(), "t.jsonl")
	line := func(at time.Time, s string) string {
		return strings.Replace(s, "{", `{"timestamp":"`+at.Format(time.RFC3339Nano)+`",`, 1) + "\n"
	}
	msg := func(at time.Time, id, content string) string {
		return line(at, `{"type":"assistant","promptId":"p1","message":{"id":"`+id+`","role":"assistant","content":[`+content+`],"usage":{"input_tokens":100,"output_tokens":20}}}`)
	}
	transcript := line(t0, `{"type":"user","promptId":"p1","message":{"role":"user","content":"go"}}`) +
		msg(t0.Add(2*time.Second), "m1", `{"type":"tool_use","id":"tu1","name":"Bash","input":{"command":"go test"}}`) +
		line(t0.Add(3*time.Second), `{"type":"user","promptId":"p1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu1","content":"ok"}]}}`)
	last := msg(t0.Add(5*time.Second), "m2", `{"type":"text","text":"Both done."}`)
	if err := os.WriteFile(path, []byte(transcript), 0o600); err != nil {
		t.Fatal(err)
	}
	now = t0.Add(time.Second)
	h.tool(claude, [2]string{"one", "in_progress"}, [2]string{"two", "pending"})
	now = t0.Add(4 * time.Second)
	h.tool(claude, [2]string{"one", "completed"}, [2]string{"two", "in_progress"})
	now = t0.Add(6 * time.Second)

	h.budget = 200
	waits := 0
	h.sleep = func(time.Duration) {
		if waits++; waits == 2 { // Claude Code's write of the last message lands
			f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(last)
			f.Close()
		}
	}
	stop := func() (string, string) {
		return h.run("claude", KindStop, hookInput(claude, KindStop, map[string]any{
			"last_assistant_message": "Both done.", "stop_hook_active": false, "transcript_path": path, "prompt_id": "p1"}))
	}
	out, errs := stop()
	if !strings.Contains(out, "token budget reached: 240 of 200") || errs != "" {
		t.Errorf("stop: stdout %q stderr %q; want the budget reached at 240", out, errs)
	}
	for range 2 { // a stop after a continuation reads the same messages again
		if _, errs := stop(); errs != "" {
			t.Errorf("stop again: stderr %q", errs)
		}
	}
	id := "claude-sess-1"
	l, err := h.store.Ledger(id, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 2 || l.Items[0].In != 100 || l.Items[0].Out != 20 || l.Items[1].In != 100 || l.Total.In != 200 || l.Total.Out != 40 {
		t.Errorf("ledger %+v", l)
	}
}

// BenchmarkHookStopTranscript is a Claude stop with a budget on a prompt
// of 200 model messages in a 1,000-message transcript, all recorded by an
// earlier stop: read the transcript's prompt, count it, find every message
// in the work log, decide.
func BenchmarkHookStopTranscript(b *testing.B) {
	claude, h, _ := benchHarness(b)
	h.budget = 1 << 40
	var sb strings.Builder
	for p := 0; p < 5; p++ {
		prompt := fmt.Sprintf("p%d", p)
		sb.WriteString(`{"type":"user","promptId":"` + prompt + `","message":{"role":"user","content":"go"}}` + "\n")
		for m := 0; m < 200; m++ {
			fmt.Fprintf(&sb, `{"timestamp":"2026-03-01T10:00:00Z","type":"assistant","message":{"id":"m%d_%d","role":"assistant","content":[{"type":"text","text":"working on it %d"}],"usage":{"input_tokens":1000,"cache_read_input_tokens":20000,"output_tokens":300}}}`+"\n", p, m, m)
		}
	}
	path := filepath.Join(b.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	stop := hookInput(claude, KindStop, map[string]any{"last_assistant_message": "working on it 199", "transcript_path": path, "prompt_id": "p4"})
	h.run("claude", KindStop, stop)
	b.ResetTimer()
	defer benchcpu.PerOp(b)()
	for b.Loop() {
		h.run("claude", KindStop, stop)
	}
}

// TestStopUsageWithDamagedHistory: a history with an unreadable line still
// gives the lines it could read, so a stop records the transcript's tokens
// against them instead of refusing at every stop.
func TestStopUsageWithDamagedHistory(t *testing.T) {
	claude, _ := Lookup("claude")
	h := newHarness(t)
	path := filepath.Join(t.TempDir(), "t.jsonl")
	transcript := `{"type":"user","promptId":"p1","message":{"role":"user","content":"go"}}` + "\n" +
		`{"type":"assistant","promptId":"p1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":100,"output_tokens":20}}}` + "\n"
	if err := os.WriteFile(path, []byte(transcript), 0o600); err != nil {
		t.Fatal(err)
	}
	h.tool(claude, [2]string{"one", "in_progress"})
	id := "claude-sess-1"
	f, err := os.OpenFile(h.store.SessionHistoryPath(id), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not a history line\n")
	f.Close()
	h.run("claude", KindStop, hookInput(claude, KindStop, map[string]any{
		"last_assistant_message": "Done.", "stop_hook_active": false, "transcript_path": path, "prompt_id": "p1"}))
	l, err := h.store.Ledger(id, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if l.Total.In != 100 || l.Total.Out != 20 {
		t.Errorf("tokens recorded %d in, %d out; want 100, 20", l.Total.In, l.Total.Out)
	}
}
