package acpagent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// SavedList reads an agent's own todo list from where the agent saves it,
// for an agent whose list never crosses ACP (it sets it with a call
// that carries no items): home is the agent's HOME, id its ACP session
// id. ok is false when no saved list was found.
type SavedList func(home, id string) (entries []acp.PlanEntry, ok bool)

// GeminiSavedList is Gemini CLI's (0.61) list: the last write_todos call
// in its chat recording of the session,
// ~/.gemini/tmp/<project>/chats/session-<time>-<first 8 of the id>.jsonl,
// whose first line names the session. Over ACP Gemini sends the call
// only as its title ("Set 3 todo(s)"); the recording has its arguments.
func GeminiSavedList(home, id string) ([]acp.PlanEntry, bool) {
	if home == "" || len(id) < 8 || strings.ContainsAny(id, `/\*?[`) {
		return nil, false
	}
	paths, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "session-*-"+id[:8]+".jsonl"))
	var newest string
	var at int64
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil || !info.Mode().IsRegular() || info.Size() > maxChat {
			continue
		}
		if t := info.ModTime().UnixNano(); newest == "" || t > at {
			newest, at = p, t
		}
	}
	if newest == "" {
		return nil, false
	}
	data, err := os.ReadFile(newest)
	if err != nil {
		return nil, false
	}
	return LastWriteTodos(data, id)
}

// maxChat bounds the chat recording GeminiSavedList reads.
const maxChat = 64 << 20

// LastWriteTodos reads a Gemini CLI chat recording (JSON lines: the
// session's header, its messages, and {"$set": ...} edits) and returns
// the items of its last write_todos call, when the recording is of
// session id. Lines that are not JSON are skipped.
func LastWriteTodos(data []byte, id string) ([]acp.PlanEntry, bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxChat)
	var last []acp.PlanEntry
	found, ours := false, false
	for sc.Scan() {
		var line struct {
			SessionID string `json:"sessionId"`
			Type      string `json:"type"`
			ToolCalls []struct {
				Name string         `json:"name"`
				Args map[string]any `json:"args"`
			} `json:"toolCalls"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		if line.SessionID != "" {
			ours = line.SessionID == id
		}
		if line.Type != "gemini" {
			continue
		}
		for _, c := range line.ToolCalls {
			if c.Name != "write_todos" {
				continue
			}
			if entries, ok := WriteTodosInput(c.Args); ok {
				last, found = entries, true
			}
		}
	}
	return last, found && ours
}
