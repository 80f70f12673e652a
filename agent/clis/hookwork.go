package clis

import (
	"encoding/json"
	"strings"

	"github.com/todosh/todosh/agent"
)

// HookWork is what a hook's tool call tells a receipt (issue 26): the
// tool, what it did (agent.KindOf), its command or path (the argument a
// stream's tool line shows), and whether it ended well. The agents run
// their post-tool hook after a call that ran (Claude Code, Qwen Code and
// Codex: PostToolUse; Gemini CLI: AfterTool); a response that says it
// failed (an error, is_error or success false, a non-zero exit code)
// makes it a failure.
func HookWork(call HookCall) agent.ToolCall {
	tc := agent.ToolCall{Name: call.Tool, Kind: agent.KindOf(call.Tool), Target: toolArg(call.Input), State: agent.ToolSucceeded}
	var resp struct {
		Error    json.RawMessage `json:"error"`
		IsError  *bool           `json:"is_error"`
		Success  *bool           `json:"success"`
		ExitCode *int            `json:"exit_code"`
		Exit     *int            `json:"exitCode"`
	}
	if len(call.Response) > 0 && call.Response[0] == '{' && json.Unmarshal(call.Response, &resp) == nil {
		code := resp.ExitCode
		if code == nil {
			code = resp.Exit
		}
		tc.Exit = code
		e := strings.TrimSpace(string(resp.Error))
		if e != "" && e != "null" && e != `""` && e != "false" || resp.IsError != nil && *resp.IsError ||
			resp.Success != nil && !*resp.Success || code != nil && *code != 0 {
			tc.State = agent.ToolFailed
		}
	}
	return tc
}
