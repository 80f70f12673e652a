package acpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/todosh/todosh/todolist"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/todostore"
)

// This file is the session lifecycle beyond session/new and session/load:
// session/list, session/resume, session/close and session/delete, which
// the SDK (coder/acp-go-sdk v0.13.0) does not know and the frame filter
// answers, with its capability added to initialize's answer.

// methodDelete is session/delete (ACP schema 2026, not in the SDK).
const methodDelete = "session/delete"

// route is the Server's look at each of the editor's messages, in the
// order they came (filterFrames): prompts are numbered for their
// session's queue, load and resume requests noted for the gate,
// session/delete answered here, initialize's id kept so its answer
// advertises session/delete.
func (s *Server) route(line []byte) (pass, reply []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			SessionID string `json:"sessionId"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil {
		return line, nil // the SDK answers it
	}
	switch m.Method {
	case acp.AgentMethodSessionPrompt:
		return s.stampPrompt(line), nil
	case acp.AgentMethodSessionCancel:
		if m.Params.SessionID != "" {
			s.queue(m.Params.SessionID).cancelAll()
		}
	case acp.AgentMethodSessionLoad, acp.AgentMethodSessionResume:
		if m.ID != nil {
			s.gates.noteRequest(m.ID, m.Params.SessionID)
		}
	case acp.AgentMethodInitialize:
		if m.ID != nil {
			s.mu.Lock()
			s.initID = append(json.RawMessage(nil), m.ID...)
			s.mu.Unlock()
		}
	case methodDelete:
		if m.ID == nil {
			return nil, nil // a notification: nothing to answer
		}
		id := json.RawMessage(m.ID)
		if err := s.deleteSession(m.Params.SessionID); err != nil {
			var re *acp.RequestError
			if !errors.As(err, &re) {
				re = &acp.RequestError{Code: -32603, Message: err.Error()}
			}
			b, _ := json.Marshal(struct {
				JSONRPC string            `json:"jsonrpc"`
				ID      json.RawMessage   `json:"id"`
				Error   *acp.RequestError `json:"error"`
			}{"2.0", id, re})
			return nil, b
		}
		b, _ := json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  struct{}        `json:"result"`
		}{"2.0", id, struct{}{}})
		return nil, b
	}
	return line, nil
}

// patchInit adds session/delete to initialize's answer
// (agentCapabilities.sessionCapabilities.delete), which the SDK's types
// cannot say; every other message passes as it is.
func (s *Server) patchInit(b []byte) []byte {
	s.mu.Lock()
	id := s.initID
	s.mu.Unlock()
	if id == nil || !bytes.Contains(b, []byte(`"agentCapabilities"`)) {
		return b
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(b, &msg) != nil || !bytes.Equal(msg["id"], id) || msg["result"] == nil {
		return b
	}
	var res map[string]json.RawMessage
	var caps map[string]json.RawMessage
	var sc map[string]json.RawMessage
	if json.Unmarshal(msg["result"], &res) != nil || json.Unmarshal(res["agentCapabilities"], &caps) != nil {
		return b
	}
	if json.Unmarshal(caps["sessionCapabilities"], &sc) != nil || sc == nil {
		sc = map[string]json.RawMessage{}
	}
	sc["delete"] = json.RawMessage(`{}`)
	caps["sessionCapabilities"], _ = marshalAsIs(sc)
	res["agentCapabilities"], _ = marshalAsIs(caps)
	msg["result"], _ = marshalAsIs(res)
	out, err := marshalAsIs(msg)
	if err != nil {
		return b
	}
	s.mu.Lock()
	s.initID = nil
	s.mu.Unlock()
	return append(out, '\n')
}

// deleteSession is session/delete: the session is closed here if open,
// then every file the store keeps of it removed through the store's own
// removal (Store.Remove, under its lock).
func (s *Server) deleteSession(id string) error {
	if err := todostore.ValidSessionID(id); err != nil {
		return invalidParams("session/delete: " + err.Error())
	}
	st := todostore.Open(s.cfg.Root)
	if _, err := st.Load(id); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return invalidParams(fmt.Sprintf("session/delete: no todosh session %s (session/list lists them)", id))
		}
		return internalError("session/delete: " + err.Error())
	}
	s.mu.Lock()
	ss := s.sessions[id]
	delete(s.sessions, id)
	s.mu.Unlock()
	if ss != nil {
		s.queue(id).cancelAll()
		ss.close()
	}
	if err := st.Remove(id); err != nil && !errors.Is(err, os.ErrNotExist) {
		return internalError("session/delete: " + err.Error())
	}
	return nil
}

// known is an open session of the editor's, or the error that says it
// is not.
func (s *Server) known(id acp.SessionId, method string) (*session, error) {
	if ss := s.session(string(id)); ss != nil {
		return ss, nil
	}
	return nil, invalidParams(fmt.Sprintf("%s: unknown session %q: call session/new, session/load or session/resume first", method, id))
}

// CloseSession implements acp.Agent: the session's running prompt is
// cancelled and its inner agent ended; its files stay (session/load
// reopens it). An unknown session is an error.
func (s *Server) CloseSession(_ context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	s.mu.Lock()
	ss := s.sessions[string(p.SessionId)]
	delete(s.sessions, string(p.SessionId))
	s.mu.Unlock()
	if ss == nil {
		return acp.CloseSessionResponse{}, invalidParams(fmt.Sprintf("session/close: unknown session %q: it is not open", p.SessionId))
	}
	s.queue(ss.id).cancelAll() // its prompts end, as after session/cancel
	ss.close()
	return acp.CloseSessionResponse{}, nil
}

// maxListed is how many sessions one session/list answer holds; the rest
// come by its cursor.
const maxListed = 50

// ListSessions implements acp.Agent: todosh's sessions, newest first,
// those of cwd when it is given, each titled from its transcript's first
// prompt and its list ("csv parser · 3/7 done").
func (s *Server) ListSessions(_ context.Context, p acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	st := todostore.Open(s.cfg.Root)
	entries, err := st.List()
	if err != nil {
		return acp.ListSessionsResponse{}, internalError("session/list: " + err.Error())
	}
	skip := 0
	if p.Cursor != nil {
		if _, err := fmt.Sscanf(*p.Cursor, "%d", &skip); err != nil || skip < 0 {
			return acp.ListSessionsResponse{}, invalidParams(fmt.Sprintf("session/list: cursor %q is not one todosh gave", todoShort(*p.Cursor)))
		}
	}
	resp := acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	seen := 0
	for _, e := range entries {
		sess, err := st.LoadEntry(e)
		if err != nil || sess.Cwd == "" || !filepath.IsAbs(sess.Cwd) {
			continue
		}
		if p.Cwd != nil && !sameDir(sess.Cwd, *p.Cwd) {
			continue
		}
		seen++
		if seen <= skip {
			continue
		}
		if len(resp.Sessions) == maxListed {
			resp.NextCursor = acp.Ptr(fmt.Sprint(skip + maxListed))
			break
		}
		resp.Sessions = append(resp.Sessions, acp.SessionInfo{
			SessionId: acp.SessionId(e.ID), Cwd: sess.Cwd,
			Title:     acp.Ptr(Title(firstPrompt(st, e.ID), sess.Todos)),
			UpdatedAt: acp.Ptr(e.ModTime.UTC().Format(time.RFC3339)),
		})
	}
	return resp, nil
}

// firstPrompt is the first prompt of a session's transcript, "" when it
// has none.
func firstPrompt(st *todostore.Store, id string) string {
	lines, _, err := st.ReadThread(id)
	if err != nil {
		return ""
	}
	for _, l := range lines {
		var u acp.SessionUpdate
		if json.Unmarshal(l, &u) == nil && u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil {
			return u.UserMessageChunk.Content.Text.Text
		}
	}
	return ""
}

// Title is a session's title in the editor's list: the first line of its
// first prompt (or of its first item), cut short, then how much of the
// list is done: "csv parser · 3/7 done".
func Title(prompt string, todos []todolist.Todo) string {
	head := strings.TrimSpace(prompt)
	if IsTodoCommand(head) || head == "" {
		head = ""
		if len(todos) > 0 {
			head = todos[0].Content
		}
	}
	head, _, _ = strings.Cut(head, "\n")
	head = todolist.ShortLine(todolist.DisplayLine(head), 50)
	if head == "" {
		head = "todosh session"
	}
	if len(todos) == 0 {
		return head
	}
	done := 0
	for _, t := range todos {
		if t.Status == todolist.Completed || t.Status == todolist.Cancelled {
			done++
		}
	}
	return fmt.Sprintf("%s · %d/%d done", head, done, len(todos))
}

// sendTitle sends session_info_update when the session's title changed.
func (ss *session) sendTitle(todos []todolist.Todo) {
	title := Title(ss.firstPrompt(), todos)
	ss.titleMu.Lock()
	same := title == ss.title
	ss.title = title
	ss.titleMu.Unlock()
	if same {
		return
	}
	now := ss.srv.cfg.Now().UTC().Format(time.RFC3339)
	ss.send(acp.SessionUpdate{SessionInfoUpdate: &acp.SessionSessionInfoUpdate{Title: &title, UpdatedAt: &now}})
}

// firstPrompt is the session's first prompt, read from its transcript
// once.
func (ss *session) firstPrompt() string {
	ss.titleMu.Lock()
	defer ss.titleMu.Unlock()
	if ss.first == "" {
		ss.first = firstPrompt(ss.store, ss.id)
	}
	return ss.first
}

// ResumeSession implements acp.Agent: reopens a todosh session as
// session/load does, without replaying the conversation.
func (s *Server) ResumeSession(ctx context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	ss, err := s.reopen(ctx, string(p.SessionId), p.Cwd, p.McpServers, acp.AgentMethodSessionResume)
	if err != nil {
		return acp.ResumeSessionResponse{}, err
	}
	ss.afterOpen()
	modes, models, opts := ss.answer()
	return acp.ResumeSessionResponse{Modes: modes, Models: models, ConfigOptions: opts}, nil
}
