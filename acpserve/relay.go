package acpserve

import (
	"context"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/agent/acpagent"
)

// relay is a session's editor as its inner ACP agent sees it
// (acpagent.Relay): updates pass through but the commands, which are
// merged with todosh's; requests go to the editor with the editor's
// session id, fs and terminal only as far as the editor advertised them.
type relay struct{ ss *session }

func (r relay) Capabilities() acp.ClientCapabilities {
	c := r.ss.srv.clientCaps()
	return acp.ClientCapabilities{Fs: c.Fs, Terminal: c.Terminal}
}

// Update passes one update of the inner agent on: its commands merged
// with todo, its options with todosh's, and a tool call update only for a
// tool call the editor was told of (not one whose permission todosh
// answered itself, for its own todo tools).
func (r relay) Update(_ context.Context, u acp.SessionUpdate) {
	ss := r.ss
	switch {
	case u.AvailableCommandsUpdate != nil:
		ss.cmdMu.Lock()
		ss.commands = u.AvailableCommandsUpdate.AvailableCommands
		ss.cmdMu.Unlock()
		ss.sendCommands()
		return
	case u.ConfigOptionUpdate != nil:
		ss.innerOptionsChanged(u.ConfigOptionUpdate.ConfigOptions)
		return
	case u.CurrentModeUpdate != nil:
		ss.noteMode(u.CurrentModeUpdate.CurrentModeId)
	case u.ToolCall != nil:
		ss.showCall(u.ToolCall.ToolCallId)
	case u.ToolCallUpdate != nil:
		if !ss.wasShown(u.ToolCallUpdate.ToolCallId) {
			return
		}
	}
	ss.send(u)
}

// Config is the inner agent's settings as its session opened.
func (r relay) Config(c acpagent.SessionConfig) { r.ss.innerSettled(c) }

// showCall notes a tool call the editor was told of.
func (ss *session) showCall(id acp.ToolCallId) {
	ss.cmdMu.Lock()
	defer ss.cmdMu.Unlock()
	ss.shown[id] = struct{}{}
}

func (ss *session) wasShown(id acp.ToolCallId) bool {
	ss.cmdMu.Lock()
	defer ss.cmdMu.Unlock()
	_, ok := ss.shown[id]
	return ok
}

// MCPServers are the editor's MCP servers of session/new or session/load
// that the agent takes (editorServers): stdio, and http or sse when its
// initialize advertised them, as todosh's own initialize then did.
func (r relay) MCPServers() []acp.McpServer { return r.ss.mcp }

func (r relay) id() acp.SessionId { return acp.SessionId(r.ss.id) }

func (r relay) conn() *acp.AgentSideConnection { return r.ss.srv.conn }

func (r relay) Permission(ctx context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	req.SessionId = r.id()
	r.ss.showCall(req.ToolCall.ToolCallId)
	return r.conn().RequestPermission(ctx, req)
}

// refused is the answer to a request the editor did not advertise.
func refused(method string) error { return acp.NewMethodNotFound(method) }

func (r relay) ReadTextFile(ctx context.Context, req acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	if !r.ss.srv.clientCaps().Fs.ReadTextFile {
		return acp.ReadTextFileResponse{}, refused(acp.ClientMethodFsReadTextFile)
	}
	req.SessionId = r.id()
	return r.conn().ReadTextFile(ctx, req)
}

func (r relay) WriteTextFile(ctx context.Context, req acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	if !r.ss.srv.clientCaps().Fs.WriteTextFile {
		return acp.WriteTextFileResponse{}, refused(acp.ClientMethodFsWriteTextFile)
	}
	req.SessionId = r.id()
	return r.conn().WriteTextFile(ctx, req)
}

func (r relay) terminal() bool { return r.ss.srv.clientCaps().Terminal }

func (r relay) CreateTerminal(ctx context.Context, req acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	if !r.terminal() {
		return acp.CreateTerminalResponse{}, refused(acp.ClientMethodTerminalCreate)
	}
	req.SessionId = r.id()
	return r.conn().CreateTerminal(ctx, req)
}

func (r relay) KillTerminal(ctx context.Context, req acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	if !r.terminal() {
		return acp.KillTerminalResponse{}, refused(acp.ClientMethodTerminalKill)
	}
	req.SessionId = r.id()
	return r.conn().KillTerminal(ctx, req)
}

func (r relay) TerminalOutput(ctx context.Context, req acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	if !r.terminal() {
		return acp.TerminalOutputResponse{}, refused(acp.ClientMethodTerminalOutput)
	}
	req.SessionId = r.id()
	return r.conn().TerminalOutput(ctx, req)
}

func (r relay) ReleaseTerminal(ctx context.Context, req acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	if !r.terminal() {
		return acp.ReleaseTerminalResponse{}, refused(acp.ClientMethodTerminalRelease)
	}
	req.SessionId = r.id()
	return r.conn().ReleaseTerminal(ctx, req)
}

func (r relay) WaitForTerminalExit(ctx context.Context, req acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	if !r.terminal() {
		return acp.WaitForTerminalExitResponse{}, refused(acp.ClientMethodTerminalWaitForExit)
	}
	req.SessionId = r.id()
	return r.conn().WaitForTerminalExit(ctx, req)
}
