package acpagent

import (
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// TestMCPTransports: which of an editor's MCP servers an agent takes, by
// what its initialize advertised, and how a notice names them.
func TestMCPTransports(t *testing.T) {
	stdio := acp.McpServer{Stdio: &acp.McpServerStdio{Name: "tools"}}
	http := acp.McpServer{Http: &acp.McpServerHttpInline{Name: "docs", Type: "http"}}
	sse := acp.McpServer{Sse: &acp.McpServerSseInline{Name: "logs", Type: "sse"}}
	viaACP := acp.McpServer{Acp: &acp.McpServerAcpInline{Name: "inner"}}
	tests := []struct {
		name  string
		caps  acp.McpCapabilities
		takes []bool // stdio, http, sse, acp
		words string
	}{
		{"stdio only", acp.McpCapabilities{}, []bool{true, false, false, false}, "stdio"},
		{"codex-acp 0.16.0", acp.McpCapabilities{Http: true}, []bool{true, true, false, false}, "stdio and http"},
		{"claude-agent-acp 0.23.1", acp.McpCapabilities{Http: true, Sse: true}, []bool{true, true, true, false}, "stdio, http and sse"},
		{"acp", acp.McpCapabilities{Acp: true}, []bool{true, false, false, true}, "stdio and acp"},
	}
	for _, tt := range tests {
		for i, m := range []acp.McpServer{stdio, http, sse, viaACP} {
			if got := MCPTakes(tt.caps, m); got != tt.takes[i] {
				t.Errorf("%s: MCPTakes(server %d) = %v", tt.name, i, got)
			}
		}
		if got := MCPTransports(tt.caps); got != tt.words {
			t.Errorf("%s: MCPTransports = %q, want %q", tt.name, got, tt.words)
		}
	}
	if MCPTakes(acp.McpCapabilities{Http: true, Sse: true, Acp: true}, acp.McpServer{}) {
		t.Error("a server of no transport is taken")
	}
	for _, tt := range []struct {
		servers []acp.McpServer
		want    string
	}{
		{[]acp.McpServer{sse}, `server "logs" (sse)`},
		{[]acp.McpServer{http, sse}, `servers "docs" (http) and "logs" (sse)`},
		{[]acp.McpServer{stdio, http, viaACP}, `servers "tools" (stdio), "docs" (http) and "inner" (acp)`},
		{[]acp.McpServer{{Stdio: &acp.McpServerStdio{Name: "a\x1b[2Jb"}}}, `server "a [2Jb" (stdio)`}, // no escape reaches a screen
	} {
		if got := MCPNames(tt.servers); got != tt.want {
			t.Errorf("MCPNames = %q, want %q", got, tt.want)
		}
	}
}
