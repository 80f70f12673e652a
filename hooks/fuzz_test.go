package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent/clis"
	"github.com/todosh/todosh/todostore"
)

// FuzzParseInput: any bytes give an input with a usable session id or an
// error, never a panic; a parsed input's tool call maps or fails cleanly.
func FuzzParseInput(f *testing.F) {
	// What real Claude Code 2.1.328 gave its Stop hook on stdin (the run in
	// agent/clis/testdata/transcripts/claude-2.1.328-deferred).
	data, err := os.ReadFile(filepath.Join("testdata", "claude-2.1.328-stop-hook-stdin.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		f.Add("claude", []byte(l))
	}
	f.Add("claude", []byte(`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"TodoWrite","tool_input":{"todos":[{"content":"a","status":"pending","activeForm":"A"}]}}`))
	f.Add("claude", []byte(`{"session_id":"s","tool_name":"TaskCreate","tool_input":{"subject":"a"},"tool_response":{"task":{"id":"1"}}}`))
	f.Add("gemini", []byte(`{"session_id":"s","hook_event_name":"AfterTool","tool_name":"write_todos","tool_input":{"todos":[{"description":"a","status":"blocked"}]}}`))
	f.Add("qwen", []byte(`{"session_id":"s","tool_name":"todo_write","tool_input":{"todos":[{"id":"1","content":"a","status":"done"}]}}`))
	f.Add("codex", []byte(`{"session_id":"s","tool_name":"update_plan","tool_input":{"plan":[{"step":"a","status":"in_progress"}]}}`))
	f.Add("gemini", []byte(`{"session_id":"s","prompt_response":"ok?","stop_hook_active":true}`))
	f.Add("codex", []byte(`{"session_id":"../x"}`))
	f.Fuzz(func(t *testing.T, agent string, data []byte) {
		if _, err := Lookup(agent); err != nil {
			return
		}
		in, err := ParseInput(agent, data)
		if err != nil {
			return
		}
		if err := todostore.ValidSessionID(SessionID(agent, in.SessionID)); err != nil {
			t.Fatalf("accepted session id %q: %v", in.SessionID, err)
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		res, err := clis.MapHookCall(agent, clis.HookCall{Tool: in.ToolName, Input: in.ToolInput, Response: in.ToolResponse}, nil)
		if err == nil && res.HasList {
			todolist.Normalize(res.Todos)
			for _, td := range res.Todos {
				if strings.TrimSpace(td.Content) == "" {
					t.Fatalf("empty item from %q", data)
				}
			}
		}
	})
}

var emptyWS = regexp.MustCompile(`\{[ \t\r\n]*\}`)

// FuzzSettings: any settings bytes are refused or installed into so that
// the result parses as the agent reads it (comments where it reads JSONC)
// and uninstall gives back exactly the bytes of a file without hooks.
func FuzzSettings(f *testing.F) {
	for _, name := range []string{"comments.json", "crlf.json", "crlf-comments.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "settings", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"a": "//", "b": "/*"} // x`))
	f.Add([]byte("{\r\n\t\"hooks\": {} /* c */\r\n}"))
	f.Add([]byte(`{} /*`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		if len(bytes.TrimSpace(doc)) == 0 {
			return
		}
		for _, a := range Agents() {
			out, err := install(doc, a, testExe)
			if err != nil {
				continue
			}
			if _, err := parseSettings(out, a.jsonc); err != nil {
				t.Fatalf("%s: install wrote what it cannot read: %v\n%q", a.Name, err, out)
			}
			back, err := uninstall(out, a)
			if err != nil {
				t.Fatalf("%s: uninstall: %v", a.Name, err)
			}
			// (An empty "hooks" object or event list goes with todosh's
			// entries, as docs/hooks.md says, and white space inside the
			// empty object todosh filled; a file without "hooks" comes
			// back otherwise exactly.)
			if s, _ := parseSettings(doc, a.jsonc); s.hooks == nil && !bytes.Equal(emptyWS.ReplaceAll(back, []byte("{}")), emptyWS.ReplaceAll(doc, []byte("{}"))) {
				t.Fatalf("%s: uninstall after install:\n%q\nwant\n%q", a.Name, back, doc)
			}
		}
	})
}

// FuzzTomlKeys: any config text is read or refused, never a panic; a
// text without "=" has no key, and a value never holds a line break.
func FuzzTomlKeys(f *testing.F) {
	f.Add("[tools.update_plan]\nenabled = true\n")
	f.Add("[hooks.state.\"/x/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:a\" # c\n")
	f.Add("a.'b c'.\"d\\\"\" = 'x' \n[[t]]\nk = 1\n")
	f.Fuzz(func(t *testing.T, doc string) {
		m, err := tomlKeys(doc)
		if err != nil {
			return
		}
		if !strings.Contains(doc, "=") && len(m) > 0 {
			t.Fatalf("keys %q from a text without =: %q", m, doc)
		}
		for k, v := range m {
			if strings.Contains(v, "\n") && !strings.Contains(doc, `\n`) {
				t.Fatalf("%q = %q holds a line break: %q", k, v, doc)
			}
		}
	})
}
