package clis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/todosh/todosh/agent"
)

// usageOf parses a stream and returns the usage it reported in all and
// its notices.
func usageOf(t *testing.T, p Parser, data []byte) (agent.Usage, []string) {
	t.Helper()
	var sum agent.Usage
	var notices []string
	if err := ParseStream(bytes.NewReader(data), "test", p, func(u Update) {
		switch u.Kind {
		case UpdateUsage:
			sum.Input += u.Usage.Input
			sum.Output += u.Usage.Output
		case UpdateNotice:
			notices = append(notices, u.Text)
		}
	}); err != nil {
		t.Fatal(err)
	}
	return sum, notices
}

// TestUsageOfRecordings: each real recording's usage adds up to the total
// its CLI reported for the turn (Claude Code's and Qwen Code's result
// line, Codex's turn.completed, Gemini CLI's stats; pi's messages), though
// Claude writes one message's usage on several lines and the start of its
// output count on each.
func TestUsageOfRecordings(t *testing.T) {
	for _, tc := range []struct {
		file   string
		parser func() Parser
		want   agent.Usage
	}{
		{"testdata/transcripts/claude-todowrite/claude-run1.jsonl", func() Parser { return &ClaudeParser{} }, agent.Usage{Input: 360, Output: 120}},
		{"testdata/transcripts/claude-todowrite/claude-resume.jsonl", func() Parser { return &ClaudeParser{} }, agent.Usage{Input: 360, Output: 120}},
		{"testdata/transcripts/claude-tasks/claude-run1.jsonl", func() Parser { return &ClaudeParser{} }, agent.Usage{Input: 360, Output: 120}},
		{"testdata/transcripts/claude-2.1.328-deferred/claude-run1.jsonl", func() Parser { return &ClaudeParser{} }, agent.Usage{Input: 480, Output: 160}},
		{"testdata/transcripts/codex/codex-run1.jsonl", func() Parser { return &CodexParser{} }, agent.Usage{Input: 360, Output: 120}},
		// The resumed thread's total counts run1's 360 and 120.
		{"testdata/transcripts/codex/codex-resume-id.jsonl", func() Parser { return &CodexParser{UsageBefore: agent.Usage{Input: 360, Output: 120}} }, agent.Usage{Input: 360, Output: 120}},
		{"testdata/transcripts/gemini/gemini-run1.jsonl", func() Parser { return &GeminiParser{} }, agent.Usage{Input: 360, Output: 120}},
		// Qwen's result line says the session's total, 500 and 100 after a
		// resume: its messages' are the turn's.
		{"testdata/transcripts/qwen-0.24.4/qwen-run1.jsonl", func() Parser { return NewQwenParser() }, agent.Usage{Input: 300, Output: 60}},
		{"testdata/transcripts/qwen-0.24.4/qwen-resume.jsonl", func() Parser { return NewQwenParser() }, agent.Usage{Input: 200, Output: 40}},
		{"testdata/transcripts/gemini/gemini-resume-id.jsonl", func() Parser { return &GeminiParser{} }, agent.Usage{Input: 360, Output: 120}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data := bytes.Join(readLines(t, tc.file), []byte("\n"))
			got, notices := usageOf(t, tc.parser(), data)
			if got != tc.want || len(notices) > 0 {
				t.Errorf("usage %+v, notices %q; want %+v", got, notices, tc.want)
			}
		})
	}
}

// TestUsageLines: lines in the CLIs' shapes, with the usage in the ways
// they write it and in ways no CLI should: what adds up, and what is
// refused with one notice.
func TestUsageLines(t *testing.T) {
	claudeMsg := func(id, usage string) string {
		return `{"type":"assistant","message":{"id":"` + id + `","content":[{"type":"text","text":"x"}],"usage":` + usage + `},"parent_tool_use_id":null,"session_id":"s"}`
	}
	claudeResult := func(usage string) string {
		return `{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s","usage":` + usage + `}`
	}
	piMsg := func(usage string) string {
		return `{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"x"}],"usage":` + usage + `,"stopReason":"stop"}}`
	}
	claude := func() Parser { return &ClaudeParser{} }
	for _, tc := range []struct {
		name    string
		parser  func() Parser
		lines   []string
		want    agent.Usage
		notices int
	}{
		{"claude: cache reads and writes are input", claude, []string{
			claudeMsg("m1", `{"input_tokens":3,"cache_creation_input_tokens":1000,"cache_read_input_tokens":20000,"output_tokens":5}`)},
			agent.Usage{Input: 21003, Output: 5}, 0},
		{"claude: a message's lines count once, and what a later one adds", claude, []string{
			claudeMsg("m1", `{"input_tokens":100,"output_tokens":1}`), claudeMsg("m1", `{"input_tokens":100,"output_tokens":1}`),
			claudeMsg("m1", `{"input_tokens":100,"output_tokens":30}`), claudeMsg("m2", `{"input_tokens":150,"output_tokens":1}`)},
			agent.Usage{Input: 250, Output: 31}, 0},
		{"claude: the result supplies the rest", claude, []string{
			claudeMsg("m1", `{"input_tokens":100,"output_tokens":1}`), claudeResult(`{"input_tokens":100,"output_tokens":40}`)},
			agent.Usage{Input: 100, Output: 40}, 0},
		{"claude: a result below the messages (a sub-agent's) takes nothing back", claude, []string{
			claudeMsg("m1", `{"input_tokens":100,"output_tokens":50}`), claudeResult(`{"input_tokens":60,"output_tokens":10}`)},
			agent.Usage{Input: 100, Output: 50}, 0},
		{"claude: a negative count: one notice", claude, []string{
			claudeMsg("m1", `{"input_tokens":-100,"output_tokens":1}`), claudeMsg("m2", `{"input_tokens":-5,"output_tokens":1}`),
			claudeMsg("m3", `{"input_tokens":7,"output_tokens":1}`)},
			agent.Usage{Input: 7, Output: 1}, 1},
		{"claude: above 10^12", claude, []string{claudeResult(`{"input_tokens":1e13,"output_tokens":1}`)}, agent.Usage{}, 1},
		{"claude: a fraction is no count", claude, []string{claudeMsg("m1", `{"input_tokens":1.5,"output_tokens":1}`)}, agent.Usage{}, 1},
		{"claude: no usage, a null one", claude, []string{claudeMsg("m1", `null`), claudeResult(`{}`)}, agent.Usage{}, 0},
		{"qwen: its messages' counts, cached input inside input_tokens; the result's session total adds nothing", func() Parser { return NewQwenParser() }, []string{
			`{"type":"assistant","uuid":"a","session_id":"s","message":{"id":"a","role":"assistant","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":50,"output_tokens":9,"cache_read_input_tokens":40,"total_tokens":59}},"parent_tool_use_id":null}`,
			claudeResult(`{"input_tokens":800,"output_tokens":120}`)},
			agent.Usage{Input: 50, Output: 9}, 0},
		{"codex: the thread started again: its total is the turn's", func() Parser { return &CodexParser{UsageBefore: agent.Usage{Input: 5000, Output: 900}} }, []string{
			`{"type":"turn.completed","usage":{"input_tokens":400,"cached_input_tokens":300,"output_tokens":50,"reasoning_output_tokens":20}}`},
			agent.Usage{Input: 400, Output: 50}, 0},
		{"codex: a negative total", func() Parser { return &CodexParser{} }, []string{`{"type":"turn.completed","usage":{"input_tokens":-1,"output_tokens":50}}`}, agent.Usage{}, 1},
		{"gemini: totals twice: the second adds, then one going back is refused", func() Parser { return &GeminiParser{} }, []string{
			`{"type":"result","status":"success","stats":{"input_tokens":100,"output_tokens":10}}`,
			`{"type":"result","status":"success","stats":{"input_tokens":150,"output_tokens":20}}`,
			`{"type":"result","status":"success","stats":{"input_tokens":120,"output_tokens":20}}`},
			agent.Usage{Input: 150, Output: 20}, 1},
		{"pi: each message, cache included", func() Parser { return &PiParser{} }, []string{
			piMsg(`{"input":10,"output":4,"cacheRead":100,"cacheWrite":1,"totalTokens":115}`), piMsg(`{"input":20,"output":6,"cacheRead":0,"cacheWrite":0}`)},
			agent.Usage{Input: 131, Output: 10}, 0},
		{"pi: a string is no count", func() Parser { return &PiParser{} }, []string{piMsg(`{"input":"10","output":4}`)}, agent.Usage{}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, notices := usageOf(t, tc.parser(), []byte(strings.Join(tc.lines, "\n")))
			if got != tc.want || len(notices) != tc.notices {
				t.Errorf("usage %+v, notices %q; want %+v and %d notices", got, notices, tc.want, tc.notices)
			}
			for _, n := range notices {
				if !strings.Contains(n, ": ignored: ") {
					t.Errorf("notice %q", n)
				}
			}
		})
	}
}

// TestCodexRolloutUsage: the total a resumed thread starts from is the
// rollout's last token_count.
func TestCodexRolloutUsage(t *testing.T) {
	rollout := strings.Join([]string{
		`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":100,"cached_input_tokens":0,"output_tokens":10,"reasoning_output_tokens":0,"total_tokens":110},"last_token_usage":{"input_tokens":100,"output_tokens":10},"model_context_window":258400},"rate_limits":null}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":360,"cached_input_tokens":0,"output_tokens":120,"reasoning_output_tokens":0,"total_tokens":480},"last_token_usage":{"input_tokens":260,"output_tokens":110},"model_context_window":258400},"rate_limits":null}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{}}}`,
		`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[]}}`,
		`{"broken`,
	}, "\n")
	if got := codexLastUsage([]byte(rollout)); got != (agent.Usage{Input: 360, Output: 120}) {
		t.Errorf("codexLastUsage = %+v", got)
	}
	if got := codexLastUsage([]byte(`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":-4}}}}`)); got != (agent.Usage{}) {
		t.Errorf("a negative total: %+v", got)
	}
}

// requestsIn counts the model requests of a transcript, decoded with
// encoding/json: Claude's and Qwen's distinct assistant message ids, pi's
// assistant messages, one turn for Codex and Gemini.
func requestsIn(t *testing.T, kind, file string) int64 {
	t.Helper()
	ids := map[string]bool{}
	n := int64(0)
	for _, line := range readLines(t, file) {
		var l struct {
			Type    string `json:"type"`
			Message struct {
				ID   string `json:"id"`
				Role string `json:"role"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		switch {
		case (kind == "claude" || kind == "qwen") && l.Type == "assistant" && !ids[l.Message.ID]:
			ids[l.Message.ID] = true
			n++
		case kind == "pi" && l.Type == "message_end" && l.Message.Role == "assistant":
			n++
		case (kind == "codex" && l.Type == "turn.completed") || (kind == "gemini" && l.Type == "result"):
			n++
		}
	}
	return n
}

// TestTurnUsage: the fake CLIs' "reports usage" scenario, through the
// runner, for a first turn and a resumed one: each turn's EventUsage adds
// up to what its model requests spent, also for Codex, whose resumed turn
// reports the thread's total, and whose total before a turn comes from
// its rollout when this process did not see the turns before.
func TestTurnUsage(t *testing.T) {
	cases := []struct{ kind, run1, resume, session string }{
		{"claude", transcript("transcripts", "claude-todowrite", "claude-run1.jsonl"), transcript("transcripts", "claude-todowrite", "claude-resume.jsonl"), "f3b303c4-9b82-483f-a4f8-445bb003551f"},
		{"codex", transcript("transcripts", "codex", "codex-run1.jsonl"), transcript("transcripts", "codex", "codex-resume-id.jsonl"), "01a20041-b822-7443-827f-46d87d803854"},
		{"gemini", transcript("transcripts", "gemini", "gemini-run1.jsonl"), transcript("transcripts", "gemini", "gemini-resume-id.jsonl"), "efe60ada-73d8-4b4e-a1d6-8e2ddc259f66"},
		{"qwen", transcript("fake", "qwen-run1.jsonl"), transcript("fake", "qwen-resume.jsonl"), "7c1f2b0e-3d4a-4f5b-9c6d-1e2f3a4b5c6d"},
		{"pi", transcript("fake", "pi-run1.jsonl"), transcript("fake", "pi-resume.jsonl"), "0193f2a4-5b6c-7d8e-9f00-112233445566"},
	}
	for _, c := range cases {
		for _, newProcess := range []bool{false, true} {
			if newProcess && c.kind != "codex" {
				continue
			}
			t.Run(fmt.Sprintf("%s/new process %v", c.kind, newProcess), func(t *testing.T) {
				f := newFakeRun(t, c.kind, map[string]string{"FAKECLI_RUN1": c.run1, "FAKECLI_RESUME": c.resume, "FAKECLI_SESSION": c.session, "FAKECLI_USAGE": "100,7"})
				if c.kind == "codex" {
					// The fake keeps the thread's totals where Codex keeps them.
					home := filepath.Join(t.TempDir(), "codex")
					dir := filepath.Join(home, "sessions", "2026", "11", "25")
					if err := os.MkdirAll(dir, 0o700); err != nil {
						t.Fatal(err)
					}
					f.env["CODEX_HOME"] = home
					f.env["FAKECLI_USAGE_FILE"] = filepath.Join(dir, "rollout-2026-11-25T17-53-17-"+c.session+".jsonl")
				}
				a := f.agent(Config{})
				for i, file := range []string{c.run1, c.resume} {
					if i == 1 && newProcess {
						a = f.agent(Config{})
					}
					evs, _, err := f.turn(a, agent.Turn{Prompt: "go"})
					if err != nil {
						t.Fatal(err)
					}
					var got agent.Usage
					for _, ev := range evs {
						switch ev.Kind {
						case agent.EventUsage:
							got.Input += ev.Usage.Input
							got.Output += ev.Usage.Output
						case agent.EventNotice:
							t.Errorf("turn %d: notice %q", i+1, ev.Text)
						}
					}
					n := requestsIn(t, c.kind, file)
					if want := (agent.Usage{Input: 100 * n, Output: 7 * n}); got != want || n == 0 {
						t.Errorf("turn %d: usage %+v, want %+v (%d requests)", i+1, got, want, n)
					}
				}
			})
		}
	}
}

// TestUsageAtEnd: a usage report a CLI gives only at the turn's end
// (Codex's turn.completed, Gemini CLI's stats, what Claude's result line
// adds) is marked so, and the work log charges it to the items the turn
// worked on; a request's own (Claude's and pi's messages) is not.
func TestUsageAtEnd(t *testing.T) {
	for _, tc := range []struct {
		file      string
		parser    Parser
		atEnd, of int
	}{
		{"testdata/transcripts/codex/codex-run1.jsonl", &CodexParser{}, 1, 1},
		{"testdata/transcripts/gemini/gemini-run1.jsonl", &GeminiParser{}, 1, 1},
		{"testdata/transcripts/claude-todowrite/claude-run1.jsonl", &ClaudeParser{}, 1, 4},
	} {
		atEnd, of := 0, 0
		data := bytes.Join(readLines(t, tc.file), []byte("\n"))
		if err := ParseStream(bytes.NewReader(data), "test", tc.parser, func(u Update) {
			if u.Kind == UpdateUsage {
				of++
				if u.AtEnd {
					atEnd++
				}
			}
		}); err != nil {
			t.Fatal(err)
		}
		if atEnd != tc.atEnd || of != tc.of {
			t.Errorf("%s: %d of %d usage reports at the end, want %d of %d", tc.file, atEnd, of, tc.atEnd, tc.of)
		}
	}
}
