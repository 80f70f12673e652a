package acpagent

// The agent's permission requests: todosh's own tools are allowed, the
// rest follow --approve: asked of the person (or, behind `todosh acp`, of
// the editor), allowed, or refused with a notice.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/todosh/todosh/todolist"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/todotools"
)

// permission answers one session/request_permission: by --approve, else
// by asking the person, else (a script) a refusal. A continuation is
// asked like any turn: todosh never approves by itself what the person
// would have been asked. err is set when the person gave no answer.
func (a *Agent) permission(ctx context.Context, p *process, turn agent.Turn, req acp.RequestPermissionRequest, emit func(agent.Event)) (acp.RequestPermissionResponse, error) {
	if a.ownTool(req.ToolCall) {
		// todosh's own todo tools touch nothing but the list the person
		// sees; asking about them would only stop an agent from keeping it.
		if o, ok := AllowOption(req.Options, false); ok {
			return selected(o), nil
		}
	}
	if a.relay != nil && a.cfg.Approve == ApproveAsk {
		// Behind `todosh acp` the editor asks its person.
		resp, err := a.relay.Permission(ctx, req)
		if err != nil {
			return cancelledOutcome(), errors.New("no answer")
		}
		return resp, nil
	}
	what := permissionText(p.label, req.ToolCall)
	switch {
	case a.cfg.Approve == ApproveAlways:
		if o, ok := AllowOption(req.Options, true); ok {
			emit(agent.Event{Kind: agent.EventNotice, Text: "allowed (--approve always, " + o.Name + "): " + what})
			return selected(o), nil
		}
	case a.cfg.Approve == ApproveAsk && turn.Ask != nil:
		names := make([]string, len(req.Options))
		for i, o := range req.Options {
			names[i] = o.Name
		}
		i, err := turn.Ask(ctx, agent.Question{Text: what, Options: names})
		if err != nil || i < 0 || i >= len(req.Options) {
			return cancelledOutcome(), errors.New("no answer")
		}
		return selected(req.Options[i]), nil
	}
	why := "--approve never"
	if a.cfg.Approve == ApproveAsk {
		why = "no terminal to ask; --approve always allows"
	}
	emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("refused (%s): %s", why, what)})
	if o, ok := pickOption(req.Options, acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways); ok {
		return selected(o), nil
	}
	return cancelledOutcome(), nil
}

// ownTool reports whether a permission request is for todosh's own MCP
// server's tools.
func (a *Agent) ownTool(tc acp.ToolCallUpdate) bool {
	return a.cfg.MCP != nil && OwnTool(a.cfg.MCP.Name, tc)
}

// OwnTool reports whether a permission request is for a tool of todosh's
// MCP server, named server: its raw input names the server
// (codex-acp's "Approve MCP tool call" carries {"server_name":"todosh",
// "tool_name":"todo_write"}), or its title, content or raw input names the
// server and one of todosh's todo tools, as agents title MCP calls
// ("mcp__todosh__todo_write", "todo_write (todosh MCP Server)").
func OwnTool(server string, tc acp.ToolCallUpdate) bool {
	if raw, ok := tc.RawInput.(map[string]any); ok {
		for _, k := range []string{"server_name", "serverName", "server"} {
			if v, _ := raw[k].(string); v == server {
				return true
			}
		}
	}
	var text strings.Builder
	if tc.Title != nil {
		text.WriteString(*tc.Title + "\n")
	}
	for _, c := range tc.Content {
		if c.Content != nil && c.Content.Content.Text != nil {
			text.WriteString(c.Content.Content.Text.Text + "\n")
		}
	}
	if tc.RawInput != nil {
		if b, err := json.Marshal(tc.RawInput); err == nil {
			text.Write(b)
		}
	}
	if !containsWord(text.String(), server) {
		return false
	}
	for _, name := range todotools.Names() {
		if containsWord(text.String(), name) {
			return true
		}
	}
	return false
}

// containsWord reports whether s holds w with no letter or digit right
// before or after it (an underscore counts as a separator: mcp_todosh_).
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !isAlnum(s[j-1])) && (end == len(s) || !isAlnum(s[end])) {
			return true
		}
		i = j + 1
	}
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// AllowOption picks the option that allows a request for good: an
// "always" option limited to this session or this server first (codex-acp's
// "Allow for this session", Gemini's proceed_always_server), then any
// other "always" one that is not saved beyond the session, then "once".
// An "always" option the agent keeps in the person's configuration
// ("Allow and don't ask again") is picked before "once" only when
// persist is true (--approve always, which the person chose).
func AllowOption(opts []acp.PermissionOption, persist bool) (acp.PermissionOption, bool) {
	best, score := acp.PermissionOption{}, 0
	for _, o := range opts {
		s := 0
		text := strings.ToLower(string(o.OptionId) + " " + o.Name)
		saved := strings.Contains(text, "don't ask again") || strings.Contains(text, "save") || strings.Contains(text, "approved-always")
		switch {
		case o.Kind == acp.PermissionOptionKindAllowAlways && strings.Contains(text, "session"):
			s = 6
		case o.Kind == acp.PermissionOptionKindAllowAlways && strings.Contains(text, "server") && !saved:
			s = 5
		case o.Kind == acp.PermissionOptionKindAllowAlways && !saved:
			s = 4
		case o.Kind == acp.PermissionOptionKindAllowAlways && persist:
			s = 3
		case o.Kind == acp.PermissionOptionKindAllowOnce:
			s = 2
		case o.Kind == acp.PermissionOptionKindAllowAlways:
			s = 1
		}
		if s > score {
			best, score = o, s
		}
	}
	return best, score > 0
}

// permissionText names the agent, the tool and what it wants, on one line.
func permissionText(name string, tc acp.ToolCallUpdate) string {
	title := ""
	if tc.Title != nil {
		title = *tc.Title
	}
	kind := ""
	if tc.Kind != nil {
		kind = string(*tc.Kind)
	}
	if strings.TrimSpace(title) == "" {
		title = "a tool call"
	}
	s := name + " wants permission: " + todolist.ShortLine(title, 80)
	if kind != "" && kind != "other" {
		s += " (" + kind + ")"
	}
	return s
}

// pickOption returns the first option of the first kind present.
func pickOption(opts []acp.PermissionOption, kinds ...acp.PermissionOptionKind) (acp.PermissionOption, bool) {
	for _, k := range kinds {
		for _, o := range opts {
			if o.Kind == k {
				return o, true
			}
		}
	}
	return acp.PermissionOption{}, false
}

func selected(o acp.PermissionOption) acp.RequestPermissionResponse {
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Selected: &acp.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}
}

func cancelledOutcome() acp.RequestPermissionResponse {
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{}}}
}
