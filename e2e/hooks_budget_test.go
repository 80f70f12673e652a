package e2e_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHooksTokenBudget: `todosh hooks install claude --budget-tokens N`
// puts the budget on the stop entry; the gate reads what the person's
// prompt spent from the transcript Claude Code's Stop hook names
// (transcript_path, prompt_id) and lets the agent stop with items open
// once it reaches the budget, saying so.
func TestHooksTokenBudget(t *testing.T) {
	h := newHome(t)
	r := h.script(t, h.dir, "", "hooks", "install", "claude", "--budget-tokens", "500")
	if r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	spec := fakeAgents[0]
	f := newFakeAgent(t, spec, h)
	if cmds := f.hooksFor("Stop", ""); len(cmds) != 1 || !strings.HasSuffix(cmds[0], " hook claude stop --budget-tokens 500") {
		t.Fatalf("stop entry %q", cmds)
	}
	transcript := filepath.Join(h.dir, "transcript.jsonl")
	// The transcript as Claude Code writes it: an earlier prompt, then
	// this one's lines, each model message on lines sharing its id, the
	// last one the message the Stop hook names (else the gate waits for
	// it).
	lines := `{"type":"user","message":{"role":"user","content":"earlier"},"promptId":"p0"}` + "\n" +
		`{"type":"assistant","message":{"id":"m0","content":[],"usage":{"input_tokens":9000,"output_tokens":10}},"parent_tool_use_id":null}` + "\n" +
		`{"type":"user","message":{"role":"user","content":"Build csvkit-lite"},"promptId":"p1"}` + "\n"
	message := func(id string) string {
		return `{"type":"assistant","message":{"id":"` + id + `","content":[{"type":"text","text":"I'll stop here for now."}],"usage":{"input_tokens":200,"cache_read_input_tokens":100,"output_tokens":10}},"parent_tool_use_id":null}` + "\n"
	}
	stop := func(turn int) (blocked bool, said []string) {
		outs := f.fire("Stop", "", map[string]any{"last_assistant_message": "I'll stop here for now.", "stop_hook_active": turn > 0,
			"transcript_path": transcript, "prompt_id": "p1"})
		// Claude Code goes on after a block, or (2.1.332 and later) after
		// the stop's additional context; the line shown is the
		// systemMessage.
		for _, o := range outs {
			if h, ok := o["hookSpecificOutput"].(map[string]any); o["decision"] == "block" || ok && h["additionalContext"] != nil {
				blocked = true
			}
			if s, ok := o["systemMessage"].(string); ok {
				said = append(said, s)
			}
		}
		return blocked, said
	}
	f.items = threeItems()
	f.writeList()
	lines += message("m1") + message("m1") // one message, two lines: 310 tokens
	if err := os.WriteFile(transcript, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	if blocked, said := stop(0); !blocked || strings.Contains(strings.Join(said, "\n"), "budget") {
		t.Fatalf("under the budget: blocked %v, said %q", blocked, said)
	}
	lines += message("m2") // 620 tokens
	if err := os.WriteFile(transcript, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	if blocked, said := stop(1); blocked || len(said) != 1 || said[0] != "todosh: stopped: token budget reached: 620 of 500" {
		t.Fatalf("at the budget: blocked %v, said %q", blocked, said)
	}
	// Each stop recorded the prompt's messages in the mirror's work log,
	// each once: /todo cost shows them (m1's 310 once, though two stops
	// read it, and m2's), not the earlier prompt's.
	r = h.script(t, h.dir, "", "--session", "claude-"+f.session, "-c", "/todo cost")
	if total := regexp.MustCompile(`(?m)^\s*total.*$`).FindString(r.stdout); r.code != 0 || !regexp.MustCompile(`in\s+600\s+out\s+20\s`).MatchString(total) {
		t.Errorf("/todo cost: %+v", r)
	}
	// An agent whose hooks give no usage takes no token budget.
	r = h.script(t, h.dir, "", "hooks", "install", "codex", "--budget-tokens", "500")
	if r.code != 2 || !strings.Contains(r.stderr, "Codex's hooks give todosh no token usage") {
		t.Errorf("codex: %+v", r)
	}
}
