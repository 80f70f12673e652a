package clis

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/todosh/todosh/todostore"
)

// fuzzStream feeds data to a parser as a whole stream and checks what any
// stream must give: no panic, and lists todosh can store.
func fuzzStream(t *testing.T, p Parser, data []byte) {
	notices := 0
	// Task operations apply to a list holding an item of the person's.
	list := []todostore.Todo{{Content: "mine", Status: todostore.Pending, Origin: todostore.OriginPerson}}
	var ct ClaudeTasks
	err := ParseStream(bytes.NewReader(data), "fuzz", p, func(u Update) {
		switch u.Kind {
		case UpdateTodos:
			todos := todostore.CloneTodos(u.Todos)
			todostore.Normalize(todos)
			if len(todos) <= todostore.MaxTodos {
				if err := todostore.Validate(todos); err != nil {
					t.Fatalf("parser made a list the store refuses: %v", err)
				}
			}
		case UpdateTask:
			next, _, err := ct.Apply(list, *u.Task)
			if err != nil {
				return // the list is full: the runner reports it
			}
			if err := todostore.Validate(next); err != nil {
				t.Fatalf("task %+v made a list the store refuses: %v", *u.Task, err)
			}
			if len(next) == 0 || next[0].Origin != todostore.OriginPerson {
				t.Fatalf("task %+v lost the person's item", *u.Task)
			}
			list = next
		case UpdateNotice:
			notices++
		}
	})
	if err != nil {
		t.Fatalf("read error from memory: %v", err)
	}
	// Every line is valid JSON: no line may be called malformed.
	allValid := true
	for _, line := range bytes.Split(data, []byte("\n")) {
		if line = bytes.TrimSpace(line); len(line) > 0 && (!json.Valid(line) || line[0] != '{') {
			allValid = false
		}
	}
	if allValid && notices > 0 {
		// Notices other than malformed lines (cut texts, warnings) may
		// appear; only the malformed-line notice is wrong here.
		_ = ParseStream(bytes.NewReader(data), "fuzz", p, func(u Update) {
			if u.Kind == UpdateNotice && bytes.Contains([]byte(u.Text), []byte("malformed")) {
				t.Fatalf("valid JSON line reported malformed: %s", u.Text)
			}
		})
	}
}

func FuzzClaude(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { fuzzStream(t, &ClaudeParser{}, data) })
}

func FuzzCodex(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzStream(t, &CodexParser{Prev: []todostore.Todo{{Content: "Implement CSV parser with quoted-field support", Status: todostore.InProgress}}}, data)
	})
}

func FuzzGemini(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { fuzzStream(t, &GeminiParser{}, data) })
}
