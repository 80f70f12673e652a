package clis

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/todosh/todosh/agent"
)

// Each stream's tool calls end with what receipts need: the kind, the
// command or path, success or failure, the exit status where given.
func TestToolCallEnds(t *testing.T) {
	claude := `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test ./..."}},{"type":"tool_use","id":"t2","name":"Edit","input":{"file_path":"a.go"}}]},"parent_tool_use_id":null}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"Exit code 2\nFAIL","is_error":true},{"type":"tool_result","tool_use_id":"t2","content":"ok"}]},"parent_tool_use_id":null}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"nobody","content":"ok"}]},"parent_tool_use_id":null}`
	codex := `{"type":"item.started","item":{"id":"c1","type":"command_execution","command":"make","aggregated_output":"","exit_code":null,"status":"in_progress"}}
{"type":"item.updated","item":{"id":"c1","type":"command_execution","command":"make","aggregated_output":"x","exit_code":null,"status":"in_progress"}}
{"type":"item.completed","item":{"id":"c1","type":"command_execution","command":"make","aggregated_output":"boom","exit_code":1,"status":"failed"}}
{"type":"item.completed","item":{"id":"f1","type":"file_change","changes":[{"path":"a.go","kind":"add"}],"status":"completed"}}
{"type":"item.started","item":{"id":"c2","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}
{"type":"item.completed","item":{"id":"c2","type":"command_execution","command":"ls","aggregated_output":"a","exit_code":0,"status":"completed"}}`
	gemini := `{"type":"tool_use","tool_name":"run_shell_command","tool_id":"g1","parameters":{"command":"npm test"}}
{"type":"tool_result","tool_id":"g1","status":"error","output":"","error":{"message":"exit 1"}}
{"type":"tool_use","tool_name":"write_file","tool_id":"g2","parameters":{"file_path":"b.go"}}
{"type":"tool_result","tool_id":"g2","status":"success","output":"ok"}`
	pi := `{"type":"tool_execution_start","toolCallId":"p1","toolName":"bash","args":{"command":"ls"}}
{"type":"tool_execution_end","toolCallId":"p1","toolName":"bash","result":{},"isError":true}
{"type":"tool_execution_start","toolCallId":"p2","toolName":"edit","args":{"path":"c.go"}}
{"type":"tool_execution_end","toolCallId":"p2","toolName":"edit","result":{},"isError":false}`
	for _, c := range []struct {
		p      Parser
		stream string
		want   []string
	}{
		{&ClaudeParser{}, claude, []string{"t1 Bash execute go test ./... failed exit 2", "t2 Edit edit a.go succeeded"}},
		{&CodexParser{}, codex, []string{"c1 command_execution execute make failed exit 1", "f1 file_change edit a.go succeeded", "c2 command_execution execute ls succeeded exit 0"}},
		{&GeminiParser{}, gemini, []string{"g1 run_shell_command execute npm test failed", "g2 write_file edit b.go succeeded"}},
		{&PiParser{}, pi, []string{"p1 bash execute ls failed", "p2 edit edit c.go succeeded"}},
	} {
		var got []string
		starts := 0
		for _, u := range ofKind(collect(t, c.p, c.stream+"\n"), UpdateToolCall) {
			switch {
			case u.Tool == nil:
				t.Errorf("%T: a tool update without its facts: %q", c.p, u.Text)
			case u.Tool.State == agent.ToolStarted:
				starts++
				if u.Text == "" {
					t.Errorf("%T: a start without its line", c.p)
				}
			default:
				if u.Text != "" {
					t.Errorf("%T: an end with a line %q: the call would show twice", c.p, u.Text)
				}
				s := fmt.Sprintf("%s %s %s %s %s", u.Tool.ID, u.Tool.Name, u.Tool.Kind, u.Tool.Target, [...]string{"", "succeeded", "failed"}[u.Tool.State])
				if u.Tool.Exit != nil {
					s += fmt.Sprintf(" exit %d", *u.Tool.Exit)
				}
				got = append(got, s)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) || starts != len(c.want) {
			t.Errorf("%T: ends %q (%d starts), want %q", c.p, got, starts, c.want)
		}
	}
}

func TestHookWork(t *testing.T) {
	for _, c := range []struct {
		tool, in, resp string
		want           string
	}{
		{"Bash", `{"command":"go test"}`, `{"stdout":"ok","stderr":"","interrupted":false}`, "execute go test succeeded"},
		{"run_shell_command", `{"command":"make"}`, `{"llmContent":"x","error":{"message":"exit 2"}}`, "execute make failed"},
		{"Edit", `{"file_path":"a.go"}`, `{"success":false}`, "edit a.go failed"},
		{"Bash", `{"command":"false"}`, `{"exit_code":1}`, "execute false failed"},
		{"Write", `{"file_path":"b.go"}`, `"plain text"`, "edit b.go succeeded"},
		{"Read", `{"file_path":"c.go"}`, `{"error":null}`, "read c.go succeeded"},
		{"mcp__todosh__todo_write", `{}`, ``, "other  succeeded"},
	} {
		tc := HookWork(HookCall{Tool: c.tool, Input: json.RawMessage(c.in), Response: json.RawMessage(c.resp)})
		if got := fmt.Sprintf("%s %s %s", tc.Kind, tc.Target, [...]string{"started", "succeeded", "failed"}[tc.State]); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.tool, c.resp, got, c.want)
		}
	}
}

func FuzzHookWork(f *testing.F) {
	f.Add("Bash", []byte(`{"command":"ls"}`), []byte(`{"exit_code":2}`))
	f.Add("Edit", []byte(`{"file_path":"a"}`), []byte(`{"error":"x","success":true}`))
	f.Fuzz(func(t *testing.T, tool string, in, resp []byte) {
		tc := HookWork(HookCall{Tool: tool, Input: in, Response: resp})
		if tc.State == agent.ToolStarted || tc.Exit != nil && *tc.Exit != 0 && tc.State != agent.ToolFailed {
			t.Fatalf("state %v exit %v", tc.State, tc.Exit)
		}
	})
}

func FuzzExitPrefix(f *testing.F) {
	for _, s := range []string{"Exit code 2\nboom", "Exit code -1", "Exit code ", "exit code 3", "Exit code 99999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n := exitPrefix(s); n != nil && (*n > 9999 || *n < -999) {
			t.Fatalf("exit %d from %q", *n, s)
		}
	})
}
