package hooks

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/todosh/todosh/todostore"
)

// MaxInput bounds what a hook reads on stdin. The tool event runs for
// every tool; the agents cap what a tool returns (a file read, a
// command's output) well below this, and a larger input is refused
// rather than read.
const MaxInput = 8 << 20

// Input is what an agent writes on a hook's stdin, the fields todosh
// reads. The agents share Claude Code's names; Gemini CLI's AfterAgent
// has the reply in prompt_response.
type Input struct {
	SessionID      string          `json:"session_id"`
	Cwd            string          `json:"cwd"`
	Event          string          `json:"hook_event_name"`
	StopHookActive bool            `json:"stop_hook_active"`
	LastMessage    *string         `json:"last_assistant_message"`
	PromptResponse *string         `json:"prompt_response"`
	Prompt         *string         `json:"prompt"`
	Source         string          `json:"source"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	// AgentID is set when the event is a sub-agent's (Claude Code, Qwen
	// Code, Codex): its todos are not the session's list.
	AgentID string `json:"agent_id"`
	// TranscriptPath and PromptID name the agent's transcript and the
	// person's prompt in it (Claude Code's Stop hook), for a token budget
	// (usage.go).
	TranscriptPath string `json:"transcript_path"`
	PromptID       string `json:"prompt_id"`
}

// Reply is the agent's last reply text at a stop.
func (in Input) Reply() string {
	switch {
	case in.LastMessage != nil:
		return *in.LastMessage
	case in.PromptResponse != nil:
		return *in.PromptResponse
	}
	return ""
}

// ParseInput reads the stdin of agent's hook. It needs a JSON object with
// a session id that can name a todosh session once prefixed with the
// agent's name.
func ParseInput(agent string, data []byte) (Input, error) {
	var in Input
	if len(data) > MaxInput {
		return in, fmt.Errorf("input larger than %d bytes", MaxInput)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return Input{}, fmt.Errorf("input is not the JSON object of a hook: %w", err)
	}
	if in.SessionID == "" {
		return Input{}, errors.New("input has no session_id")
	}
	if err := todostore.ValidSessionID(SessionID(agent, in.SessionID)); err != nil {
		return Input{}, fmt.Errorf("input's session_id cannot name a session: %w", err)
	}
	return in, nil
}

// SessionID is the todosh session that mirrors the agent's session id:
// "claude-<id>", so `todosh --session claude-<id>` opens it.
func SessionID(agent, id string) string { return todostore.MirrorID(agent, id) }
