package acpagent

// What the agent's session/update notifications become during a turn:
// messages, tool calls with their facts, the plan (ARCHITECTURE.md §9).

import (
	"fmt"
	"strings"

	"github.com/todosh/todosh/todolist"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/agent"
)

// turnState is what one turn has seen.
type turnState struct {
	text    strings.Builder // the current agent message
	lastMsg string
	titles  map[acp.ToolCallId]string
	calls   toolFacts
	// asked are the titles of this turn's permission requests: the tool
	// call that follows one is not shown a second time.
	asked map[string]bool
	// updates counts the session/updates the turn got.
	updates int
	// setTodos is the title of a call that set the agent's own list
	// without its items ("Set 3 todo(s)"), "" when none.
	setTodos string
}

func (st *turnState) lastMessage() string {
	if s := st.text.String(); strings.TrimSpace(s) != "" {
		return s
	}
	return st.lastMsg
}

// update turns one session/update into events. Kinds todosh does not show
// (available commands, usage, modes, thoughts, unknown ones) are skipped.
func (a *Agent) update(u acp.SessionUpdate, st *turnState, emit func(agent.Event)) {
	switch {
	case u.AgentMessageChunk != nil:
		if c := u.AgentMessageChunk.Content.Text; c != nil {
			if c.Text == "" && st.text.Len() > 0 { // an empty chunk starts a message
				st.lastMsg = st.text.String()
				st.text.Reset()
			}
			st.text.WriteString(c.Text)
			emit(agent.Event{Kind: agent.EventText, Text: c.Text})
		}
	case u.ToolCall != nil:
		title := toolTitle(u.ToolCall.Title, string(u.ToolCall.Kind))
		st.titles[u.ToolCall.ToolCallId] = title
		a.ownListCall(title, u.ToolCall.RawInput, st, emit)
		start, end := st.calls.begin(u.ToolCall, title)
		line := title
		if st.asked[title] {
			line = ""
		}
		emit(agent.Event{Kind: agent.EventToolCall, Text: line, Tool: start})
		if end != nil {
			emit(agent.Event{Kind: agent.EventToolCall, Tool: end})
		}
	case u.ToolCallUpdate != nil:
		a.toolUpdate(u.ToolCallUpdate, st, emit)
	case u.Plan != nil:
		a.plan(u.Plan.Entries, emit)
	}
}

// ownListCall mirrors a call of the agent's own whole-list tool whose
// input the ACP message carries (Gemini's write_todos: {"todos":
// [{"description", "status"}]}); a call that sets the list without
// carrying it ("Set 3 todo(s)", empty content) is noted for
// noteLostList.
func (a *Agent) ownListCall(title string, raw any, st *turnState, emit func(agent.Event)) {
	if entries, ok := WriteTodosInput(raw); ok {
		a.plan(entries, emit)
		return
	}
	if setTodosTitle(title) {
		st.setTodos = title
	}
}

// noteLostList reads, at the end of a turn in which the agent set its own
// todo list without its items, the list where the agent saved it
// (Config.SavedList); failing that, it tells the person once that the
// list never reached todosh, while todosh's list stayed empty.
func (a *Agent) noteLostList(p *process, st *turnState, emit func(agent.Event)) {
	if st.setTodos == "" {
		return
	}
	if a.cfg.SavedList != nil {
		if entries, ok := a.cfg.SavedList(a.home(), string(p.id)); ok {
			a.plan(entries, emit)
			return
		}
	}
	if p.noListNote || p.ownList {
		return
	}
	if s, err := a.sess.Load(); err != nil || len(s.Todos) > 0 {
		return
	}
	p.noListNote = true
	// The cause, then what the person can do, in words they would type:
	// the model knows the tool by a name the person never sees.
	fix := "todosh's MCP server was not given"
	if a.cfg.MCP != nil {
		fix = `say "keep the todo list with todosh's todo tools" in your next prompt, or add items with /todo add`
	}
	emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("%s: its own todo list never reaches todosh over ACP; %s", a.cfg.Name, fix)})
}

// toolUpdate shows a tool call update as one line when it says something
// new: a call first heard of here, or one that failed.
func (a *Agent) toolUpdate(u *acp.SessionToolCallUpdate, st *turnState, emit func(agent.Event)) {
	title, known := st.titles[u.ToolCallId]
	if u.Title != nil {
		title = toolTitle(*u.Title, "")
	}
	if title == "" {
		title = "tool call"
	}
	st.titles[u.ToolCallId] = title
	start, end := st.calls.update(u, title)
	if start != nil {
		line := title
		if known || st.asked[title] {
			line = ""
		}
		emit(agent.Event{Kind: agent.EventToolCall, Text: line, Tool: start})
	}
	if end != nil {
		line := ""
		if end.State == agent.ToolFailed {
			line = todolist.ShortLine(title+" failed", 100)
		}
		emit(agent.Event{Kind: agent.EventToolCall, Text: line, Tool: end})
	} else if u.Status != nil && *u.Status == acp.ToolCallStatusFailed {
		emit(agent.Event{Kind: agent.EventToolCall, Text: todolist.ShortLine(title+" failed", 100)})
	}
	if !known {
		a.ownListCall(title, u.RawInput, st, emit)
	}
}

// toolTitle is the one short line of a tool call.
func toolTitle(title, kind string) string {
	if strings.TrimSpace(title) == "" {
		title = kind
	}
	return todolist.ShortLine(title, 100)
}

// plan mirrors the agent's plan into the list through the merge rule.
func (a *Agent) plan(entries []acp.PlanEntry, emit func(agent.Event)) {
	if p := a.proc; p != nil {
		p.ownList = true
	}
	todos, cut := PlanTodos(entries)
	if cut {
		emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("%s: the plan was over the list's limits and was cut", a.cfg.Name)})
	}
	res, err := agent.ApplyAgentList(a.sess, todos, agent.TickCompletedRule)
	switch {
	case err != nil:
		emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("%s: todo list not saved: %v", a.cfg.Name, err)})
	case res.Changed:
		emit(agent.Event{Kind: agent.EventTodos, Todos: res.Todos})
	}
}
