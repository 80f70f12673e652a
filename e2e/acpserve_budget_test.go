package e2e_test

import (
	"strings"
	"testing"
)

// TestACPServeTokenBudget: `todosh acp --budget-tokens N` with an agent in
// the fake's "reports usage" scenario: the prompt stops continuing at its
// budget with one line, and the prompt `/todo budget +N` raises it and
// goes on with the same list in that prompt.
func TestACPServeTokenBudget(t *testing.T) {
	r := newACP(t, "FAKEACP_USAGE=400,100")
	e := startEditor(t, r.h, r.env, "--agent", "acp:claude", "--agent-bin", fakeacp, "--budget-tokens", "600")
	id := e.newSession(false)
	e.mustPrompt(id, "[[plan]] build csvkit-lite")
	text := e.text()
	for _, want := range []string{"todosh: continuing 1/3 — 2 open items", "todosh: stopped: token budget reached: 1,000 of 600"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the editor's text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "all done") {
		t.Fatalf("went on past its budget:\n%s", text)
	}
	e.mustPrompt(id, "/todo budget +1000")
	text = e.text()
	for _, want := range []string{"tokens: 1,000 of 1,600 spent, 600 left", "todosh: all done"} {
		if !strings.Contains(text, want) {
			t.Errorf("after the raise, the editor's text lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(r.received(t), `"method":"session/prompt"`); n != 3 {
		t.Errorf("%d session/prompt calls reached the agent, want 3 (the prompt, a continuation, the one after the raise)", n)
	}
}
