package acpagent

import (
	"context"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// Relay is an editor that todosh serves as an ACP agent (`todosh acp`,
// package acpserve) in front of this agent. With a relay, the agent is
// offered the editor's fs and terminal capabilities, and its session
// updates (all but its plan, which the merge rule folds into the list),
// permission requests and fs and terminal requests go to the editor.
// Requests carry the agent's session id; the relay puts the editor's in.
type Relay interface {
	// Capabilities are what the editor advertised, offered to the agent in
	// initialize.
	Capabilities() acp.ClientCapabilities
	// Update receives the agent's session updates in order: during a turn
	// every kind but plan, between turns only its available commands and
	// settings (current_mode_update, config_option_update).
	Update(ctx context.Context, u acp.SessionUpdate)
	// Config receives the agent's session settings (modes, models, config
	// options) each time its session opens.
	Config(c SessionConfig)
	// MCPServers are the editor's own MCP servers for the session, handed
	// to the agent after todosh's.
	MCPServers() []acp.McpServer
	// Permission asks the editor; an error means no answer.
	Permission(ctx context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error)
	// The fs and terminal methods of the client, answered by the editor.
	ReadTextFile(ctx context.Context, req acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error)
	WriteTextFile(ctx context.Context, req acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error)
	CreateTerminal(ctx context.Context, req acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error)
	KillTerminal(ctx context.Context, req acp.KillTerminalRequest) (acp.KillTerminalResponse, error)
	TerminalOutput(ctx context.Context, req acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error)
	ReleaseTerminal(ctx context.Context, req acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error)
	WaitForTerminalExit(ctx context.Context, req acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error)
}

// SetRelay puts the editor r in front of the agent; call it before the
// first turn. The turn's events are still emitted as for the shell.
func (a *Agent) SetRelay(r Relay) {
	a.mu.Lock()
	a.relay = r
	a.mu.Unlock()
}

// capabilities are what the agent is offered in initialize: the editor's
// with a relay, else none (todosh's own client has no fs or terminal).
func (a *Agent) capabilities() acp.ClientCapabilities {
	if a.relay != nil {
		return a.relay.Capabilities()
	}
	return acp.ClientCapabilities{}
}

// relayUpdate passes an update to the relay: during a turn all but the
// plan, between turns only the agent's commands and settings (a session/load's replay
// of old messages would otherwise reach the editor inside the next turn).
func (c *client) relayUpdate(ctx context.Context, u acp.SessionUpdate) {
	if c.relay == nil || u.Plan != nil {
		return
	}
	if u.AvailableCommandsUpdate != nil || u.CurrentModeUpdate != nil || u.ConfigOptionUpdate != nil || c.current() != nil {
		c.relay.Update(ctx, u)
	}
}

// IsSlashCommand reports whether a prompt is one of the agent's own slash
// commands (an editor passes them through `todosh acp`): its first word is
// a slash and a name ("/compact", "/review-branch"), not a path
// ("/tmp/x"). Such a prompt goes alone, without the todo context before
// it, or the agent would not see the command at the start of its prompt.
func IsSlashCommand(prompt string) bool {
	word, _, _ := strings.Cut(strings.TrimSpace(prompt), " ")
	word, _, _ = strings.Cut(word, "\n")
	name, ok := strings.CutPrefix(word, "/")
	if !ok || name == "" {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == ':' || r == '.') {
			return false
		}
	}
	return true
}

// StopError is a turn the agent ended with a stop reason other than
// end_turn (max_tokens, refusal...): the shell shows it as an error, while
// `todosh acp` hands the editor the agent's own stop reason.
type StopError struct {
	Reason acp.StopReason
	Err    error
}

// Error is the line that names the agent and its stop reason.
func (e *StopError) Error() string { return e.Err.Error() }

// Unwrap gives errors.Is and errors.As the cause.
func (e *StopError) Unwrap() error { return e.Err }
