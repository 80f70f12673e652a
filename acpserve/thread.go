package acpserve

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/todosh/todosh/todolist"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/todostore"
)

// The conversation of a thread is todosh's to keep, in the store
// (todostore's thread file, one session update a line): what the editor
// was shown, for every inner agent alike, so session/load replays it
// after todosh acp itself restarted, without starting the agent. An ACP
// agent's own replay would lack what todosh said (its continuation
// lines, /todo's answers) and would show todosh's continuation prompts as
// the person's; it is dropped (acpagent), and the agent reopens its own
// session for the model's context at the next prompt.

// recorder writes the updates a session sends to its transcript. Text
// chunks of one speaker are gathered into one line, written when another
// kind of update comes or the prompt ends; plans, commands and settings
// are state, sent afresh on load, and are not kept.
type recorder struct {
	store *todostore.Store
	id    string

	mu   sync.Mutex
	kind string // "agent", "thought" or "user": the text gathered
	text strings.Builder
}

// record notes one update the editor was sent.
func (r *recorder) record(u acp.SessionUpdate) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil && u.AgentMessageChunk.Content.Text.Text == "":
		// An empty chunk starts a new message (claude-agent-acp): kept,
		// so the replay shows the messages apart as they were.
		r.flushLocked()
		r.write(u)
	case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
		r.gather("agent", u.AgentMessageChunk.Content.Text.Text)
	case u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil:
		r.gather("thought", u.AgentThoughtChunk.Content.Text.Text)
	case u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil:
		r.gather("user", u.UserMessageChunk.Content.Text.Text)
	case u.AgentMessageChunk != nil, u.AgentThoughtChunk != nil, u.UserMessageChunk != nil, u.ToolCall != nil, u.ToolCallUpdate != nil:
		r.flushLocked()
		r.write(u)
	}
}

// user notes the person's prompt, which the editor showed itself.
func (r *recorder) user(text string) {
	r.record(acp.UpdateUserMessageText(text))
	r.flush()
}

func (r *recorder) gather(kind, text string) {
	if r.kind != kind {
		r.flushLocked()
		r.kind = kind
	}
	r.text.WriteString(text)
}

// flush writes the gathered text.
func (r *recorder) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushLocked()
}

func (r *recorder) flushLocked() {
	text, kind := r.text.String(), r.kind
	r.text.Reset()
	r.kind = ""
	if text == "" {
		return
	}
	switch kind {
	case "agent":
		r.write(acp.UpdateAgentMessageText(text))
	case "thought":
		r.write(acp.UpdateAgentThoughtText(text))
	case "user":
		r.write(acp.UpdateUserMessageText(text))
	}
}

// write appends one update; a transcript that cannot be written loses
// that line, not the turn.
func (r *recorder) write(u acp.SessionUpdate) {
	b, err := json.Marshal(u)
	if err != nil {
		return
	}
	_, _ = r.store.AppendThread(r.id, [][]byte{b})
}

// replay sends the session's transcript to the editor, before
// session/load answers, as ACP requires: the person's prompts as user
// messages, the agent's and todosh's words as agent messages, tool
// calls; then the list as the plan. It returns how many lines could not
// be read.
func (ss *session) replay() int {
	lines, skipped, err := ss.store.ReadThread(ss.id)
	if err != nil {
		ss.sendNow(acp.UpdateAgentMessageText("todosh: the conversation could not be read: " + todolist.ShortLine(err.Error(), 200) + "\n\n"))
	}
	for _, l := range lines {
		var u acp.SessionUpdate
		if json.Unmarshal(l, &u) != nil {
			skipped++
			continue
		}
		ss.replayNow(u)
	}
	ss.syncPlanNow(true)
	return skipped
}
