package backends

import (
	"slices"
	"strings"
	"testing"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/continuation"
)

func TestChoose(t *testing.T) {
	noEnv := func(string) string { return "" }
	tests := []struct {
		spec    string
		given   []Flag
		want    string // row name
		wantErr string
	}{
		{spec: "", want: "none"},
		{spec: "demo", want: "demo"},
		{spec: "script:x.json", want: "script"},
		{spec: "script:", wantErr: "give the file"},
		{spec: "claude", given: []Flag{FlagBin, FlagArg}, want: "claude"},
		{spec: "openai", given: []Flag{FlagModel, FlagBaseURL, FlagEvidence}, want: "openai"},
		{spec: "gpt", wantErr: `--agent "gpt": want one of none, demo`},
		{spec: "demo", given: []Flag{FlagBin}, wantErr: "--agent-bin goes with --agent claude, codex, gemini, qwen, pi, acp, acp:claude"},
		{spec: "codex", given: []Flag{FlagModel}, wantErr: "--model goes with --agent openai, not codex"},
		{spec: "claudex", wantErr: "want one of"},
	}
	for _, tt := range tests {
		b, _, err := Choose(tt.spec, tt.given, Options{Getenv: noEnv})
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Choose(%q, %v) error = %v, want one containing %q", tt.spec, tt.given, err, tt.wantErr)
			}
			continue
		}
		if err != nil || b.Name != tt.want {
			t.Errorf("Choose(%q, %v) = %v, %v; want row %q", tt.spec, tt.given, b, err, tt.want)
		}
	}
}

// TestTools: the continuation prompt's tools come from the row's
// capabilities, the todo tool from the row or, when it leaves it open,
// from the agent.
func TestTools(t *testing.T) {
	tests := []struct {
		spec, agentTool string
		want            continuation.Tools
	}{
		{"openai", "todo_write", continuation.Tools{Todo: "todo_write", Positional: true, Tick: "todo_tick", Pause: "todo_pause"}},
		{"claude", "TaskUpdate", continuation.Tools{Todo: "TaskUpdate", Tick: "mcp__todosh__todo_tick", Pause: "mcp__todosh__todo_pause"}},
		{"claude", "mcp__todosh__todo_write", continuation.Tools{Todo: "mcp__todosh__todo_write", Positional: true, Tick: "mcp__todosh__todo_tick", Pause: "mcp__todosh__todo_pause"}},
		{"codex", "update_plan", continuation.Tools{Todo: "update_plan", Tick: "mcp__todosh__todo_tick", Pause: "mcp__todosh__todo_pause",
			Load: continuation.Loader{Tool: "tool_search", Query: "todosh", Namespace: "mcp__todosh"}}},
		{"gemini", "write_todos", continuation.Tools{Todo: "write_todos"}},
		{"acp:gemini", "todo_write", continuation.Tools{Todo: "mcp_todosh_todo_write", Positional: true, Tick: "mcp_todosh_todo_tick", Pause: "mcp_todosh_todo_pause"}},
		{"acp:codex", "todo_write", continuation.Tools{Todo: "mcp__todosh__todo_write", Positional: true, Tick: "mcp__todosh__todo_tick", Pause: "mcp__todosh__todo_pause"}},
		{"acp", "todo_write", continuation.Tools{Todo: "todo_write", Positional: true, Tick: "todo_tick", Pause: "todo_pause"}},
	}
	for _, tt := range tests {
		b, _, err := Lookup(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.Tools(tt.agentTool, ""); got != tt.want {
			t.Errorf("%s: Tools(%q) = %+v, want %+v", tt.spec, tt.agentTool, got, tt.want)
		}
	}
	// What the agent reports (Claude Code's ToolSearch in its init line)
	// is how it loads tools, by name.
	b, _, _ := Lookup("claude")
	if got := b.Tools("TaskUpdate", "ToolSearch").Load; got != (continuation.Loader{Tool: "ToolSearch"}) {
		t.Errorf("claude with ToolSearch: Load = %+v", got)
	}
}

// TestTableUnique: every name is one row, so Lookup is unambiguous.
func TestTableUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range Table {
		if seen[b.Name] || b.Summary == "" || b.Start == nil {
			t.Errorf("row %q: duplicate, or no summary or start", b.Name)
		}
		seen[b.Name] = true
	}
}

// TestACPRows: every ACP row hands todosh's MCP server and accepts
// --approve, which is checked before anything starts.
func TestACPRows(t *testing.T) {
	for _, name := range []string{"acp:claude", "acp:codex", "acp:gemini"} {
		b, f, err := Choose(name, []Flag{FlagApprove}, Options{Approve: "always"})
		if err != nil || f == nil || !b.Caps.MCP || !b.Caps.Tick || !b.Caps.Pause {
			t.Errorf("%s: %v, caps %+v", name, err, b)
		}
	}
	if _, _, err := Choose("acp:claude", nil, Options{Approve: "yes"}); err == nil || !strings.Contains(err.Error(), `--approve "yes": want ask, never or always`) {
		t.Errorf("bad --approve: %v", err)
	}
	if _, _, err := Choose("acp", nil, Options{}); err == nil || !strings.Contains(err.Error(), "--agent-bin") {
		t.Errorf("acp without a command: %v", err)
	}
	if _, _, err := Choose("claude", []Flag{FlagApprove}, Options{}); err == nil || !strings.Contains(err.Error(), "--approve goes with --agent acp") {
		t.Errorf("--approve with a CLI: %v", err)
	}
}

// TestCLIMCPArgs: Claude Code and Codex get todosh's MCP server on their
// command line, in the shapes they parse.
func TestCLIMCPArgs(t *testing.T) {
	m := &agent.MCPServer{Name: "todosh", Command: "/usr/bin/todo sh", Args: []string{"mcp", "--session", "s1"}, Env: map[string]string{"TODOSH_HOME": `/h/"x"`}}
	got := strings.Join(claudeMCP(m), " | ")
	want := `--mcp-config | {"mcpServers":{"todosh":{"args":["mcp","--session","s1"],"command":"/usr/bin/todo sh","env":{"TODOSH_HOME":"/h/\"x\""}}}} | --allowedTools | mcp__todosh__todo_write,mcp__todosh__todo_read,mcp__todosh__todo_tick,mcp__todosh__todo_pause,mcp__todosh__board_ready,mcp__todosh__board_claim,mcp__todosh__board_done`
	if got != want {
		t.Errorf("claude:\n got %s\nwant %s", got, want)
	}
	got = strings.Join(codexMCP(m), " | ")
	want = `-c | mcp_servers.todosh.command="/usr/bin/todo sh" | -c | mcp_servers.todosh.args=["mcp","--session","s1"] | -c | mcp_servers.todosh.env={TODOSH_HOME="/h/\"x\""} | -c | mcp_servers.todosh.default_tools_approval_mode="approve"`
	if got != want {
		t.Errorf("codex:\n got %s\nwant %s", got, want)
	}
}

// TestWithPresetArgs: --agent-arg adds to an ACP preset's own arguments,
// which stay first; one the person gave too is given once.
func TestWithPresetArgs(t *testing.T) {
	for _, tt := range []struct {
		preset, given, want []string
	}{
		{[]string{"--acp"}, []string{"-m", "gemini-2.5-pro"}, []string{"--acp", "-m", "gemini-2.5-pro"}},
		{[]string{"--acp"}, []string{"--acp", "-m", "x"}, []string{"--acp", "-m", "x"}},
		{[]string{"-m", "x", "--acp"}, []string{"-y"}, []string{"-m", "x", "--acp", "-y"}},
		{nil, []string{"--flag"}, []string{"--flag"}},
	} {
		if got := withPresetArgs(tt.preset, tt.given); !slices.Equal(got, tt.want) {
			t.Errorf("withPresetArgs(%q, %q) = %q, want %q", tt.preset, tt.given, got, tt.want)
		}
	}
}
