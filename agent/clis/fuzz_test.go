package clis

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent"
)

// fuzzStream feeds data to a parser as a whole stream and checks what any
// stream must give: no panic, and lists todosh can store.
func fuzzStream(t *testing.T, p Parser, data []byte) {
	notices := 0
	var spent agent.Usage
	// Task operations apply to a list holding an item of the person's.
	list := []todolist.Todo{{Content: "mine", Status: todolist.Pending, Origin: todolist.OriginPerson}}
	var ct ClaudeTasks
	err := ParseStream(bytes.NewReader(data), "fuzz", p, func(u Update) {
		switch u.Kind {
		case UpdateTodos:
			todos := todolist.CloneTodos(u.Todos)
			todolist.Normalize(todos)
			if len(todos) <= todolist.MaxTodos {
				if err := todolist.Validate(todos); err != nil {
					t.Fatalf("parser made a list the store refuses: %v", err)
				}
			}
		case UpdateTask:
			next, _, err := ct.Apply(list, *u.Task)
			if err != nil {
				return // the list is full: the runner reports it
			}
			if err := todolist.Validate(next); err != nil {
				t.Fatalf("task %+v made a list the store refuses: %v", *u.Task, err)
			}
			if len(next) == 0 || next[0].Origin != todolist.OriginPerson {
				t.Fatalf("task %+v lost the person's item", *u.Task)
			}
			list = next
		case UpdateNotice:
			notices++
		case UpdateUsage:
			// What the ledger and budgets add up: never below zero, never
			// beyond agent.MaxUsage, never nothing.
			u := u.Usage
			if u == nil || u.Input < 0 || u.Output < 0 || u.Input+u.Output == 0 {
				t.Fatalf("usage update %+v", u)
			}
			spent.Input += u.Input
			spent.Output += u.Output
			if spent.Input > agent.MaxUsage || spent.Output > agent.MaxUsage {
				t.Fatalf("usage adds up to %+v", spent)
			}
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
		fuzzStream(t, &CodexParser{Prev: []todolist.Todo{{Content: "Implement CSV parser with quoted-field support", Status: todolist.InProgress}}}, data)
	})
}

func FuzzGemini(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { fuzzStream(t, &GeminiParser{}, data) })
}

// FuzzUsageFields checks the reading of a usage object against
// encoding/json into int64s: an object of whole counts in range adds up
// as decoded, and anything else is never a count in range.
func FuzzUsageFields(f *testing.F) {
	f.Add([]byte(`{"input_tokens":120,"cache_read_input_tokens":5,"output_tokens":1}`))
	f.Add([]byte(`{"input_tokens":-3,"output_tokens":1e13}`))
	f.Add([]byte(`{"input_tokens":1.5,"output_tokens":"7"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		u, ok := usageFields(data, claudeInput, claudeOutput)
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) != nil {
			return
		}
		if !ok {
			t.Fatalf("an object was refused: %q", data)
		}
		sum := func(keys []string) (int64, bool) {
			var n int64
			for _, k := range keys {
				raw, there := m[k]
				if !there || string(raw) == "null" {
					continue
				}
				var c int64
				if json.Unmarshal(raw, &c) != nil || c < 0 || c > agent.MaxUsage {
					return 0, false
				}
				n += c
			}
			return n, true
		}
		if in, good := sum(claudeInput); good && in != u.Input || !good && u.Input >= 0 && u.Input <= agent.MaxUsage {
			t.Fatalf("input %d, encoding/json reads %d (%v) of %q", u.Input, in, good, data)
		}
	})
}
