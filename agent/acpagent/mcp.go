package acpagent

// The MCP servers a session is given: todosh's own, over the transports
// the agent says it takes, and what was left out and why.

import (
	"fmt"
	"slices"

	"github.com/todosh/todosh/todolist"

	acp "github.com/coder/acp-go-sdk"
)

// emptyList is the mcpServers of an agent without todosh's server.
var emptyList = []acp.McpServer{}

// mcpServers is todosh's MCP server as a stdio entry, which the SDK
// writes without a "type" field (one adapter rejects it), then the
// editor's servers of a transport the agent p advertised (MCPTakes).
func (a *Agent) mcpServers(p *process) []acp.McpServer {
	var editor []acp.McpServer
	if a.relay != nil {
		editor = slices.DeleteFunc(slices.Clone(a.relay.MCPServers()), func(m acp.McpServer) bool {
			return !MCPTakes(p.caps.McpCapabilities, m)
		})
	}
	m := a.cfg.MCP
	if m == nil {
		return append(emptyList[:0:0], editor...)
	}
	env := []acp.EnvVariable{}
	for k, v := range m.Env {
		env = append(env, acp.EnvVariable{Name: k, Value: v})
	}
	return append([]acp.McpServer{{Stdio: &acp.McpServerStdio{Name: m.Name, Command: m.Command, Args: m.Args, Env: env}}}, editor...)
}

// mcpDropped is the notice, once per process, that the editor's MCP
// servers of a transport the agent did not advertise were not passed to
// it; "" when there were none.
func (a *Agent) mcpDropped(p *process) string {
	if a.relay == nil || p.mcpNoted {
		return ""
	}
	var dropped []acp.McpServer
	for _, m := range a.relay.MCPServers() {
		if !MCPTakes(p.caps.McpCapabilities, m) {
			dropped = append(dropped, m)
		}
	}
	if len(dropped) == 0 {
		return ""
	}
	p.mcpNoted = true
	return fmt.Sprintf("%s: the editor's MCP %s not passed to it: it takes only %s servers",
		a.cfg.Name, MCPNames(dropped), MCPTransports(p.caps.McpCapabilities))
}

// mcpTransports is the one table of the transports an editor may give an
// MCP server in: its name, the server's name when the server uses it, and
// whether an agent that advertised caps takes it (stdio: every agent, as
// ACP requires).
var mcpTransports = []struct {
	name   string
	server func(acp.McpServer) (string, bool)
	takes  func(acp.McpCapabilities) bool
}{
	{"stdio", func(m acp.McpServer) (string, bool) {
		return nameOf(m.Stdio, func(x *acp.McpServerStdio) string { return x.Name })
	},
		func(acp.McpCapabilities) bool { return true }},
	{"http", func(m acp.McpServer) (string, bool) {
		return nameOf(m.Http, func(x *acp.McpServerHttpInline) string { return x.Name })
	},
		func(c acp.McpCapabilities) bool { return c.Http }},
	{"sse", func(m acp.McpServer) (string, bool) {
		return nameOf(m.Sse, func(x *acp.McpServerSseInline) string { return x.Name })
	},
		func(c acp.McpCapabilities) bool { return c.Sse }},
	{"acp", func(m acp.McpServer) (string, bool) {
		return nameOf(m.Acp, func(x *acp.McpServerAcpInline) string { return x.Name })
	},
		func(c acp.McpCapabilities) bool { return c.Acp }},
}

// nameOf is the name of a server's variant x, and whether it is set.
func nameOf[T any](x *T, name func(*T) string) (string, bool) {
	if x == nil {
		return "", false
	}
	return name(x), true
}

// MCPTakes reports whether an agent that advertised caps takes the MCP
// server m.
func MCPTakes(caps acp.McpCapabilities, m acp.McpServer) bool {
	for _, t := range mcpTransports {
		if _, ok := t.server(m); ok {
			return t.takes(caps)
		}
	}
	return false
}

// MCPTransports names the transports an agent that advertised caps takes:
// "stdio and http".
func MCPTransports(caps acp.McpCapabilities) string {
	var names []string
	for _, t := range mcpTransports {
		if t.takes(caps) {
			names = append(names, t.name)
		}
	}
	return todolist.AndList(names)
}

// MCPNames names MCP servers for a notice: `server "docs" (http)`,
// `servers "docs" (http) and "logs" (sse)`.
func MCPNames(servers []acp.McpServer) string {
	var parts []string
	for _, m := range servers {
		for _, t := range mcpTransports {
			if name, ok := t.server(m); ok {
				parts = append(parts, fmt.Sprintf("%q (%s)", todolist.ShortLine(name, 40), t.name))
			}
		}
	}
	if len(parts) == 1 {
		return "server " + parts[0]
	}
	return "servers " + todolist.AndList(parts)
}
