package hooks

import (
	"os"
	"strings"
	"testing"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/continuation"
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
		got, notices, ok := claudeTranscriptUsage(data, tc.prompt)
		if got != tc.want || ok != tc.ok || len(notices) > 0 {
			t.Errorf("prompt %q: %+v %v %q, want %+v %v", tc.prompt, got, ok, notices, tc.want, tc.ok)
		}
	}
	// Nonsense in a transcript is one notice, never a count.
	bad := `{"type":"user","message":{"role":"user","content":"go"},"promptId":"p1"}` + "\n" +
		`{"type":"assistant","message":{"id":"m1","content":[],"usage":{"input_tokens":-9,"output_tokens":1}},"parent_tool_use_id":null}` + "\n" +
		`{"type":"assistant","message":{"id":"m2","content":[],"usage":{"input_tokens":5,"output_tokens":1}},"parent_tool_use_id":null}` + "\n"
	if got, notices, ok := claudeTranscriptUsage([]byte(bad), "p1"); got != (agent.Usage{Input: 5, Output: 1}) || !ok || len(notices) != 1 {
		t.Errorf("bad counts: %+v %v %q", got, ok, notices)
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
		u, _, ok := claudeTranscriptUsage(data, prompt)
		if u.Input < 0 || u.Output < 0 || u.Input > agent.MaxUsage || u.Output > agent.MaxUsage || !ok && u != (agent.Usage{}) {
			t.Fatalf("usage %+v ok %v", u, ok)
		}
	})
}
