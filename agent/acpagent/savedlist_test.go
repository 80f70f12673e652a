package acpagent

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// chat is a Gemini CLI 0.61 chat recording, cut from a real one: a
// header, an edit, a message with two write_todos calls (the last one
// counts), a later message without calls, a line that is not JSON.
const chat = `{"sessionId":"d42e6639-cdca-4e28-b39d-1c927c625a29","projectHash":"29fd","startTime":"2026-11-26T13:27:44.397Z","kind":"main"}
{"$set":{"messages":[]}}
{"id":"7c9f","timestamp":"2026-11-26T13:27:45.156Z","type":"gemini","content":"","toolCalls":[{"id":"w1","name":"write_todos","args":{"todos":[{"description":"old","status":"pending"}]}},{"id":"w2","name":"write_todos","args":{"todos":[{"description":"Parse CSV","status":"completed"},{"description":"Write tests","status":"in_progress"},{"description":"gone","status":"cancelled"}]}}]}
{"id":"u2","type":"user","content":[{"functionResponse":{"id":"w2","name":"write_todos"}}]}
{"id":"g2","type":"gemini","content":"Done.","toolCalls":[{"id":"r1","name":"read_file","args":{"path":"x"}}]}
not json
`

func TestLastWriteTodos(t *testing.T) {
	entries, ok := LastWriteTodos([]byte(chat), "d42e6639-cdca-4e28-b39d-1c927c625a29")
	if !ok || len(entries) != 2 || entries[0].Content != "Parse CSV" || entries[0].Status != "completed" || entries[1].Content != "Write tests" || entries[1].Status != "in_progress" {
		t.Errorf("LastWriteTodos = %+v %v", entries, ok)
	}
	if _, ok := LastWriteTodos([]byte(chat), "d42e6639-other"); ok {
		t.Errorf("the recording of another session was read")
	}
	if _, ok := LastWriteTodos([]byte(`{"sessionId":"s"}`+"\n"), "s"); ok {
		t.Errorf("a recording without write_todos gave a list")
	}
}

// TestGeminiSavedList: the recording is found under the agent's HOME by
// the session id's first 8 characters, the newest when there are two; no
// id or no file is no list.
func TestGeminiSavedList(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".gemini", "tmp", "proj", "chats")
	os.MkdirAll(dir, 0o700)
	id := "d42e6639-cdca-4e28-b39d-1c927c625a29"
	old := filepath.Join(dir, "session-2026-11-25T10-00-d42e6639.jsonl")
	os.WriteFile(old, []byte(`{"sessionId":"`+id+`"}`+"\n"+`{"type":"gemini","toolCalls":[{"name":"write_todos","args":{"todos":[{"description":"stale","status":"pending"}]}}]}`+"\n"), 0o600)
	os.Chtimes(old, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour))
	os.WriteFile(filepath.Join(dir, "session-2026-11-26T13-27-d42e6639.jsonl"), []byte(chat), 0o600)
	if entries, ok := GeminiSavedList(home, id); !ok || len(entries) != 2 {
		t.Errorf("GeminiSavedList = %+v %v, want the newest recording's", entries, ok)
	}
	for _, c := range []struct{ home, id string }{{"", id}, {home, "short"}, {home, "*a*b*c*d*e"}, {t.TempDir(), id}} {
		if _, ok := GeminiSavedList(c.home, c.id); ok {
			t.Errorf("GeminiSavedList(%q, %q) found a list", c.home, c.id)
		}
	}
}

// FuzzLastWriteTodos: any recording reads without a panic, and a list it
// gives has no empty item.
func FuzzLastWriteTodos(f *testing.F) {
	f.Add([]byte(chat), "d42e6639-cdca-4e28-b39d-1c927c625a29")
	f.Add([]byte(`{"sessionId":"a"}`+"\n"+`{"type":"gemini","toolCalls":[{"name":"write_todos","args":{"todos":[1,{"x":2}]}}]}`), "a")
	f.Fuzz(func(t *testing.T, data []byte, id string) {
		entries, _ := LastWriteTodos(data, id)
		for _, e := range entries {
			if e.Content == "" {
				t.Fatalf("an empty item from %q", data)
			}
		}
	})
}
